import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../src-shared/errors';
import {
  DEFAULT_MAX_DATASET_BYTES,
  MAX_DATASET_BYTES_ENV,
  datasetByteLimit,
  loadDatasetFile,
} from './load';

const miniPath = fileURLToPath(
  new URL('../../../tests/fixtures/locomo/mini.json', import.meta.url),
);

// Broken files are written per test run rather than committed: a deliberately invalid .json in
// the repo would fail the formatter check that runs over every file.
const dir = mkdtempSync(join(tmpdir(), 'workbench-dataset-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string | Uint8Array): string {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

async function rejection(promise: Promise<unknown>): Promise<WorkbenchError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WorkbenchError) return error;
    throw error;
  }
  throw new Error('expected a WorkbenchError');
}

describe('loadDatasetFile', () => {
  it('loads a file and records its size and sha256 for provenance', async () => {
    const result = await loadDatasetFile(miniPath);
    const bytes = readFileSync(miniPath);
    expect(result.info).toEqual({
      format: 'locomo',
      source: miniPath,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    expect(result.samples).toHaveLength(2);
  });

  it('names the line and column of a JSON syntax error', async () => {
    const file = write('broken.json', '[\n  {"sample_id": "a",\n   "qa": [1, 2,]}\n]\n');
    const error = await rejection(loadDatasetFile(file));
    expect(error.code).toBe('DATASET_INVALID');
    expect(error.message).toBe(`${file}: not valid JSON at line 3, column 16: expected a value`);
  });

  it('never quotes the bytes of a file that is not JSON, only where and what was expected', async () => {
    // Each secret sits exactly where parsing fails, so a message that quoted the found character
    // or the text around it (as V8's JSON.parse messages do) would carry a "Q".
    const inputs = [
      'root:$6$QQsecretQQ:19000:0:99999:7:::\n',
      '{"user": QQsecret}',
      '[1, 2 QQsecret]',
      '{"key" QQsecret}',
      '{QQsecret: 1}',
      '[1] QQsecret',
      '"QQsecret\\q"',
    ];
    for (const [n, content] of inputs.entries()) {
      const file = write(`secret-${n}.txt`, content);
      const error = await rejection(loadDatasetFile(file));
      expect(error.code).toBe('DATASET_INVALID');
      const message = error.message.replace(file, '<file>');
      expect(message).toMatch(/^<file>: not valid JSON at line \d+, column \d+: /);
      expect(message, content).not.toMatch(/Q|secret|root/);
    }
  });

  it('refuses a 0-byte file before parsing it', async () => {
    const file = write('empty.json', '');
    expect((await rejection(loadDatasetFile(file))).message).toBe(
      `${file}: the file is empty (0 bytes)`,
    );
  });

  it('refuses a file over the size limit using stat, before reading it', async () => {
    const file = join(dir, 'big.json');
    copyFileSync(miniPath, file);
    const error = await rejection(loadDatasetFile(file, { maxBytes: 1000 }));
    expect(error.code).toBe('DATASET_TOO_LARGE');
    expect(error.message).toMatch(/big\.json: \d+\.\d KiB is larger than the limit of 1000 bytes$/);
  });

  it('accepts a UTF-8 byte order mark', async () => {
    const file = write('bom.json', `\uFEFF${readFileSync(miniPath, 'utf8')}`);
    expect((await loadDatasetFile(file)).samples).toHaveLength(2);
  });

  it('refuses bytes that are not UTF-8', async () => {
    const file = write('latin1.json', new Uint8Array([0x5b, 0x22, 0xe9, 0x22, 0x5d]));
    expect((await rejection(loadDatasetFile(file))).message).toBe(`${file}: not valid UTF-8 text`);
  });

  it('reports a missing file and a directory plainly', async () => {
    const missing = join(dir, 'nope.json');
    const error = await rejection(loadDatasetFile(missing));
    expect([error.code, error.message]).toEqual(['NOT_FOUND', `${missing}: no such file`]);
    const folder = join(dir, 'folder.json');
    mkdirSync(folder);
    // A folder is read by a format laid out in folders (BEAM); an empty one is in none.
    expect((await rejection(loadDatasetFile(folder))).message).toMatch(
      `${folder}: a folder in no layout a dataset format reads`,
    );
  });

  it('passes strict and format through to the loader', async () => {
    const bad = join(dir, 'bad.json');
    copyFileSync(
      fileURLToPath(new URL('../../../tests/fixtures/locomo/bad-samples.json', import.meta.url)),
      bad,
    );
    expect((await loadDatasetFile(bad)).samples).toHaveLength(1);
    expect((await rejection(loadDatasetFile(bad, { strict: true }))).message).toContain(
      'sample "missing-speaker" (#1)',
    );
    expect((await rejection(loadDatasetFile(bad, { format: 'msc' }))).code).toBe('NOT_FOUND');
  });
});

describe('the whole-file limit', () => {
  it('is the default unless the environment moves it; a bad value is refused by name', () => {
    expect(datasetByteLimit({})).toBe(DEFAULT_MAX_DATASET_BYTES);
    expect(datasetByteLimit({ [MAX_DATASET_BYTES_ENV]: ' ' })).toBe(DEFAULT_MAX_DATASET_BYTES);
    expect(datasetByteLimit({ [MAX_DATASET_BYTES_ENV]: '1000' })).toBe(1000);
    for (const bad of ['abc', '0', '-5', '1.5']) {
      expect(() => datasetByteLimit({ [MAX_DATASET_BYTES_ENV]: bad })).toThrow(
        `${MAX_DATASET_BYTES_ENV} must be a positive whole number of bytes (got "${bad}")`,
      );
    }
  });
});
