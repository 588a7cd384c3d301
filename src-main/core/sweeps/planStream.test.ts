import { statSync } from 'node:fs';
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
const config = (samples?: string[]) =>
  parseOrThrow(
    ExperimentConfigSchema,
    {
      datasetPath: FIXTURE,
      answerer: { kind: 'llm', baseUrl: 'http://127.0.0.1:9/v1', model: 'a', prices },
      judge: { baseUrl: 'http://127.0.0.1:9/v1', model: 'j', repeats: 2, prices },
      ...(samples ? { samples } : {}),
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
