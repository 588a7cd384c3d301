import { createHash } from 'node:crypto';
import { promises as fsp, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../src-shared/errors';
import { convertWinkJson, type ConvertProgress } from './winkConvert';
import { FIXTURE_DIM, FIXTURE_WORDS, fixtureVector, writeWinkFixture } from './winkFixture';
import { CACHE_MAGIC, parseCache } from './winkFormat';
import {
  cacheFileFor,
  clearWinkVectorsCache,
  loadWinkVectors,
  loadWordVectorImage,
  shareWordVectorsFrom,
} from './winkVectors';

let dir: string;
let source: string;
let cacheDir: string;

beforeEach(async () => {
  clearWinkVectorsCache();
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'mw-wink-test-'));
  source = await writeWinkFixture(path.join(dir, 'src'));
  cacheDir = path.join(dir, 'cache');
});

afterEach(async () => {
  shareWordVectorsFrom(null);
  clearWinkVectorsCache();
  await fsp.rm(dir, { recursive: true, force: true });
});

function recorder(): {
  events: ConvertProgress[];
  warnings: string[];
  onProgress: (p: ConvertProgress) => void;
  onWarning: (m: string) => void;
} {
  const events: ConvertProgress[] = [];
  const warnings: string[] = [];
  return {
    events,
    warnings,
    onProgress: (p) => events.push(p),
    onWarning: (m) => warnings.push(m),
  };
}

const phases = (events: ConvertProgress[]): string[] => [...new Set(events.map((e) => e.phase))];

describe('convertWinkJson', () => {
  it('places rows by the wordIndex column, decodes escapes and hashes the whole file', async () => {
    const out = await convertWinkJson(source);
    expect(out.dim).toBe(FIXTURE_DIM);
    expect(out.count).toBe(FIXTURE_WORDS.length);
    expect(out.words).toEqual(FIXTURE_WORDS.map(([w]) => w));
    expect(out.words).toContain('"quoted\\');
    const dogRow = out.words.indexOf('dog');
    expect([...out.matrix.subarray(dogRow * FIXTURE_DIM, (dogRow + 1) * FIXTURE_DIM)]).toEqual([
      ...Float32Array.from(fixtureVector(dogRow)),
    ]);
    expect(out.sha256).toBe(createHash('sha256').update(readFileSync(source)).digest('hex'));
    expect(out.meta).toMatchObject({
      precision: 8,
      size: FIXTURE_WORDS.length,
      dimensions: FIXTURE_DIM,
    });
    expect(out.warnings).toEqual([]);
  });

  it('gives the same result whatever the chunk size (tokens straddling chunk boundaries)', async () => {
    const whole = await convertWinkJson(source);
    for (const chunkBytes of [1024, 1500, 4099]) {
      const chunked = await convertWinkJson(source, { chunkBytes });
      expect(chunked.words).toEqual(whole.words);
      expect(chunked.matrix).toEqual(whole.matrix);
      expect(chunked.sha256).toBe(whole.sha256);
    }
  });

  it('reports conversion progress up to 1', async () => {
    const events: ConvertProgress[] = [];
    await convertWinkJson(source, { chunkBytes: 1024, onProgress: (p) => events.push(p) });
    expect(events.length).toBeGreaterThan(2);
    expect(events.every((e) => e.phase === 'convert')).toBe(true);
    expect(events.at(-1)?.fraction).toBe(1);
  });

  it('names the byte offset of a syntax error', async () => {
    const bad = path.join(dir, 'bad.json');
    await fsp.writeFile(bad, '{"dimensions":2,"size":1,"vectors":{"a":[1,2,oops]}}');
    await expect(convertWinkJson(bad)).rejects.toThrow(/wink source: malformed number at byte 45/);
  });

  it('refuses a vector of the wrong length', async () => {
    const bad = path.join(dir, 'bad.json');
    await fsp.writeFile(bad, '{"dimensions":3,"size":1,"vectors":{"ab":[1,2]}}');
    await expect(convertWinkJson(bad)).rejects.toThrow('vector for "ab" has 2 numbers, expected 3');
  });
});

describe('loadWinkVectors', () => {
  it('converts once, then reads the cache without converting', async () => {
    const first = recorder();
    const a = await loadWinkVectors({ cacheDir, sourcePath: source, ...first });
    expect(phases(first.events)).toEqual(['convert', 'write']);
    expect(first.warnings).toEqual([]);
    expect(a.lookup('dog')).toBe(FIXTURE_WORDS.findIndex(([w]) => w === 'dog'));

    clearWinkVectorsCache(); // a new process, as far as the loader knows
    const second = recorder();
    const b = await loadWinkVectors({ cacheDir, sourcePath: source, ...second });
    expect(phases(second.events)).toEqual(['load']);
    expect(b.matrix).toEqual(a.matrix);
    expect(b.source).toEqual(a.source);
    expect(b.source.sha256).toBe(createHash('sha256').update(readFileSync(source)).digest('hex'));
    for (const [word] of FIXTURE_WORDS) expect(b.word(b.lookup(word))).toBe(word);
    expect(b.lookup('zebra')).toBe(-1);
    // Written atomically: no temp files left beside the cache.
    expect(await fsp.readdir(cacheDir)).toEqual([path.basename(cacheFileFor(cacheDir, source))]);
  });

  it('shares one load per process', async () => {
    const p1 = loadWinkVectors({ cacheDir, sourcePath: source });
    const p2 = loadWinkVectors({ cacheDir, sourcePath: source });
    expect(p1).toBe(p2);
    expect(await p1).toBe(await p2);
  });

  it('looks words up inside a larger string by range', async () => {
    const v = await loadWinkVectors({ cacheDir, sourcePath: source });
    const text = 'my café is new';
    expect(v.lookup(text, 3, 7)).toBe(v.lookup('café'));
    expect(v.lookup(text, 3, 6)).toBe(-1);
  });

  const corruptions: Array<[string, (buf: Buffer) => Buffer, RegExp]> = [
    ['bad magic', (b) => (b.write('NOTMAGIC', 0, 'latin1'), b), /bad magic/],
    ['another format version', (b) => (b.writeUInt32LE(99, 8), b), /format version 99/],
    ['a truncated file', (b) => b.subarray(0, b.length - 10), /size \d+ bytes, expected \d+/],
    [
      'a flipped matrix byte',
      (b) => (b.writeUInt8(b.readUInt8(b.length - 200) ^ 0xff, b.length - 200), b),
      /checksum/,
    ],
  ];
  it.each(corruptions)('rebuilds a cache with %s, with a warning', async (_, corrupt, reason) => {
    const original = await loadWinkVectors({ cacheDir, sourcePath: source });
    const file = cacheFileFor(cacheDir, source);
    await fsp.writeFile(file, corrupt(await fsp.readFile(file)));
    clearWinkVectorsCache();

    const r = recorder();
    const rebuilt = await loadWinkVectors({ cacheDir, sourcePath: source, ...r });
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(reason);
    expect(r.warnings[0]).toContain('rebuilding');
    expect(phases(r.events)).toContain('convert');
    expect(rebuilt.matrix).toEqual(original.matrix);
    expect(() => parseCache(readFileSync(file))).not.toThrow();
  });

  it('rebuilds when the source changed since the cache was built', async () => {
    await loadWinkVectors({ cacheDir, sourcePath: source });
    clearWinkVectorsCache();
    await fsp.appendFile(source, '\n');
    const r = recorder();
    await loadWinkVectors({ cacheDir, sourcePath: source, ...r });
    expect(r.warnings[0]).toMatch(
      /stale or corrupt \(built from fake-wink@unversioned \(\d+ bytes\), source is/,
    );
    expect(phases(r.events)).toContain('convert');
  });

  it('uses a valid cache when the source is gone (an install that ships only the cache)', async () => {
    const a = await loadWinkVectors({ cacheDir, sourcePath: source });
    clearWinkVectorsCache();
    await fsp.rm(source);
    const b = await loadWinkVectors({ cacheDir, sourcePath: source });
    expect(b.matrix).toEqual(a.matrix);
  });

  it('fails with NOT_FOUND when there is neither cache nor source, and can retry later', async () => {
    const missing = path.join(dir, 'nope.json');
    const error = await loadWinkVectors({ cacheDir, sourcePath: missing }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkbenchError);
    expect((error as WorkbenchError).code).toBe('NOT_FOUND');
    expect((error as WorkbenchError).message).toBe(
      `wink vectors: no cache at ${cacheFileFor(cacheDir, missing)} and no source at ${missing}`,
    );
    await fsp.copyFile(source, missing);
    const loaded = await loadWinkVectors({ cacheDir, sourcePath: missing });
    expect(loaded.dim).toBe(FIXTURE_DIM);
    expect(loaded.count).toBe(FIXTURE_WORDS.length);
  });

  it('writes the documented header', async () => {
    await loadWinkVectors({ cacheDir, sourcePath: source });
    const buf = readFileSync(cacheFileFor(cacheDir, source));
    expect(buf.toString('latin1', 0, 8)).toBe(CACHE_MAGIC);
    const { header } = parseCache(buf);
    expect(header).toMatchObject({
      dim: FIXTURE_DIM,
      count: FIXTURE_WORDS.length,
      order: 'frequency-rank',
      source: { package: 'fake-wink', version: 'unversioned' },
    });
    expect(header.matrix.offset % 64).toBe(0);
  });

  // A fixed, whole-second time: utimes sets it exactly, so a rewrite can keep the stamped version.
  const longAgo = new Date('2020-01-01T00:00:00Z');
  const flipLastMatrixByte = (b: Buffer): Buffer => (
    b.writeUInt8(b.readUInt8(b.length - 200) ^ 0xff, b.length - 200),
    b
  );

  it('checks the crc32 once per file version: a version it stamped is read without the check', async () => {
    const original = await loadWinkVectors({ cacheDir, sourcePath: source });
    const file = cacheFileFor(cacheDir, source);
    await fsp.utimes(file, longAgo, longAgo);
    clearWinkVectorsCache();
    await loadWinkVectors({ cacheDir, sourcePath: source }); // checks and stamps this version
    expect(JSON.parse(readFileSync(`${file}.checked`, 'utf8'))).toMatchObject({ version: 1 });

    // The same version (size, inode, time) is trusted: a flip that kept all three goes unread.
    await fsp.writeFile(file, flipLastMatrixByte(await fsp.readFile(file)));
    await fsp.utimes(file, longAgo, longAgo);
    clearWinkVectorsCache();
    const r = recorder();
    const trusted = await loadWinkVectors({ cacheDir, sourcePath: source, ...r });
    expect(r.warnings).toEqual([]);
    expect(trusted.matrix).not.toEqual(original.matrix);

    // Any other version is checked again.
    await fsp.utimes(file, new Date('2021-01-01T00:00:00Z'), new Date('2021-01-01T00:00:00Z'));
    clearWinkVectorsCache();
    const again = recorder();
    const rebuilt = await loadWinkVectors({ cacheDir, sourcePath: source, ...again });
    expect(again.warnings[0]).toMatch(/checksum mismatch/);
    expect(rebuilt.matrix).toEqual(original.matrix);
  });

  it('does not stamp a file written moments ago (its time may not change on the next write)', async () => {
    await loadWinkVectors({ cacheDir, sourcePath: source });
    clearWinkVectorsCache();
    await loadWinkVectors({ cacheDir, sourcePath: source });
    await expect(fsp.stat(`${cacheFileFor(cacheDir, source)}.checked`)).rejects.toThrow(/ENOENT/);
  });

  it('holds the file in shared memory, and the matrix views it without a copy', async () => {
    const image = await loadWordVectorImage({ cacheDir, sourcePath: source });
    expect(image.buffer).toBeInstanceOf(SharedArrayBuffer);
    const vectors = await loadWinkVectors({ cacheDir, sourcePath: source });
    expect(vectors.matrix.buffer).toBe(image.buffer);
  });

  it('takes the image its process shares instead of reading the file', async () => {
    const image = await loadWordVectorImage({ cacheDir, sourcePath: source });
    const original = await loadWinkVectors({ cacheDir, sourcePath: source });
    clearWinkVectorsCache();
    await fsp.rm(cacheDir, { recursive: true });
    await fsp.rm(source);
    const asked: unknown[] = [];
    shareWordVectorsFrom((request) => {
      asked.push(request);
      return Promise.resolve(image);
    });
    const shared = await loadWinkVectors({ cacheDir, sourcePath: source });
    expect(asked).toEqual([{ cacheDir, sourcePath: source }]);
    expect(shared.matrix.buffer).toBe(image.buffer);
    const word = (FIXTURE_WORDS[1] as readonly [string, string])[0];
    expect(shared.lookup(word)).toBe(original.lookup(word));
    expect(shared.lookup(word)).toBe(1);
  });
});
