import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PackResults } from '../../src-shared/reproduce';
import { RunReadWorkers } from './runs/readWorkers';
import { createService, type Service } from './service';

/**
 * `reproduce.results` reads every final answer of a pack's runs (seconds for a full-size pack, on
 * a thread that also answers every light call), so the service serves it from the runs read worker,
 * a real worker thread here, with the same figures and the same user's file names as the main
 * thread computes.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const PACK = 'locomo-table2';
let dir: string;
let service: Service;
let inWorker: PackResults;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mw-service-reproduce-'));
  service = createService({ dataDir: dir, transport: 'http', readWorkers: 1 });
  // An upload: the runs record its content-addressed copy; the results name the user's file.
  const dataset = await service.handlers['datasets.upload']({
    name: 'my-locomo.json',
    content: readFileSync(join(repo, 'tests/fixtures/locomo/mini.json'), 'utf8'),
  });
  const run = await service.handlers['reproduce.run']({
    packId: PACK,
    datasetId: dataset.datasetId,
    samples: ['mini-1'],
    repeats: 1,
  });
  expect(run.incomplete).toBe(0);
  const calls = vi.spyOn(RunReadWorkers.prototype, 'call');
  try {
    inWorker = await service.handlers['reproduce.results']({ packId: PACK });
    expect(calls.mock.calls).toEqual([['reproduce.results', { packId: PACK }]]);
  } finally {
    calls.mockRestore();
  }
}, 180_000);

afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('reproduce.results in the runs read worker', () => {
  it("reads the pack's stored runs there, naming the user's file of an upload", () => {
    expect(inWorker.rows.length).toBeGreaterThan(0);
    for (const row of inWorker.rows) {
      expect(row).toMatchObject({ status: 'complete', dataset: { file: 'my-locomo.json' } });
      expect(row.command).toContain('--data my-locomo.json');
    }
    expect(inWorker.cells.some((c) => c.ours !== null)).toBe(true);
  });

  it('gives exactly what the same read gives on the main thread', async () => {
    const inline = createService({ dataDir: dir, transport: 'http', readWorkers: 0 });
    try {
      expect(await inline.handlers['reproduce.results']({ packId: PACK })).toEqual(inWorker);
    } finally {
      await inline.close();
    }
  });

  it('a read worker not given the data folder refuses it, naming why, rather than guess file names', async () => {
    const pool = new RunReadWorkers({ file: join(dir, 'runs.db') });
    try {
      await expect(pool.call('reproduce.results', { packId: PACK })).rejects.toMatchObject({
        code: 'INTERNAL',
        message: expect.stringContaining('needs the data folder'),
      });
      // An unknown pack is the pack loader's own error, as on the main thread.
      const withFolder = new RunReadWorkers({ file: join(dir, 'runs.db'), dataDir: dir });
      try {
        await expect(
          withFolder.call('reproduce.results', { packId: 'no-such-pack' }),
        ).rejects.toMatchObject({ code: 'NOT_FOUND' });
      } finally {
        await withFolder.close();
      }
    } finally {
      await pool.close();
    }
  });
});
