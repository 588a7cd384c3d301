import { readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { WorkbenchError, parseOrThrow } from '../../../src-shared/errors';
import {
  SweepSpecSchema,
  expandSweep,
  type SweepCell,
  type SweepSpec,
} from '../../../src-shared/sweeps';
import { canonicalJson, sha256Hex } from '../canonical-hash';

/**
 * Reads a sweep spec (YAML, or JSON, which is YAML too), validates it and expands it. Dataset
 * paths are relative to the spec file, so a spec and its data can move together.
 */

export interface LoadedSweep {
  file: string;
  spec: SweepSpec;
  /** `<name>-<10 hex of the spec's content>`: the same spec resumes, an edited one is new. */
  sweepId: string;
  cells: SweepCell[];
}

function parseText(file: string, text: string): unknown {
  if (extname(file).toLowerCase() === '.json') {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `sweep spec ${file}: not valid JSON (${(error as Error).message})`,
        { where: file },
      );
    }
  }
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const at = first.linePos?.[0];
    throw new WorkbenchError(
      'INVALID_INPUT',
      `sweep spec ${file}${at ? `:${at.line}:${at.col}` : ''}: not valid YAML (${(first.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')})`,
      { where: file },
    );
  }
  return doc.toJS() as unknown;
}

/** Validates and expands a parsed spec; `baseDir` resolves relative dataset paths. */
export function loadSweep(value: unknown, file: string, baseDir: string): LoadedSweep {
  const what = `sweep spec ${file}`;
  const spec = parseOrThrow(SweepSpecSchema, value, what);
  const cells = expandSweep(spec, what).map((cell) => ({
    ...cell,
    config: { ...cell.config, datasetPath: resolve(baseDir, cell.config.datasetPath) },
  }));
  const sweepId = `${spec.name}-${sha256Hex(canonicalJson(cells.map((c) => [c.key, c.config]))).slice(0, 10)}`;
  return { file, spec, sweepId, cells };
}

export function readSweepFile(file: string): LoadedSweep {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new WorkbenchError(
      'NOT_FOUND',
      `sweep spec ${file}: cannot read it (${(error as Error).message})`,
      { where: file },
    );
  }
  return loadSweep(parseText(file, text), file, dirname(resolve(file)));
}
