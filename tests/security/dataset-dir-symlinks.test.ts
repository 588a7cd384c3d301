import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createService } from '../../src-main/core/service';
import { resolveInsideFolders } from '../../src-main/core/trust';

/**
 * Issue 39 item 6: under a symlink that leads out of a `--dataset-dir`, FORBIDDEN (file exists)
 * vs NOT_FOUND (file missing) told whether a file exists; and after `serve` restarted with a
 * narrower `--dataset-dir`, datasets remembered from before were still served. Real folders,
 * real symlinks, the real service.
 */

const MINI = fileURLToPath(new URL('../fixtures/locomo/mini.json', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'workbench-sec-symlinks-'));
const allowed = join(root, 'allowed');
const outside = join(root, 'outside');
mkdirSync(allowed);
mkdirSync(outside);
copyFileSync(MINI, join(outside, 'secret.json'));
symlinkSync(outside, join(allowed, 'out'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function codeOf(call: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call();
  } catch (error) {
    return error as { code: string; message: string };
  }
  return { code: 'none', message: '' };
}

describe('dataset folders and symlinks (issue 39 item 6)', () => {
  it('a path under a symlink out of the folder is refused alike whether its file exists or not', async () => {
    const existing = join(allowed, 'out', 'secret.json');
    const missing = join(allowed, 'out', 'missing.json');
    const missingDeeper = join(allowed, 'out', 'no-such-dir', 'missing.json');
    expect(resolveInsideFolders(existing, [allowed])).toBeNull();
    expect(resolveInsideFolders(missing, [allowed])).toBeNull();
    expect(resolveInsideFolders(missingDeeper, [allowed])).toBeNull();
    // A missing file really inside is still inside (the loader then answers NOT_FOUND).
    expect(resolveInsideFolders(join(allowed, 'new.json'), [allowed])).not.toBeNull();

    const service = createService({
      dataDir: join(root, 'data-1'),
      transport: 'http',
      datasetDirs: [allowed],
      readWorkers: 0,
    });
    try {
      const open = (path: string) => () => service.handlers['datasets.open']({ path });
      const a = await codeOf(open(existing));
      const b = await codeOf(open(missing));
      expect(a.code).toBe('FORBIDDEN');
      expect(b.code).toBe('FORBIDDEN');
      expect(a.message.replace('secret.json', 'X')).toBe(b.message.replace('missing.json', 'X'));
    } finally {
      await service.close();
    }
  });

  it('after a restart with a narrower --dataset-dir, a dataset remembered from outside it is not served', async () => {
    const dataDir = join(root, 'data-2');
    const wide = createService({
      dataDir,
      transport: 'http',
      datasetDirs: [allowed, outside],
      readWorkers: 0,
    });
    let datasetId: string;
    try {
      ({ datasetId } = await wide.handlers['datasets.open']({
        path: join(outside, 'secret.json'),
      }));
    } finally {
      await wide.close();
    }
    const narrow = createService({
      dataDir,
      transport: 'http',
      datasetDirs: [allowed],
      readWorkers: 0,
    });
    try {
      expect((await narrow.handlers['datasets.list']({})).map((d) => d.datasetId)).not.toContain(
        datasetId,
      );
      const read = await codeOf(() =>
        narrow.handlers['datasets.sample']({ datasetId, sampleId: 'mini-1' }),
      );
      expect(read.code).toBe('NOT_FOUND');
    } finally {
      await narrow.close();
    }
  });
});
