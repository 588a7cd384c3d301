import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../src-shared/errors';
import { DatasetStore, listDatasetFolderFiles, resolveInsideDatasetDirs } from './datasets';

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
    const stored = join(dataDir, 'datasets');
    expect(existsSync(stored) ? readdirSync(stored) : []).toEqual([]);
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

describe('DatasetStore: opening in a worker thread (issue 23 item 8)', () => {
  // A 1-byte threshold sends every file through the worker; Infinity keeps every one inline.
  const offThread = () => new DatasetStore(tempDir(), 1);
  const inline = () => new DatasetStore(tempDir(), Number.POSITIVE_INFINITY);
  const FIXTURES = join(__dirname, '../../tests/fixtures/locomo');

  it('opens to the same summary and samples as the inline load, bad samples reported alike', async () => {
    for (const file of [MINI, join(FIXTURES, 'bad-samples.json')]) {
      const [worker, main] = [offThread(), inline()];
      const a = await worker.openPath(file);
      const b = await main.openPath(file);
      expect({ ...a, openedAt: '' }).toStrictEqual({ ...b, openedAt: '' });
      expect(a.problems.length).toBe(b.problems.length);
      const [ours, theirs] = [await worker.get(a.datasetId), await main.get(b.datasetId)];
      expect(ours.loaded).toStrictEqual(theirs.loaded);
      for (const { sampleId } of a.stats.samples) {
        expect(await ours.sample(sampleId)).toStrictEqual(await theirs.sample(sampleId));
      }
    }
  });

  it("refuses a broken file with the loader's own coded error, as inline", async () => {
    const broken = join(tempDir(), 'broken.json');
    writeFileSync(broken, '[{"sample_id": ');
    for (const file of [broken, join(FIXTURES, 'not-array.json')]) {
      const viaWorker = await offThread()
        .openPath(file)
        .catch((e: unknown) => e);
      const viaMain = await inline()
        .openPath(file)
        .catch((e: unknown) => e);
      expect(viaWorker).toBeInstanceOf(WorkbenchError);
      expect((viaWorker as WorkbenchError).toPayload()).toEqual(
        (viaMain as WorkbenchError).toPayload(),
      );
    }
  });
});

describe('resolveInsideDatasetDirs (browser mode datasets.open)', () => {
  function layout() {
    const root = tempDir();
    const allowed = join(root, 'data');
    mkdirSync(allowed);
    // A sibling whose name starts like the allowed folder: a prefix check would let it through.
    mkdirSync(join(root, 'data-private'));
    writeFileSync(join(root, 'data-private', 'x.json'), '[]');
    writeFileSync(join(root, 'secret.json'), '[]');
    writeFileSync(join(allowed, 'in.json'), '[]');
    symlinkSync(join(root, 'secret.json'), join(allowed, 'escape.json'));
    symlinkSync(join(allowed, 'in.json'), join(root, 'link-in.json'));
    return { root, allowed };
  }

  it('returns the real path of a file inside an allowed folder, also through a link to it', () => {
    const { root, allowed } = layout();
    expect(resolveInsideDatasetDirs(join(allowed, 'in.json'), [allowed])).toBe(
      join(allowed, 'in.json'),
    );
    expect(resolveInsideDatasetDirs(join(root, 'link-in.json'), [allowed])).toBe(
      join(allowed, 'in.json'),
    );
    // Missing but inside: the loader then answers NOT_FOUND.
    expect(resolveInsideDatasetDirs(join(allowed, 'later.json'), [allowed])).toBe(
      join(allowed, 'later.json'),
    );
  });

  it('refuses anything outside with FORBIDDEN, whether or not it exists, and says how to allow it', () => {
    const { root, allowed } = layout();
    const outside = [
      join(root, 'secret.json'),
      join(allowed, 'escape.json'),
      join(allowed, '..', 'secret.json'),
      join(root, 'data-private', 'x.json'),
      join(root, 'missing.json'),
      allowed,
      'data/in.json',
    ];
    for (const path of outside) {
      expect(() => resolveInsideDatasetDirs(path, [allowed]), path).toThrow(
        expect.objectContaining({
          code: 'FORBIDDEN',
          message: `datasets.open: ${path} is outside the folders this server may read (upload the file in the Datasets view, or restart \`serve\` with another --dataset-dir <folder>)`,
        }),
      );
    }
    expect(() => resolveInsideDatasetDirs(join(allowed, 'in.json'), [])).toThrow(
      expect.objectContaining({
        code: 'FORBIDDEN',
        message: expect.stringContaining(
          'this server opens uploads only; upload the file in the Datasets view, or restart `serve` with --dataset-dir <folder>',
        ),
      }),
    );
  });
});

describe('listDatasetFolderFiles (the browser-mode picker)', () => {
  it('lists the .json files directly inside each folder with sizes, and nothing datasets.open would refuse', async () => {
    const root = tempDir();
    const first = join(root, 'data');
    const second = join(root, 'more');
    mkdirSync(first);
    mkdirSync(second);
    writeFileSync(join(root, 'secret.json'), '[1]');
    writeFileSync(join(first, 'b.json'), '[]');
    writeFileSync(join(first, 'A.JSON'), '[1,2]');
    writeFileSync(join(first, 'notes.txt'), 'x');
    mkdirSync(join(first, 'folder.json'));
    mkdirSync(join(first, 'nested'));
    writeFileSync(join(first, 'nested', 'deep.json'), '[]');
    symlinkSync(join(root, 'secret.json'), join(first, 'escape.json'));
    symlinkSync(join(second, 'm.json'), join(first, 'to-second.json'));
    writeFileSync(join(second, 'm.json'), '[3]');

    const files = await listDatasetFolderFiles([first, second]);
    expect(files).toEqual([
      { path: join(first, 'A.JSON'), name: 'A.JSON', folder: first, bytes: 5 },
      { path: join(first, 'b.json'), name: 'b.json', folder: first, bytes: 2 },
      { path: join(first, 'to-second.json'), name: 'to-second.json', folder: first, bytes: 3 },
      { path: join(second, 'm.json'), name: 'm.json', folder: second, bytes: 3 },
    ]);
    for (const file of files)
      expect(() => resolveInsideDatasetDirs(file.path, [first, second])).not.toThrow();
    expect(await listDatasetFolderFiles([])).toEqual([]);
  });

  it('answers a folder removed since `serve` started with a coded error naming it', async () => {
    const gone = join(tempDir(), 'gone');
    await expect(listDatasetFolderFiles([gone])).rejects.toMatchObject({
      code: 'IO',
      message: expect.stringContaining(`datasets.folderFiles: ${gone}`),
    });
  });
});
