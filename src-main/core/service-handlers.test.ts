import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../src-shared/api';
import { runEnded } from '../../tests/support/run-events';
import { EXTRA_PRESETS_ENV } from './pipeline/loadPresets';
import { READ_METHODS } from './runs/queries';
import { RUN_WRITE_METHODS } from './runs/handlers';
import { createService, type Service } from './service';

const repo = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The runs domain's handlers come from one list each (READ_METHODS, RUN_WRITE_METHODS): a read
 * view added to runs/queries.ts is served by both transports without touching the service.
 */
describe('service runs handlers', () => {
  let dir: string;
  let service: Service;
  afterEach(async () => {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([0, 1])(
    'serves every read method as objects and as JSON bytes (%i read workers)',
    async (readWorkers) => {
      dir = mkdtempSync(join(tmpdir(), 'mw-service-handlers-'));
      service = createService({ dataDir: dir, transport: 'http', readWorkers });
      for (const method of [...READ_METHODS, ...RUN_WRITE_METHODS]) {
        expect(service.handlers[method], method).toBeTypeOf('function');
      }
      for (const method of READ_METHODS) {
        expect(service.serialized[method], method).toBeTypeOf('function');
      }
      const bytes = await service.serialized['sweeps.list']?.({});
      expect(JSON.parse(new TextDecoder().decode(bytes))).toEqual(
        await service.handlers['sweeps.list']({}),
      );
    },
  );

  it('refuses resuming, deleting and rescoring a running run, and lets its identity change', async () => {
    // The worker loads the test-only preset through this variable.
    process.env[EXTRA_PRESETS_ENV] = join(repo, 'tests/fixtures/experiment/test-presets.ts');
    dir = mkdtempSync(join(tmpdir(), 'mw-service-handlers-'));
    const events: ApiEvent[] = [];
    service = createService({ dataDir: dir, transport: 'http', emit: (e) => events.push(e) });
    const api = service.handlers;
    try {
      const dataset = await api['datasets.upload']({
        name: 'mini.json',
        content: readFileSync(join(repo, 'tests/fixtures/locomo/mini.json'), 'utf8'),
      });
      const { runId } = await api['experiments.start']({
        datasetId: dataset.datasetId,
        samples: ['mini-1'],
        // The first insert never settles: the run is running until it is cancelled.
        memory: { preset: 'test-recency', config: { hangInsertPackets: [0] } },
        answerer: { kind: 'extractive' },
        retrieval: { topK: 2 },
        seed: 1,
        timeouts: { insertMs: 600_000, answerMs: 5000 },
        includeNoEvidence: false,
        maxErrorShare: 0.1,
        parallel: 1,
      });
      const conflict = (call: Promise<unknown>) =>
        call.then(
          () => null,
          (error: unknown) => error,
        );
      expect(await conflict(api['experiments.resume']({ runId }))).toMatchObject({
        code: 'CONFLICT',
        message: `run ${runId} is already running`,
        path: ['runId'],
      });
      expect(await conflict(api['runs.delete']({ runId }))).toMatchObject({
        code: 'CONFLICT',
        message: `run ${runId} is running; cancel it before deleting`,
      });
      expect(await conflict(api['runs.rescore']({ runId }))).toMatchObject({
        code: 'CONFLICT',
        message: `run ${runId} is running; rescore it when it ends`,
      });
      // A name is not the run's config: it may change while the run goes on.
      expect(await api['runs.setIdentity']({ runId, name: 'renamed' })).toMatchObject({
        name: 'renamed',
      });

      expect(await api['experiments.cancel']({ runId })).toEqual({ cancelled: true });
      expect((await runEnded(events, runId)).type).toBe('run-cancelled');
      await expect.poll(() => api['experiments.active']({})).toEqual([]);
      expect(await api['runs.delete']({ runId })).toEqual({ deleted: true });
    } finally {
      delete process.env[EXTRA_PRESETS_ENV];
    }
  });
});
