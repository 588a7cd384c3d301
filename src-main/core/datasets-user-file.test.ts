import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DatasetStore, recordedUserFiles } from './datasets';

/**
 * Issue 38 item 1: an upload is read from a content-addressed copy in the data folder, but a
 * command shown to the user names the file they gave; the name is kept with the copy across a
 * restart, and a record written before it was kept still names the upload, not the copy.
 */
const MINI = join(__dirname, '../../tests/fixtures/locomo/mini.json');
const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mw-user-file-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the file the user gave for a dataset', () => {
  it("keeps an upload's own name beside its hashed copy, after a restart too", async () => {
    const dataDir = tempDir();
    const upload = await new DatasetStore(dataDir).upload(
      'locomo-mine.json',
      readFileSync(MINI, 'utf8'),
    );
    expect(upload.path).toBe(join(dataDir, 'datasets', `${upload.sha256}.json`));
    expect(upload.userFile).toBe('locomo-mine.json');
    const [restored] = await new DatasetStore(dataDir).list();
    expect(restored).toMatchObject({ path: upload.path, userFile: 'locomo-mine.json' });
    expect(recordedUserFiles(dataDir)({ path: upload.path, sha256: upload.sha256 })).toBe(
      'locomo-mine.json',
    );
  });

  it('names an opened file by the path given, and a dataset the record lacks by its own path', async () => {
    const dataDir = tempDir();
    const opened = await new DatasetStore(dataDir).openPath(MINI);
    expect(opened.userFile).toBe(MINI);
    const fileOf = recordedUserFiles(dataDir);
    expect(fileOf({ path: MINI, sha256: opened.sha256 })).toBe(MINI);
    // A run that read the file by another path (the CLI's --data) is named by that path.
    expect(fileOf({ path: '/home/me/mini.json', sha256: opened.sha256 })).toBe(
      '/home/me/mini.json',
    );
    expect(fileOf({ path: '/elsewhere/x.json', sha256: 'f'.repeat(64) })).toBe('/elsewhere/x.json');
    expect(recordedUserFiles(tempDir())({ path: MINI, sha256: null })).toBe(MINI);
  });

  it('reads a record written before the user file was kept: an upload by its name', async () => {
    const dataDir = tempDir();
    const upload = await new DatasetStore(dataDir).upload('old.json', readFileSync(MINI, 'utf8'));
    const { userFile: _kept, ...old } = upload;
    writeFileSync(
      join(dataDir, 'datasets.json'),
      JSON.stringify([
        { path: old.path, name: old.name, sha256: old.sha256, openedAt: old.openedAt },
      ]),
    );
    expect(recordedUserFiles(dataDir)({ path: upload.path, sha256: upload.sha256 })).toBe(
      'old.json',
    );
    const [restored] = await new DatasetStore(dataDir).list();
    expect(restored?.userFile).toBe('old.json');
  });
});
