import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCOMO_PROFILE } from '../../../src-shared/benchmarks';
import { afterAll, describe, expect, it } from 'vitest';
import { errataScores, type ResolvedErratum } from '../../../src-shared/errata';
import { answerScores, type AnswerRecord } from '../../../src-shared/experiment';
import { WorkbenchError } from '../../../src-shared/errors';
import { loadDatasetFile } from './load';
import { errataRecord, readErrataFile } from './errata';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const real = join(repo, '../shared/datasets/locomo10.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-errata-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

function thrown(fn: () => unknown): WorkbenchError {
  try {
    fn();
  } catch (error) {
    if (error instanceof WorkbenchError) return error;
    throw error;
  }
  throw new Error('expected a WorkbenchError');
}

describe('errata files', () => {
  it('resolves entries by question index and by question text, and hashes the file', async () => {
    const { samples } = await loadDatasetFile(mini);
    const file = write(
      'ok.yaml',
      [
        'entries:',
        '  - { sample: mini-1, question: 0, corrected: Lyon, source: workbench review }',
        '  - sample: mini-1',
        '    question: "When did Ann buy it?"',
        '    corrected: "2021"',
        '    source: workbench review',
      ].join('\n'),
    );
    const loaded = readErrataFile(file);
    expect(loaded.sha256).toMatch(/^[0-9a-f]{64}$/);
    const record = errataRecord(loaded, samples);
    expect(record.entries.map((e) => [e.questionIndex, e.category, e.originalGold])).toEqual([
      [0, 4, 'Paris'],
      [1, 2, '2022'],
    ]);
  });

  it('refuses a bad entry with its path: a missing field, an unknown question, a duplicate', async () => {
    const { samples } = await loadDatasetFile(mini);
    const noSource = write(
      'a.json',
      '{"entries":[{"sample":"mini-1","question":0,"corrected":"x"}]}',
    );
    const e1 = thrown(() => readErrataFile(noSource));
    expect(e1.code).toBe('INVALID_INPUT');
    expect(e1.message).toContain('entries[0].source');

    const unknown = readErrataFile(
      write('b.yaml', 'entries:\n  - { sample: mini-1, question: 9, corrected: x, source: s }\n'),
    );
    const e2 = thrown(() => errataRecord(unknown, samples));
    expect(e2.message).toBe(
      `errata file ${unknown.file}: entries[0].question: sample mini-1 has no question 9 (it has 7, from 0)`,
    );
    expect(e2.path).toEqual(['entries', 0, 'question']);

    const noSample = readErrataFile(
      write('c.yaml', 'entries:\n  - { sample: conv-99, question: 0, corrected: x, source: s }\n'),
    );
    expect(thrown(() => errataRecord(noSample, samples)).message).toContain(
      'entries[0].sample: no sample "conv-99" in the dataset',
    );

    const twice = readErrataFile(
      write(
        'd.yaml',
        'entries:\n  - { sample: mini-1, question: 0, corrected: x, source: s }\n  - { sample: mini-1, question: "Where did Ann move?", corrected: y, source: s }\n',
      ),
    );
    expect(thrown(() => errataRecord(twice, samples)).message).toContain(
      'entries[1].question: question 0 of mini-1 is listed twice',
    );

    expect(thrown(() => readErrataFile(write('e.yaml', 'entries: [\n'))).message).toMatch(
      /^errata file .*e\.yaml:\d+:\d+: not valid YAML/,
    );
  });

  describe.runIf(existsSync(real))('the shipped example on the real locomo10.json', () => {
    it('names questions whose gold contradicts the evidence turn it cites', async () => {
      const { samples } = await loadDatasetFile(real);
      const record = errataRecord(
        readErrataFile(join(repo, 'examples/errata/locomo10-errata.yaml')),
        samples,
      );
      const turnText = (sampleId: string, dia: string): string =>
        samples
          .find((s) => s.sampleId === sampleId)!
          .sessions.flatMap((s) => s.turns)
          .find((t) => t.diaId === dia)!.text;
      expect(record.entries.map((e) => [e.sampleId, e.questionIndex, e.originalGold])).toEqual([
        ['conv-26', 5, 'The sunday before 25 May 2023'],
        ['conv-49', 74, 'Thursday before December 17, 2023.'],
      ]);
      expect(turnText('conv-26', 'D2:1')).toContain('last Saturday');
      expect(turnText('conv-49', 'D20:3')).toContain('last Tuesday');
    });
  });
});

describe('errataScores', () => {
  const entry: ResolvedErratum = {
    sampleId: 's',
    questionIndex: 0,
    category: 4,
    question: 'Where did Ann move?',
    originalGold: 'Paris',
    corrected: 'Lyon',
    source: 'test',
  };
  const answer = (questionIndex: number, prediction: string, gold: string): AnswerRecord => ({
    sampleId: 's',
    testIndex: 0,
    questionIndex,
    category: 4,
    question: '?',
    gold,
    prediction,
    retrieved: [],
    scores: answerScores({ prediction, gold, category: 4 }, LOCOMO_PROFILE),
    judge: null,
    usage: null,
    retrieveMs: 0,
    answerMs: 0,
    error: null,
  });

  it('rescores corrected questions against the corrected gold and gives the ceiling', () => {
    // Question 0's gold is wrong (Paris; truly Lyon) and the system said Lyon; question 1 is right.
    const answers = [answer(0, 'Lyon', 'Paris'), answer(1, 'blue', 'blue')];
    const s = errataScores(answers, [entry], LOCOMO_PROFILE);
    expect(s.applied).toBe(1);
    expect(s.original.byCategory[4]!['officialF1']!.mean).toBe(0.5);
    expect(s.corrected.byCategory[4]!['officialF1']!.mean).toBe(1);
    // A perfect system answers Lyon, which the original gold scores 0: at most 0.5 in category 4.
    expect(s.ceiling['4']!['officialF1']).toEqual({ mean: 0.5, n: 2 });
    expect(s.ceiling['all']!['officialF1']).toEqual({ mean: 0.5, n: 2 });
    expect(s.judgeRecomputed).toBe(false);
  });

  it('puts an adversarial question at its full score in the ceiling, whatever its gold field says', () => {
    // A category-5 question whose gold field holds a yes/no: the perfect answer is the refusal,
    // which official scoring gives 1; scoring the gold field as the answer would give 0.
    const adversarial: AnswerRecord = {
      ...answer(2, 'No', 'No'),
      category: 5,
      scores: answerScores({ prediction: 'No', gold: 'No', category: 5 }, LOCOMO_PROFILE),
    };
    const s = errataScores([answer(0, 'Lyon', 'Paris'), adversarial], [entry], LOCOMO_PROFILE);
    expect(s.ceiling['5']!['officialF1']).toEqual({ mean: 1, n: 1 });
  });
});
