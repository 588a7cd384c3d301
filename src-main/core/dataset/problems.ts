import type { z } from 'zod';
import type { DatasetProblem } from '../../../src-shared/dataset/types';
import { formatPath } from '../../../src-shared/errors';
import type { LoadContext } from './registry';

/** What loaders share to turn zod issues into per-sample problems that name file, sample and path. */

/** More than this many issues in one sample are summarised: the first ones say enough. */
const MAX_ISSUES_PER_SAMPLE = 20;

export interface Issue {
  path: Array<string | number>;
  message: string;
}

/** Friendlier than zod's "expected string, received undefined" for the commonest mistake. */
export const errorMap: z.core.$ZodErrorMap = (issue) =>
  issue.code === 'invalid_type' && issue.input === undefined
    ? `missing required field (expected ${issue.expected})`
    : undefined;

export function zodIssues(error: z.ZodError, base: Array<string | number>): Issue[] {
  return error.issues.map((issue) => ({
    path: [...base, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    message: issue.message,
  }));
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export function toProblems(
  list: Issue[],
  severity: DatasetProblem['severity'],
  context: LoadContext,
  sampleIndex: number,
  sampleId: string | null,
  label: string,
): DatasetProblem[] {
  const shown = list.slice(0, MAX_ISSUES_PER_SAMPLE);
  const problems = shown.map((issue): DatasetProblem => ({
    severity,
    code: 'DATASET_INVALID',
    // The label already names the sample, so the shown path starts inside it.
    message: `${context.source}: ${label}: ${
      issue.path.length > 1 ? `${formatPath(issue.path.slice(1))}: ` : ''
    }${issue.message}`,
    path: issue.path,
    sampleIndex,
    sampleId,
  }));
  if (list.length > shown.length) {
    problems.push({
      severity,
      code: 'DATASET_INVALID',
      message: `${context.source}: ${label}: ${list.length - shown.length} more ${severity}s not shown`,
      path: [sampleIndex],
      sampleIndex,
      sampleId,
    });
  }
  return problems;
}
