import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../src-shared/errors';
import { DatasetStore } from './datasets';

const MINI = join(__dirname, '../../tests/fixtures/locomo/mini.json');
const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mw-datasets-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('DatasetStore', () => {
  it('opens an uploaded file, serves its samples, and reopens it after a restart', async () => {
    const dataDir = tempDir();
    const store = new DatasetStore(dataDir);
    const summary = await store.upload('mini.json', readFileSync(MINI, 'utf8'));
    expect(summary.name).toBe('mini.json');
    expect(summary.stats.totals.samples).toBeGreaterThan(0);
    const firstSample = summary.stats.samples[0]!.sampleId;
    expect((await store.sample(summary.datasetId, firstSample)).sampleId).toBe(firstSample);

    const restarted = new DatasetStore(dataDir);
    expect((await restarted.list()).map((d) => d.datasetId)).toEqual([summary.datasetId]);
  });

  it('refuses a bad upload naming the uploaded file, and keeps nothing of it', async () => {
    const dataDir = tempDir();
    const store = new DatasetStore(dataDir);
    const error = await store.upload('broken.json', '[{"sample_id": ').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkbenchError);
    expect((error as WorkbenchError).message).toMatch(
      /^broken\.json: not valid JSON at line 1, column \d+/,
    );
    expect(readdirSync(join(dataDir, 'datasets'))).toEqual([]);
    expect(await store.list()).toEqual([]);
  });

  it('answers unknown datasets and samples with NOT_FOUND', async () => {
    const store = new DatasetStore(tempDir());
    await expect(store.get('0'.repeat(64))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const summary = await store.openPath(MINI);
    await expect(store.sample(summary.datasetId, 'nope')).rejects.toThrow(
      'dataset mini.json has no sample "nope"',
    );
  });
});
