import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from './atomic-file';

describe('writeFileAtomic', () => {
  it('creates missing folders and replaces the file, leaving no temp file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mw-atomic-'));
    const file = join(dir, 'nested', 'a.json');
    writeFileAtomic(file, 'one');
    writeFileAtomic(file, 'two');
    expect(readFileSync(file, 'utf8')).toBe('two');
    expect(readdirSync(join(dir, 'nested'))).toEqual(['a.json']);
  });

  it('leaves the old content and no temp file when the rename cannot happen', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mw-atomic-'));
    const file = join(dir, 'target');
    // A non-empty folder at the target path: rename(2) over it fails on every platform.
    mkdirSync(file);
    writeFileSync(join(file, 'keep'), 'old');
    expect(() => writeFileAtomic(file, 'new')).toThrow();
    expect(readFileSync(join(file, 'keep'), 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['target']);
  });

  it('is not blocked by a temp name another process with the same pid left behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mw-atomic-'));
    const file = join(dir, 'a.json');
    // Containers reuse pids (every one starts at 1), so "pid + counter" is not unique across
    // processes sharing a folder: occupy every name such a scheme would pick first.
    for (let n = 1; n <= 50; n++) mkdirSync(`${file}.${process.pid}.${n}.tmp`);
    writeFileAtomic(file, 'mine');
    expect(readFileSync(file, 'utf8')).toBe('mine');
  });
});
