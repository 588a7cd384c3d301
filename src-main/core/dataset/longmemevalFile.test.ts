import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Sample } from '../../../src-shared/dataset';
import { WorkbenchError } from '../../../src-shared/errors';
import { loadDatasetFile } from './load';
import { LongMemEvalFileReader, indexLongMemEvalFile, isLongMemEvalFile } from './longmemevalFile';

const FIXTURE = fileURLToPath(
  new URL('../../../tests/fixtures/longmemeval/longmemeval_s.json', import.meta.url),
);
const LOCOMO = fileURLToPath(new URL('../../../tests/fixtures/locomo/mini.json', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'workbench-lme-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The fixture with one broken question and a repeated one, written compactly. */
function flawedCopy(name: string): string {
  const questions = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Array<Record<string, unknown>>;
  const [first, second] = questions as [Record<string, unknown>, Record<string, unknown>];
  const file = join(dir, name);
  writeFileSync(
    file,
    JSON.stringify([...questions, { ...second, question_id: 'broken', answer: null }, first]),
  );
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

describe('a LongMemEval file read as a stream', () => {
  it('is recognised by its first question', async () => {
    expect(await isLongMemEvalFile(FIXTURE)).toBe(true);
    expect(await isLongMemEvalFile(LOCOMO)).toBe(false);
    const notArray = join(dir, 'object.json');
    writeFileSync(notArray, '{"question_id": "x"}');
    expect(await isLongMemEvalFile(notArray)).toBe(false);
    // A first element past the peek's bound is not read to its end (a huge file of one element).
    const firstQuestionBytes = JSON.stringify(
      (JSON.parse(readFileSync(FIXTURE, 'utf8')) as unknown[])[0],
    ).length;
    const compact = join(dir, 'compact.json');
    writeFileSync(compact, JSON.stringify(JSON.parse(readFileSync(FIXTURE, 'utf8'))));
    expect(await isLongMemEvalFile(compact, firstQuestionBytes + 64)).toBe(true);
    expect(await isLongMemEvalFile(compact, Math.floor(firstQuestionBytes / 2))).toBe(false);
  });

  it('indexes like the whole-file loader: same sha256, bytes, valid ids and problems', async () => {
    const file = flawedCopy('flawed.json');
    const whole = await loadDatasetFile(file);
    const seen: Sample[] = [];
    const index = await indexLongMemEvalFile(file, (sample) => seen.push(sample));
    expect(index.info).toEqual(whole.info);
    expect(index.problems).toEqual(whole.problems);
    expect(index.problems.filter((p) => p.severity === 'error').map((p) => p.sampleIndex)).toEqual([
      6, 7,
    ]);
    expect(index.sampleIds).toEqual(whole.samples.map((s) => s.sampleId));
    expect(seen).toEqual(whole.samples);
  });

  it('hands out the samples the whole-file loader gives, reading forward, concurrent calls in order', async () => {
    const whole = await loadDatasetFile(FIXTURE);
    const index = await indexLongMemEvalFile(FIXTURE, () => undefined);
    const reader = new LongMemEvalFileReader(FIXTURE, index);
    const wanted = [index.sampleIds[1], index.sampleIds[3], index.sampleIds[5]] as string[];
    const taken = await Promise.all(wanted.map((id) => reader.take(id)));
    await reader.close();
    expect(taken).toEqual(wanted.map((id) => whole.samples.find((s) => s.sampleId === id)));
  });

  it('refuses a file changed after it was indexed', async () => {
    const file = join(dir, 'changing.json');
    writeFileSync(file, readFileSync(FIXTURE));
    const index = await indexLongMemEvalFile(file, () => undefined);
    writeFileSync(file, `${readFileSync(FIXTURE, 'utf8')}\n`);
    const reader = new LongMemEvalFileReader(file, index);
    const error = await rejection(reader.take(index.sampleIds[0] as string));
    expect(error.code).toBe('DATASET_INVALID');
    expect(error.message).toContain(`${file}: the file changed since it was indexed`);
    await reader.close();

    // Same size and mtime but a question gone: the reader reaches the end without it.
    const questions = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Array<Record<string, unknown>>;
    const renamed = JSON.stringify(
      questions.map((q, i) => (i === 2 ? { ...q, question_id: 'zz' } : q)),
    );
    const stamp = 1_700_000_000; // whole seconds: utimes keeps them exactly
    writeFileSync(file, renamed);
    utimesSync(file, stamp, stamp);
    const again = await indexLongMemEvalFile(file, () => undefined);
    writeFileSync(file, renamed.replace('"zz"', '"yy"'));
    utimesSync(file, stamp, stamp);
    const second = new LongMemEvalFileReader(file, again);
    expect((await rejection(second.take('zz'))).message).toContain(
      'question "zz" is not where it was',
    );
    await second.close();
  });
});
