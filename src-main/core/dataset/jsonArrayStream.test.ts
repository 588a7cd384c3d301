import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonArrayElements } from './jsonArrayStream';

const dir = mkdtempSync(join(tmpdir(), 'workbench-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const LME = fileURLToPath(
  new URL('../../../tests/fixtures/longmemeval/longmemeval_s.json', import.meta.url),
);

async function all(file: string, chunk: number): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const { value } of jsonArrayElements(file, chunk)) out.push(value);
  return out;
}

describe('jsonArrayElements', () => {
  it('yields what JSON.parse gives, whatever the chunk size', async () => {
    const expected = JSON.parse(readFileSync(LME, 'utf8')) as unknown[];
    for (const chunk of [1, 7, 4096, 1 << 20]) expect(await all(LME, chunk)).toEqual(expected);
  });

  it('keeps brackets and quotes inside strings and multibyte characters split across chunks', async () => {
    const value = [{ a: 'x ] } { [ "q" \\ ’ 😀' }, [1, { b: [] }], { c: '' }];
    const file = join(dir, 'tricky.json');
    writeFileSync(file, `\uFEFF ${JSON.stringify(value, null, 1)}\n`);
    for (const chunk of [1, 2, 3, 5]) expect(await all(file, chunk)).toEqual(value);
  });

  it('names a cut-off file, a non-array and a bad element', async () => {
    const cut = join(dir, 'cut.json');
    writeFileSync(cut, '[{"a": 1}, {"b": ');
    await expect(all(cut, 4)).rejects.toThrow(`${cut}: the array is cut off after element 1`);
    const obj = join(dir, 'obj.json');
    writeFileSync(obj, '{"a": 1}');
    await expect(all(obj, 4)).rejects.toThrow(`${obj}: the top level must be a JSON array`);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '[{"a": 1}, {"b": tru}]');
    await expect(all(bad, 4)).rejects.toThrow(`${bad}: element #1 is not valid JSON`);
  });
});
