import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../src-shared/errors';
import type { DatasetLoader } from './registry';
import { DatasetLoaderRegistry } from './registry';
import { createDefaultRegistry, loadDatasetValue } from './load';
import { locomoLoader } from './locomo';

const fixture = (name: string): unknown =>
  JSON.parse(
    readFileSync(
      fileURLToPath(new URL(`../../../tests/fixtures/locomo/${name}`, import.meta.url)),
      'utf8',
    ),
  ) as unknown;

function thrown(fn: () => unknown): WorkbenchError {
  try {
    fn();
  } catch (error) {
    if (error instanceof WorkbenchError) return error;
    throw error;
  }
  throw new Error('expected a WorkbenchError');
}

describe('LoCoMo loader on a well-formed file', () => {
  const result = loadDatasetValue(fixture('mini.json'), 'mini.json');
  const [mini1, mini2] = result.samples;
  if (!mini1 || !mini2) throw new Error('fixture did not load');

  it('loads every sample with its speakers', () => {
    expect(result.info.format).toBe('locomo');
    expect(result.samples.map((s) => s.sampleId)).toEqual(['mini-1', 'mini-2']);
    expect(mini1.speakers).toEqual(['Ann', 'Bob']);
  });

  it('orders sessions numerically whatever the key order in the file', () => {
    // The file lists session_10 before session_1 and session_2; a string sort would give 1, 10, 2.
    expect(mini1.sessions.map((s) => s.index)).toEqual([1, 2, 10]);
    expect(mini1.sessions[2]?.turns.map((t) => [t.diaId, t.sessionIndex, t.turnIndex])).toEqual([
      ['D10:1', 10, 0],
      ['D10:2', 10, 1],
      ['D10:3', 10, 2],
    ]);
  });

  it('parses session dates and keeps unparseable ones as text', () => {
    expect(mini1.sessions.map((s) => [s.dateTimeText, s.dateTime])).toEqual([
      ['1:56 pm on 8 May, 2023', '2023-05-08T13:56:00'],
      ['12:05 am on 29 February, 2024', '2024-02-29T00:05:00'],
      ['sometime last week', null],
    ]);
    const warnings = result.problems.filter((p) => p.severity === 'warning');
    expect(warnings.map((w) => w.message)).toEqual([
      'mini.json: sample "mini-1" (#0): conversation.session_10_date_time: cannot parse session date "sometime last week" (expected like "1:56 pm on 8 May, 2023")',
    ]);
    // session_11_date_time has no session_11 list (like conv-26 in the real file): not a problem.
    expect(result.problems.some((p) => p.message.includes('session_11'))).toBe(false);
  });

  it('inlines image captions and keeps the raw text and image fields', () => {
    const dog = mini1.sessions[0]?.turns[1];
    expect(dog).toEqual({
      diaId: 'D1:2',
      speaker: 'Bob',
      text: '[Image: a photo of a dog on a beach] Look at my dog!',
      rawText: 'Look at my dog!',
      imageUrls: ['https://example.invalid/dog.jpg'],
      imageQuery: 'dog beach',
      blipCaption: 'a photo of a dog on a beach',
      sessionIndex: 1,
      turnIndex: 1,
    });
    const cake = mini1.sessions[1]?.turns[0];
    expect(cake?.text).toBe('[Image: a photo of a cake] Caption only, no url.');
    expect(cake?.imageUrls).toBeUndefined();
    const plain = mini1.sessions[0]?.turns[0];
    expect(plain).toEqual({
      diaId: 'D1:1',
      speaker: 'Ann',
      text: 'I moved to Paris.',
      rawText: 'I moved to Paris.',
      sessionIndex: 1,
      turnIndex: 0,
    });
  });

  it('stores answers as text and keeps adversarial answers apart', () => {
    const [q0, q1, , , q4, , q6] = mini1.qa;
    expect(q0).toMatchObject({ index: 0, answer: 'Paris', adversarialAnswer: null, category: 4 });
    // A numeric answer in the file (2022) must compare as the string "2022".
    expect(q1?.answer).toBe('2022');
    expect(q4).toMatchObject({ answer: 'No', adversarialAnswer: 'Yes', category: 5 });
    expect(q6).toMatchObject({ index: 6, answer: null, adversarialAnswer: 'Tom', category: 5 });
  });

  it('normalises evidence per question and reports what it changed', () => {
    expect(mini1.qa.map((q) => q.evidence)).toEqual([
      ['D1:1'],
      ['D2:2', 'D1:3'],
      ['D10:3'],
      ['D10:1'],
      [],
      ['D1:1'],
      [],
    ]);
    expect(mini1.qa.map((q) => q.evidenceProblems.map((p) => p.problem))).toEqual([
      [],
      ['split', 'split'],
      ['zero-padded'],
      ['misplaced-colon'],
      ['malformed'],
      ['unresolved', 'duplicate'],
      [],
    ]);
    expect(mini1.qa[5]?.evidenceRaw).toEqual(['D9:9', 'D1:1', 'D1:1']);
  });

  it('keeps the auxiliary material as-is', () => {
    expect(mini1.aux.eventSummary).toEqual({ events_session_1: { Ann: ['moved to Paris'] } });
    expect(mini1.aux.sessionSummary).toEqual({ session_1_summary: 'Ann moved.' });
    expect(mini2.aux).toEqual({ eventSummary: null, observation: null, sessionSummary: null });
  });
});

describe('LoCoMo loader on malformed samples', () => {
  const source = 'bad-samples.json';
  const result = loadDatasetValue(fixture(source), source);

  it('skips bad samples but loads the good one', () => {
    expect(result.samples.map((s) => s.sampleId)).toEqual(['good']);
  });

  it('names the file, the sample and the JSON path of every problem', () => {
    expect(result.problems.map((p) => p.message)).toEqual([
      'bad-samples.json: sample "missing-speaker" (#1): conversation.speaker_b: missing required field (expected string)',
      'bad-samples.json: sample "duplicate-dia" (#2): conversation.session_1[1].dia_id: duplicate dia_id "D1:1" (first at conversation.session_1[0])',
      'bad-samples.json: sample "empty-session" (#3): conversation.session_2: session is empty (no turns)',
      'bad-samples.json: sample "mistyped" (#4): qa[0].category: Too big: expected number to be <=5',
      'bad-samples.json: sample "mistyped" (#4): conversation.session_1[0].text: Invalid input: expected string, received number',
      'bad-samples.json: sample #5: sample_id: missing required field (expected string)',
      'bad-samples.json: sample "no-answer" (#6): qa[0].answer: category 4 question has no answer',
      'bad-samples.json: sample "good" (#7): sample_id: duplicate sample_id (also sample #0)',
      'bad-samples.json: sample #8: a sample must be an object, found a string',
    ]);
    expect(
      result.problems.every((p) => p.severity === 'error' && p.code === 'DATASET_INVALID'),
    ).toBe(true);
    expect(result.problems[1]).toMatchObject({
      path: [2, 'conversation', 'session_1', 1, 'dia_id'],
      sampleIndex: 2,
      sampleId: 'duplicate-dia',
    });
    expect(result.problems[5]).toMatchObject({ sampleIndex: 5, sampleId: null });
  });

  it('throws the first problem instead when strict', () => {
    const error = thrown(() => loadDatasetValue(fixture(source), source, { strict: true }));
    expect(error.code).toBe('DATASET_INVALID');
    expect(error.message).toBe(
      'bad-samples.json: sample "missing-speaker" (#1): conversation.speaker_b: missing required field (expected string) (and 8 more problems)',
    );
    expect(error.path).toEqual([1, 'conversation', 'speaker_b']);
  });

  it('throws when no sample at all can be loaded', () => {
    const error = thrown(() => loadDatasetValue([{ sample_id: 'x' }], 'one.json'));
    expect(error.message).toMatch(
      /^one\.json: sample "x" \(#0\): conversation: missing required field \(expected object\) \(and 1 more problems\) \(no sample could be loaded\)$/,
    );
  });

  it('rejects a top level that is not an array, or an empty one', () => {
    expect(
      thrown(() => loadDatasetValue(fixture('not-array.json'), 'not-array.json')).message,
    ).toBe(
      'not-array.json: not a LoCoMo file: the top level must be a JSON array of samples, found an object',
    );
    expect(thrown(() => loadDatasetValue([], 'empty.json')).message).toBe(
      'empty.json: the file holds no samples ([])',
    );
  });

  it('rejects a conversation without sessions and two keys for one session number', () => {
    const base = { sample_id: 's', qa: [] };
    const noSessions = loadDatasetValue(
      [fixture('mini.json'), { ...base, conversation: { speaker_a: 'A', speaker_b: 'B' } }].flat(),
      'x.json',
    );
    expect(noSessions.problems.filter((p) => p.severity === 'error').map((p) => p.message)).toEqual(
      [
        'x.json: sample "s" (#2): conversation: conversation has no sessions (no session_<n> lists)',
      ],
    );
    const turn = { speaker: 'A', dia_id: 'D1:1', text: 't' };
    const twice = loadDatasetValue(
      [
        fixture('mini.json'),
        {
          ...base,
          conversation: { speaker_a: 'A', speaker_b: 'B', session_1: [turn], session_01: [turn] },
        },
      ].flat(),
      'x.json',
    );
    expect(twice.problems.find((p) => p.severity === 'error')?.message).toBe(
      'x.json: sample "s" (#2): conversation.session_01: session number 1 also used by "session_1"',
    );
  });
});

describe('dataset loader registry', () => {
  const fake: DatasetLoader = {
    name: 'fake',
    description: 'test format: an object with a "fake" key',
    detect: (value) => typeof value === 'object' && value !== null && 'fake' in value,
    load: () => ({ samples: [], problems: [] }),
  };

  it('detects LoCoMo by content and falls back to it for unrecognised input', () => {
    const registry = createDefaultRegistry();
    expect(registry.detect(fixture('mini.json'))?.name).toBe('locomo');
    expect(registry.detect({ foo: 1 })).toBeNull();
    expect(registry.resolve({ foo: 1 }).name).toBe('locomo');
  });

  it('routes by explicit name or by detection once another loader is registered', () => {
    const registry = createDefaultRegistry().register(fake);
    // The built-ins keep their order and the new loader comes last (which built-ins: not this test's business).
    const names = registry.list().map((l) => l.name);
    expect(names.slice(0, names.indexOf('fake'))).toEqual(
      createDefaultRegistry()
        .list()
        .map((l) => l.name),
    );
    expect(names.at(-1)).toBe('fake');
    expect(registry.resolve({ fake: true }).name).toBe('fake');
    expect(registry.resolve(fixture('mini.json')).name).toBe('locomo');
    expect(registry.resolve(fixture('mini.json'), 'fake').name).toBe('fake');
  });

  it('refuses unknown names and duplicate registrations', () => {
    const registry = new DatasetLoaderRegistry().register(locomoLoader);
    expect(thrown(() => registry.get('msc')).message).toBe(
      'unknown dataset format "msc" (known: locomo)',
    );
    expect(thrown(() => registry.register(locomoLoader)).code).toBe('CONFLICT');
    expect(thrown(() => new DatasetLoaderRegistry().resolve([])).code).toBe('INTERNAL');
  });
});
