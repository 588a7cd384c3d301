import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, ApiHandlers } from '../../src-shared/api';
import { benchmarkProfile } from '../../src-shared/benchmarks';
import type { AnswerRecord, ProgressEvent } from '../../src-shared/experiment';
import { datasetStats, loadDatasetFile, MAX_DATASET_BYTES_ENV } from './dataset';
import { EXTRA_PRESETS_ENV } from './pipeline/loadPresets';
import { createService, type Service } from './service';
import { runEnded } from '../../tests/support/run-events';

/**
 * The desktop/browser path on a LongMemEval file over the whole-file limit (longmemeval_m.json is
 * ~2.7 GB): `datasets.open` streams it instead of refusing it, `datasets.sample` reads one question
 * from the file, and a run started through the API streams it too. The limit is lowered through
 * its environment variable so a small generated file stands in for M.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'mw-service-lme-'));
const data = join(root, 'longmemeval_m.json');
const generated = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    join(repo, 'scripts/generate-longmemeval-m.ts'),
    data,
    ...['--questions', '4', '--sessions', '3', '--turns', '4', '--words', '10', '--seed', '3'],
  ],
  { cwd: repo, encoding: 'utf8' },
);
if (generated.status !== 0) throw new Error(`generator failed: ${generated.stderr}`);
// Far below the file's size (several KiB), so loading it whole is refused.
const LIMIT = '1000';

const events: ApiEvent[] = [];
const services: Service[] = [];
function serve(): ApiHandlers {
  const service = createService({
    dataDir: join(root, 'data'),
    transport: 'http',
    datasetDirs: [root],
    emit: (e) => events.push(e),
  });
  services.push(service);
  return service.handlers;
}

beforeAll(() => {
  process.env[EXTRA_PRESETS_ENV] = join(repo, 'tests/fixtures/experiment/test-presets.ts');
  process.env[MAX_DATASET_BYTES_ENV] = LIMIT;
});

afterAll(async () => {
  for (const service of services) await service.close();
  delete process.env[EXTRA_PRESETS_ENV];
  delete process.env[MAX_DATASET_BYTES_ENV];
  rmSync(root, { recursive: true, force: true });
});

function finished(runId: string): Promise<ProgressEvent> {
  return runEnded(events, runId);
}

const config = {
  memory: { preset: 'test-recency', config: {} },
  answerer: { kind: 'extractive' as const },
  retrieval: { topK: 2 },
  seed: 1,
  timeouts: { insertMs: 5000, answerMs: 5000 },
  includeNoEvidence: false,
  maxErrorShare: 0.1,
  parallel: 2,
};

/** What a run answered and scored, without its timings. */
const outcome = (answers: AnswerRecord[]) =>
  answers.map(
    ({ sampleId, testIndex, questionIndex, question, prediction, retrieved, scores }) => ({
      sampleId,
      testIndex,
      questionIndex,
      question,
      prediction,
      retrieved,
      scores,
    }),
  );

const wholeLoad = () => loadDatasetFile(data, { maxBytes: Number.MAX_SAFE_INTEGER });

describe('service: a LongMemEval file over the whole-file limit', () => {
  it('opens it streamed with the stats of a whole load, browses a question, and runs it', async () => {
    expect(statSync(data).size).toBeGreaterThan(Number(LIMIT));
    await expect(loadDatasetFile(data)).rejects.toMatchObject({ code: 'DATASET_TOO_LARGE' });
    const api = serve();
    const whole = await wholeLoad();

    const summary = await api['datasets.open']({ path: data });
    expect(summary).toMatchObject({
      format: 'longmemeval',
      bytes: statSync(data).size,
      sha256: whole.info.sha256,
      problems: whole.problems,
    });
    expect(summary.stats).toEqual(
      datasetStats(whole.samples, {}, benchmarkProfile(whole.info.format)),
    );
    expect(summary.stats.samples.map((s) => s.sampleId)).toEqual(
      whole.samples.map((s) => s.sampleId),
    );

    // The last question: read from the file by a forward scan past the others.
    const last = whole.samples.at(-1)!;
    expect(
      await api['datasets.sample']({ datasetId: summary.datasetId, sampleId: last.sampleId }),
    ).toEqual(last);
    await expect(
      api['datasets.sample']({ datasetId: summary.datasetId, sampleId: 'nope' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const estimate = await api['experiments.estimate']({
      datasetId: summary.datasetId,
      ...config,
    });
    expect(estimate.samples).toBe(whole.samples.length);

    const streamed = await api['experiments.start']({ datasetId: summary.datasetId, ...config });
    expect((await finished(streamed.runId)).type).toBe('run-finished');

    // The same file loaded whole (no limit): same dataset id, now with a parsed copy.
    delete process.env[MAX_DATASET_BYTES_ENV];
    try {
      expect((await api['datasets.open']({ path: data })).datasetId).toBe(summary.datasetId);
      const loaded = await api['experiments.start']({ datasetId: summary.datasetId, ...config });
      expect((await finished(loaded.runId)).type).toBe('run-finished');
      const answers = outcome(await api['runs.answers']({ runId: streamed.runId }));
      expect(answers.length).toBeGreaterThan(0);
      expect(answers).toEqual(outcome(await api['runs.answers']({ runId: loaded.runId })));
      expect((await api['runs.get']({ runId: streamed.runId })).summary).toEqual(
        (await api['runs.get']({ runId: loaded.runId })).summary,
      );
    } finally {
      process.env[MAX_DATASET_BYTES_ENV] = LIMIT;
    }
  });

  it('reopens a remembered streamed file after a restart', async () => {
    const whole = await wholeLoad();
    // A new service on the same data folder: it reopens what the first one had open.
    const restarted = serve();
    const [listed] = (await restarted['datasets.list']({})).filter(
      (d) => d.sha256 === whole.info.sha256,
    );
    expect(listed?.stats).toEqual(
      datasetStats(whole.samples, {}, benchmarkProfile(whole.info.format)),
    );
    const first = whole.samples[0]!;
    expect(
      await restarted['datasets.sample']({
        datasetId: listed!.datasetId,
        sampleId: first.sampleId,
      }),
    ).toEqual(first);
  });

  it('refuses a run on a streamed file that changed on disk since it was opened', async () => {
    const api = serve();
    const file = join(root, 'changing.json');
    copyFileSync(data, file);
    const opened = await api['datasets.open']({ path: file });
    const before = (await api['runs.list']({})).length;
    // Still a valid file, and still streamed: only its bytes differ.
    appendFileSync(file, '\n');
    await expect(
      api['experiments.start']({ datasetId: opened.datasetId, ...config }),
    ).rejects.toMatchObject({
      code: 'DATASET_INVALID',
      message: expect.stringContaining(`${file}: the file changed on disk since it was opened`),
    });
    expect(await api['runs.list']({})).toHaveLength(before);
  });
});
