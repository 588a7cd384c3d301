import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../src-shared/errors';
import { writeFixtureRun } from '../../../tests/support/runs-fixture';
import { startServer } from '../../server/server';
import { createService } from '../service';
import { runQueries, type RunQueries } from './queries';
import { RunReadWorkers } from './readWorkers';
import { RunStore } from './store';

// Real worker threads (started through tsx, as the CLI does) over a real runs DB file.
let dir: string;
let store: RunStore;
let direct: RunQueries;
let workers: RunReadWorkers;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'workbench-readworkers-'));
  store = RunStore.open(join(dir, 'runs.db'));
  writeFixtureRun(store, { runId: 'run-a', preset: 'hybrid', samples: 3, tests: 4, step: 5 });
  writeFixtureRun(store, { runId: 'run-b', preset: 'text', samples: 3, tests: 4, step: 5 });
  // About a LoCoMo run's size (8,800 answers over all tests), so reading it takes a while.
  writeFixtureRun(store, { runId: 'big', samples: 20, tests: 10, step: 8, retrieved: 10 });
  direct = runQueries(store);
  workers = new RunReadWorkers({ file: store.file });
});

afterAll(async () => {
  await workers.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function rejection(promise: Promise<unknown>): Promise<WorkbenchError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WorkbenchError);
    return error as WorkbenchError;
  }
  throw new Error('expected a rejection');
}

describe('runs read worker', () => {
  it('returns exactly what the same views return on this thread', async () => {
    const runIds = ['run-a', 'run-b'];
    const compare = { runIds, baselineRunId: 'run-a', metric: 'officialF1' as const, seed: 7 };
    expect(await workers.call('runs.list', {})).toEqual(direct['runs.list']({}));
    expect(await workers.call('runs.get', { runId: 'run-a' })).toEqual(
      direct['runs.get']({ runId: 'run-a' }),
    );
    const answers = await workers.call('runs.answers', { runId: 'run-b' });
    expect(answers).toEqual(direct['runs.answers']({ runId: 'run-b' }));
    expect(answers).toHaveLength(3 * 20);
    for (const format of ['json', 'csv'] as const) {
      expect(await workers.call('runs.export', { runId: 'run-a', format })).toEqual(
        direct['runs.export']({ runId: 'run-a', format }),
      );
      const compareExport = { runIds, baselineRunId: 'run-a', metric: 'setF1' as const, format };
      expect(await workers.call('runs.compareExport', compareExport)).toEqual(
        direct['runs.compareExport'](compareExport),
      );
    }
    expect(await workers.call('runs.compare', compare)).toEqual(direct['runs.compare'](compare));
  });

  it('returns the same views as JSON bytes, transferred from the worker', async () => {
    const decode = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(bytes));
    const answers = await workers.callJson('runs.answers', { runId: 'run-a' });
    expect(answers).toBeInstanceOf(Uint8Array);
    expect(decode(answers)).toEqual(direct['runs.answers']({ runId: 'run-a' }));
    const file = await workers.callJson('runs.export', { runId: 'run-b', format: 'json' });
    expect(decode(file)).toEqual(direct['runs.export']({ runId: 'run-b', format: 'json' }));
    await expect(workers.callJson('runs.get', { runId: 'nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('serves read views over HTTP from the worker bytes, errors with their status and code', async () => {
    const service = createService({ dataDir: dir, transport: 'http' });
    const server = await startServer({
      handlers: service.handlers,
      serialized: service.serialized,
      staticDir: join(dir, 'static'),
      token: 'bench-token',
    });
    const post = async (name: string, input: unknown) => {
      const res = await fetch(`http://127.0.0.1:${server.port}/api/${name}`, {
        method: 'POST',
        headers: { authorization: 'Bearer bench-token', 'content-type': 'application/json' },
        body: JSON.stringify(input),
      });
      return { status: res.status, body: (await res.json()) as unknown };
    };
    try {
      expect(await post('runs.answers', { runId: 'run-b' })).toEqual({
        status: 200,
        body: { ok: true, data: direct['runs.answers']({ runId: 'run-b' }) },
      });
      const compare = { runIds: ['run-a', 'run-b'], baselineRunId: 'run-a' };
      expect(await post('runs.compare', compare)).toEqual({
        status: 200,
        body: {
          ok: true,
          data: direct['runs.compare']({ ...compare, metric: 'officialF1', seed: 0 }),
        },
      });
      const missing = await post('runs.get', { runId: 'nope' });
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
      const bad = await post('runs.export', { runId: 'run-a', format: 'xml' });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({
        ok: false,
        error: { code: 'INVALID_INPUT', path: ['format'] },
      });
      // Methods without a serialised handler answer as before.
      expect((await post('app.info', {})).body).toMatchObject({
        ok: true,
        data: { transport: 'http' },
      });
    } finally {
      await server.close();
      await service.close();
    }
  });

  it('sees a write the main thread committed before the call', async () => {
    writeFixtureRun(store, { runId: 'run-late', samples: 1, tests: 1, step: 2 });
    const list = await workers.call('runs.list', {});
    expect(list.map((r) => r.id)).toContain('run-late');
    expect(store.deleteRun('run-late')).toBe(true);
    await expect(workers.call('runs.get', { runId: 'run-late' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('keeps error codes, paths and where across the boundary', async () => {
    const missing = await rejection(workers.call('runs.get', { runId: 'nope' }));
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.message).toBe(`no run nope in ${store.file}`);
    expect(missing.where).toBe(store.file);

    const baseline = await rejection(
      workers.call('runs.compare', {
        runIds: ['run-a', 'run-b'],
        baselineRunId: 'run-c',
        metric: 'officialF1',
        seed: 0,
      }),
    );
    expect(baseline.code).toBe('INVALID_INPUT');
    expect(baseline.path).toEqual(['baselineRunId']);

    // The worker checks inputs against the API contract itself.
    const bad = await rejection(
      workers.call('runs.export', { runId: 'run-a', format: 'xml' as 'json' }),
    );
    expect(bad.code).toBe('INVALID_INPUT');
    expect(bad.path).toEqual(['format']);
  });

  it('keeps the main event loop turning while a heavy read runs', async () => {
    let done = false;
    let turnsWhileReading = 0;
    const spin = (): void => {
      if (done) return;
      turnsWhileReading++;
      setImmediate(spin);
    };
    const read = workers.call('runs.export', { runId: 'big', format: 'json' }).finally(() => {
      done = true;
    });
    setImmediate(spin);
    const file = await read;
    expect(file.content.length).toBeGreaterThan(1_000_000);
    // A read on this thread would finish before the first setImmediate callback could run.
    expect(turnsWhileReading).toBeGreaterThan(10);
  });

  it("serves the API's runs.* read handlers through the worker (both transports call these)", async () => {
    const service = createService({ dataDir: dir, transport: 'http' });
    try {
      let done = false;
      let turnsWhileReading = 0;
      const spin = (): void => {
        if (done) return;
        turnsWhileReading++;
        setImmediate(spin);
      };
      const read = service.handlers['runs.get']({ runId: 'big' }).finally(() => {
        done = true;
      });
      setImmediate(spin);
      expect(await read).toEqual(direct['runs.get']({ runId: 'big' }));
      expect(turnsWhileReading).toBeGreaterThan(10);
    } finally {
      await service.close();
    }
  });

  it('fails the running call with a coded error when its worker dies, and serves the next on a new worker', async () => {
    const started: Worker[] = [];
    const pool = new RunReadWorkers({ file: store.file, onWorkerStart: (w) => started.push(w) });
    try {
      const running = pool.call('runs.export', { runId: 'big', format: 'json' });
      const queued = pool.call('runs.get', { runId: 'run-a' });
      expect(started).toHaveLength(1);
      await started[0]?.terminate();
      const error = await rejection(running);
      expect(error.code).toBe('INTERNAL');
      expect(error.message).toMatch(/runs read worker exited \(code \d+\) during runs\.export/);
      // The call waiting behind it is served by a replacement worker.
      expect(await queued).toEqual(direct['runs.get']({ runId: 'run-a' }));
      expect(pool.workersStarted).toBe(2);
      expect(await pool.call('runs.answers', { runId: 'run-a' })).toHaveLength(60);
    } finally {
      await pool.close();
    }
  });

  it('refuses calls beyond its queue with BUSY, and cancels waiting calls on close', async () => {
    const pool = new RunReadWorkers({ file: store.file, maxQueue: 1 });
    const running = rejection(pool.call('runs.answers', { runId: 'big' }));
    const waiting = rejection(pool.call('runs.answers', { runId: 'run-a' }));
    const refused = await rejection(pool.call('runs.list', {}));
    expect(refused.code).toBe('BUSY');
    await pool.close();
    expect((await running).code).toBe('CANCELLED');
    expect((await waiting).code).toBe('CANCELLED');
    expect((await rejection(pool.call('runs.list', {}))).code).toBe('CANCELLED');
  });

  it('warm() starts one idle worker before the first read, and that read uses it', async () => {
    const started: Worker[] = [];
    const pool = new RunReadWorkers({ file: store.file, onWorkerStart: (w) => started.push(w) });
    try {
      pool.warm();
      pool.warm();
      expect(pool.workersStarted).toBe(1);
      expect(await pool.call('runs.list', {})).toEqual(direct['runs.list']({}));
      expect(pool.workersStarted).toBe(1);
      expect(started).toHaveLength(1);
    } finally {
      await pool.close();
    }
  });
});
