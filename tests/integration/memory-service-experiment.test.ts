import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Packet } from '../../src-shared/dataset';
import type { AnswerRecord } from '../../src-shared/experiment';
import type { MemoryHit } from '../../src-main/core/answer/types';
import { hitsOf, wirePacket } from '../../src-main/core/memory/presets/external';
import type { MemoryService, MemoryServiceContext } from '../../src-main/core/memory/types';
import { inlineExecutor } from '../../src-main/core/pipeline/executors';
import {
  resumeRunBypassingLauncher,
  startRunBypassingLauncher,
} from '../../src-main/core/launch/testSeam';
import { canonicalJson, sha256Hex } from '../../src-main/core/runs/manifest';
import { RunStore } from '../../src-main/core/runs/store';
import { Bm25Memory } from '../../examples/memory-service-ts/bm25';
import { FAKE_HELLO, pythonCommand, startFakeService } from '../support/memory-services';

/**
 * Experiments through the Python reference service, end to end (worker threads, a child process
 * per sample, the runs database), checked against the same BM25 run in-process (the TypeScript
 * twin in examples/memory-service-ts/bm25.ts): a protocol boundary must not change the results.
 */

const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
/** The real dataset beside the repo (never committed); LOCOMO_FILE points elsewhere. */
const real =
  process.env['LOCOMO_FILE'] ??
  fileURLToPath(new URL('../../../shared/datasets/locomo10.json', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'workbench-memexp-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

function world(): { store: RunStore; dataDir: string } {
  const n = ++counter;
  return { store: RunStore.open(join(root, `runs-${n}.db`)), dataDir: join(root, `d${n}`) };
}

/** The BM25 twin in this process, mapped to and from the wire exactly as the external preset does. */
class InProcessBm25 implements MemoryService {
  readonly preset = 'bm25-in-process';
  readonly embedderName = null;
  private readonly memory = new Bm25Memory();

  constructor(private readonly ctx: MemoryServiceContext) {}

  async insert(packet: Packet): Promise<void> {
    const wire = wirePacket(packet, this.ctx.sample);
    this.memory.insert(wire.turns, wire.date_time);
  }

  async retrieve(question: string, topK: number): Promise<MemoryHit[]> {
    return hitsOf(this.memory.retrieve(question, topK));
  }

  stats(): Record<string, number> {
    return { items: this.memory.size };
  }

  notes(): string[] {
    return [];
  }

  async close(): Promise<void> {}
}

/** What must agree between the two runs: which turns came back, in order, and the answer. */
const comparable = (answers: AnswerRecord[]) =>
  answers.map((a) => ({
    key: `${a.sampleId}/${a.testIndex}/${a.questionIndex}`,
    retrieved: a.retrieved.map((r) => r.diaId),
    prediction: a.prediction,
    error: a.error,
  }));

async function externalVersusInProcess(datasetPath: string, samples?: string[]) {
  const config = {
    datasetPath,
    ...(samples ? { samples } : {}),
    memory: { preset: 'external', config: { command: pythonCommand } },
  };
  const external = world();
  const handle = await startRunBypassingLauncher(config, { ...external, mayStartProcesses: true });
  const outcome = await handle.done;
  expect(outcome.error).toBeNull();
  expect(outcome.status).toBe('completed');
  const run = external.store.getRun(handle.runId);

  const local = world();
  const inProcess = await startRunBypassingLauncher(
    { ...config, memory: { preset: 'bm25-in-process' } },
    { ...local, executor: inlineExecutor({ createMemory: async (ctx) => new InProcessBm25(ctx) }) },
  );
  expect((await inProcess.done).status).toBe('completed');
  const a = external.store.finalAnswers(handle.runId);
  const b = local.store.finalAnswers(inProcess.runId);
  external.store.close();
  local.store.close();
  return { run, a, b, summary: outcome.summary };
}

describe('an experiment through the Python reference service', () => {
  it('completes on the fixture, records the hello, and equals the same BM25 in-process', async () => {
    const { run, a, b } = await externalVersusInProcess(mini);
    expect(run.insertErrors).toBe(0);
    expect(run.answerErrors).toBe(0);
    const service = run.manifest.memory.service;
    expect(service?.hello).toMatchObject({ name: 'bm25-python', protocol: 'memory-workbench/1' });
    expect(service?.sha256).toBe(sha256Hex(canonicalJson(service?.hello)));
    expect(run.manifest.memory.notes.join('\n')).toContain('external service bm25-python 1.0.0');
    expect(a.length).toBeGreaterThan(0);
    expect(a.some((x) => x.retrieved.length > 0)).toBe(true);
    expect(comparable(a)).toEqual(comparable(b));
    for (let i = 0; i < a.length; i++) {
      const scores = (a[i] as AnswerRecord).retrieved.map((r) => r.score);
      const twin = (b[i] as AnswerRecord).retrieved.map((r) => r.score);
      scores.forEach((s, j) => expect(s).toBeCloseTo(twin[j] as number, 9));
    }
  });

  it('runs from the command line with one flag', () => {
    const r = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        join(repo, 'src-main/cli/main.ts'),
        'experiment',
        '--data',
        mini,
        '--memory-command',
        pythonCommand,
        '--runs-db',
        join(root, 'cli.db'),
        '--json',
      ],
      {
        cwd: repo,
        env: { ...process.env, MEMORY_WORKBENCH_DATA: join(root, 'cli') },
        encoding: 'utf8',
      },
    );
    expect(r.stderr).not.toContain('error');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed', preset: 'external' });
  });

  it.skipIf(!existsSync(real))(
    'conv-30 of the real dataset: the service run equals the in-process run',
    async () => {
      const { a, b, summary } = await externalVersusInProcess(real, ['conv-30']);
      expect(a.length).toBeGreaterThan(100);
      expect(comparable(a)).toEqual(comparable(b));
      expect(summary.errors).toBe(0);
    },
    600_000,
  );
});

describe('an experiment through a service the test writes', () => {
  it('a service that answers itself is asked instead of the answerer; its cited turns count', async () => {
    const service = await startFakeService((method) => {
      if (method === 'hello')
        return { ...FAKE_HELLO, capabilities: { retrieve: false, answer: true } };
      if (method === 'open') return { session: 's' };
      if (method === 'answer')
        return {
          answer: 'Paris',
          items: [{ text: 'Ann: I moved to Paris.', score: 1, dia_ids: ['D1:1'] }],
        };
      return {};
    });
    const { store, dataDir } = world();
    try {
      const handle = await startRunBypassingLauncher(
        {
          datasetPath: mini,
          samples: ['mini-1'],
          memory: { preset: 'external', config: { url: service.url } },
        },
        { store, dataDir },
      );
      expect((await handle.done).status).toBe('completed');
      const answers = store.finalAnswers(handle.runId);
      expect(answers.length).toBeGreaterThan(0);
      expect(new Set(answers.map((a) => a.prediction))).toEqual(new Set(['Paris']));
      const moved = answers.find((a) => a.question === 'Where did Ann move?');
      expect(moved).toMatchObject({
        scores: expect.objectContaining({ officialF1: 1, evidenceRecall: 1 }),
        error: null,
      });
      expect(service.calls).not.toContain('retrieve');
    } finally {
      store.close();
      await service.stop();
    }
  });

  it('the equal-context-budget mode trims what the answerer reads to the word budget', async () => {
    const service = await startFakeService((method) => {
      if (method === 'hello') return FAKE_HELLO;
      if (method === 'open') return { session: 's' };
      if (method === 'retrieve')
        return {
          items: ['D1:1', 'D1:2', 'D1:3', 'D2:1'].map((id, i) => ({
            text: `three words ${i}`,
            score: 4 - i,
            dia_ids: [id],
          })),
        };
      return {};
    });
    const { store, dataDir } = world();
    try {
      const handle = await startRunBypassingLauncher(
        {
          datasetPath: mini,
          samples: ['mini-1'],
          retrieval: { topK: 10, contextWords: 7 },
          memory: { preset: 'external', config: { url: service.url } },
        },
        { store, dataDir },
      );
      expect((await handle.done).status).toBe('completed');
      // 3 + 3 words, then the third memory cut to 1 word: three memories reach the answerer.
      for (const a of store.finalAnswers(handle.runId))
        expect(a.retrieved.map((r) => r.diaId)).toEqual(['D1:1', 'D1:2', 'D1:3']);
    } finally {
      store.close();
      await service.stop();
    }
  });

  it('resuming against a service whose hello changed says so in the run', async () => {
    let version = '1.0.0';
    const service = await startFakeService((method) => {
      if (method === 'hello') return { ...FAKE_HELLO, version };
      if (method === 'open') return { session: 's' };
      if (method === 'retrieve') return { items: [] };
      return {};
    });
    const { store, dataDir } = world();
    try {
      const config = {
        datasetPath: mini,
        samples: ['mini-1'],
        memory: { preset: 'external', config: { url: service.url } },
      };
      // Cancelled before it starts: a run to resume.
      const first = await startRunBypassingLauncher(config, {
        store,
        dataDir,
        signal: AbortSignal.abort(),
      });
      expect((await first.done).status).toBe('cancelled');
      const recorded = store.getRun(first.runId).manifest.memory.service;
      expect(recorded?.hello).toMatchObject({ version: '1.0.0' });

      version = '2.0.0';
      const resumed = await resumeRunBypassingLauncher(first.runId, { store, dataDir });
      expect((await resumed.done).status).toBe('completed');
      const manifest = store.getRun(first.runId).manifest;
      // The run keeps the hello it started with, and says the service changed.
      expect(manifest.memory.service?.sha256).toBe(recorded?.sha256);
      expect(manifest.memory.notes.join('\n')).toContain(
        `resumed with a different external service: hello sha256`,
      );
    } finally {
      store.close();
      await service.stop();
    }
  });

  it('sends the token named by tokenEnv as a bearer header, and stores only its name', async () => {
    const seen = new Set<string | undefined>();
    const service = await startFakeService((method, _params, headers) => {
      seen.add(headers.authorization);
      if (method === 'hello') return FAKE_HELLO;
      if (method === 'open') return { session: 's' };
      if (method === 'retrieve') return { items: [] };
      return {};
    });
    const { store, dataDir } = world();
    process.env['MEMSVC_TEST_API_TOKEN'] = 's3cret-token';
    try {
      const handle = await startRunBypassingLauncher(
        {
          datasetPath: mini,
          samples: ['mini-1'],
          memory: {
            preset: 'external',
            config: { url: service.url, tokenEnv: 'MEMSVC_TEST_API_TOKEN' },
          },
        },
        { store, dataDir },
      );
      expect((await handle.done).status).toBe('completed');
      // Every call, from the main thread's hello to the worker's close, carried the token.
      expect([...seen]).toEqual(['Bearer s3cret-token']);
      const stored = JSON.stringify(store.getRun(handle.runId).manifest);
      expect(stored).toContain('MEMSVC_TEST_API_TOKEN');
      expect(stored).not.toContain('s3cret-token');
    } finally {
      delete process.env['MEMSVC_TEST_API_TOKEN'];
      store.close();
      await service.stop();
    }
  });

  it('every turn a chunk cites counts for evidence recall, not only its first', async () => {
    // One two-turn chunk citing both evidence turns of "When did Ann buy it?" (D2:2; D1:3).
    const service = await startFakeService((method) => {
      if (method === 'hello') return FAKE_HELLO;
      if (method === 'open') return { session: 's' };
      if (method === 'retrieve')
        return {
          items: [
            { text: 'Bob: Cute. Ann: I bought it in 2022.', score: 1, dia_ids: ['D1:3', 'D2:2'] },
          ],
        };
      return {};
    });
    const { store, dataDir } = world();
    try {
      const handle = await startRunBypassingLauncher(
        {
          datasetPath: mini,
          samples: ['mini-1'],
          memory: { preset: 'external', config: { url: service.url } },
        },
        { store, dataDir },
      );
      expect((await handle.done).status).toBe('completed');
      const bought = store
        .finalAnswers(handle.runId)
        .find((a) => a.question === 'When did Ann buy it?');
      expect(bought?.scores['evidenceRecall']).toBe(1);
      expect(bought?.retrieved[0]).toMatchObject({ diaId: 'D1:3', diaIds: ['D1:3', 'D2:2'] });
    } finally {
      store.close();
      await service.stop();
    }
  });

  it('items beyond top_k are dropped and the run says so', async () => {
    const service = await startFakeService((method) => {
      if (method === 'hello') return FAKE_HELLO;
      if (method === 'open') return { session: 's' };
      if (method === 'retrieve')
        return {
          items: Array.from({ length: 30 }, (_, i) => ({
            text: `memory ${i}`,
            score: 30 - i,
            dia_ids: ['D1:1'],
          })),
        };
      return {};
    });
    const { store, dataDir } = world();
    try {
      const handle = await startRunBypassingLauncher(
        {
          datasetPath: mini,
          samples: ['mini-1'],
          retrieval: { topK: 4 },
          memory: { preset: 'external', config: { url: service.url } },
        },
        { store, dataDir },
      );
      expect((await handle.done).status).toBe('completed');
      for (const a of store.finalAnswers(handle.runId)) expect(a.retrieved).toHaveLength(4);
      expect(store.getRun(handle.runId).manifest.memory.notes.join('\n')).toMatch(
        /returned more than top_k items \d+ time\(s\); the extra items were dropped/,
      );
    } finally {
      store.close();
      await service.stop();
    }
  });
});
