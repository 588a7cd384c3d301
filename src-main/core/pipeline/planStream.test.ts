import {
  copyFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseOrThrow } from '../../../src-shared/errors';
import { ExperimentConfigSchema } from '../../../src-shared/experiment';
import { MAX_DATASET_BYTES_ENV, loadDatasetFile } from '../dataset/load';
import { planRun } from './plan';

/**
 * The estimate a run keeps (`planRun`) for a LongMemEval file over the whole-file limit: planned
 * from one streamed pass, it equals the estimate of the same file loaded whole.
 */
const FIXTURE = fileURLToPath(
  new URL('../../../tests/fixtures/longmemeval/longmemeval_s.json', import.meta.url),
);
const before = process.env[MAX_DATASET_BYTES_ENV];
afterEach(() => {
  if (before === undefined) delete process.env[MAX_DATASET_BYTES_ENV];
  else process.env[MAX_DATASET_BYTES_ENV] = before;
});

const prices = { inputPerMillion: 1, outputPerMillion: 2 };
const config = (samples?: string[], extra: Record<string, unknown> = {}, datasetPath = FIXTURE) =>
  parseOrThrow(
    ExperimentConfigSchema,
    {
      datasetPath,
      answerer: { kind: 'llm', baseUrl: 'http://127.0.0.1:9/v1', model: 'a', prices },
      judge: { baseUrl: 'http://127.0.0.1:9/v1', model: 'j', repeats: 2, prices },
      ...(samples ? { samples } : {}),
      ...extra,
    },
    'test config',
  );

describe('the planner on a streamed LongMemEval file', () => {
  it('estimates what it estimates for the file loaded whole, selection included', async () => {
    const whole = await planRun(config());
    const some = await planRun(config(['6a1eabeb', '0a995998_abs']));
    expect(whole.answerCalls).toBeGreaterThan(some.answerCalls);

    process.env[MAX_DATASET_BYTES_ENV] = String(statSync(FIXTURE).size - 1);
    // Loading it whole is refused now, so the plans below come from the stream.
    await expect(loadDatasetFile(FIXTURE)).rejects.toMatchObject({ code: 'DATASET_TOO_LARGE' });
    expect(await planRun(config())).toEqual(whole);
    expect(await planRun(config(['6a1eabeb', '0a995998_abs']))).toEqual(some);
    await expect(planRun(config(['nope']))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('the planner asked again on the same streamed file (the Experiments form, edit by edit)', () => {
  it('plans each edit as the whole file would, and reads a rewritten file again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mw-plan-stream-'));
    try {
      const file = join(dir, 'longmemeval_m.json');
      copyFileSync(FIXTURE, file);
      // Whole seconds: set again below, the mtime round-trips exactly.
      const stamp = 1_700_000_000;
      utimesSync(file, stamp, stamp);
      const edits: Array<Record<string, unknown>> = [
        {},
        { retrieval: { topK: 3 } },
        { judge: { baseUrl: 'http://127.0.0.1:9/v1', model: 'j', repeats: 1, prices } },
        { includeNoEvidence: false },
        { haystackCurvePoints: 2 },
        { answerer: { kind: 'llm', baseUrl: 'http://127.0.0.1:9/v1', model: 'a', maxTokens: 7 } },
      ];
      const whole = [];
      for (const edit of edits) whole.push(await planRun(config(undefined, edit, file)));
      process.env[MAX_DATASET_BYTES_ENV] = '1000';
      await expect(loadDatasetFile(file)).rejects.toMatchObject({ code: 'DATASET_TOO_LARGE' });
      for (const [i, edit] of edits.entries()) {
        expect(await planRun(config(undefined, edit, file))).toEqual(whole[i]);
      }

      // Edits are planned from the first pass's sums, not by reading the file again: with its
      // closing bracket blanked behind an unchanged size and mtime (a pass would refuse it as
      // cut short), the estimate still comes from memory.
      const original = readFileSync(file, 'utf8');
      const end = original.lastIndexOf(']');
      writeFileSync(file, `${original.slice(0, end)} ${original.slice(end + 1)}`);
      utimesSync(file, stamp, stamp);
      expect(await planRun(config(undefined, { retrieval: { topK: 4 } }, file))).toMatchObject({
        samples: whole[0]!.samples,
        answerCalls: whole[0]!.answerCalls,
      });

      // Rewritten with one question fewer: a new size and mtime, so it is read again.
      const questions = JSON.parse(original) as unknown[];
      writeFileSync(file, JSON.stringify(questions.slice(1)));
      const fewer = await planRun(config(undefined, {}, file));
      expect(fewer.samples).toBe(questions.length - 1);
      expect(fewer.answerCalls).toBeLessThan(whole[0]!.answerCalls);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
