import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LONGMEMEVAL_PROFILE, categoryLabel } from '../../../src-shared/benchmarks';
import { WorkbenchError } from '../../../src-shared/errors';
import { loadDatasetFile, loadDatasetValue } from './load';
import { parseLongMemEvalDate } from './longmemeval';
import { datasetStats } from './stats';
import { planTests } from './testPlan';

const FIXTURE = fileURLToPath(
  new URL('../../../tests/fixtures/longmemeval/longmemeval_s.json', import.meta.url),
);
const raw = (): Array<Record<string, unknown>> =>
  JSON.parse(readFileSync(FIXTURE, 'utf8')) as Array<Record<string, unknown>>;

function thrown(fn: () => unknown): WorkbenchError {
  try {
    fn();
  } catch (error) {
    if (error instanceof WorkbenchError) return error;
    throw error;
  }
  throw new Error('expected a WorkbenchError');
}

describe('LongMemEval loader on the official shape', () => {
  it('is detected and gives one sample per question, named by question_id', async () => {
    const result = await loadDatasetFile(FIXTURE);
    expect(result.info.format).toBe('longmemeval');
    expect(result.problems).toEqual([]);
    expect(result.samples.map((s) => s.sampleId)).toEqual([
      'e47becba',
      '6a1eabeb',
      'gpt4_59149c77',
      '0a995998_abs',
      '75832dbd',
      '1903aded',
    ]);
    for (const sample of result.samples) {
      expect(sample.qa).toHaveLength(1);
      expect(sample.askAfter).toBe('haystack');
    }
  });

  it('files question types as categories and `_abs` ids as abstention of their type', async () => {
    const { samples } = await loadDatasetFile(FIXTURE);
    const names = samples.map((s) =>
      categoryLabel(LONGMEMEVAL_PROFILE, (s.qa[0] as { category: number }).category),
    );
    expect(names).toEqual([
      'single-session-user',
      'knowledge-update',
      'temporal-reasoning',
      'abstention (multi-session)',
      'single-session-preference',
      'single-session-assistant',
    ]);
  });

  it('keeps has_answer turns as evidence, answer sessions, dates and the question date', async () => {
    const { samples } = await loadDatasetFile(FIXTURE);
    const update = samples[1]!;
    const qa = update.qa[0]!;
    // Both has_answer turns: the old personal best and the updated one.
    expect(qa.evidence).toEqual(['D1:1', 'D3:1']);
    expect(qa.evidenceSessions).toEqual([1, 3]);
    expect(qa.questionId).toBe('6a1eabeb');
    expect(qa.questionDate).toBe('2023-06-15T18:30:00');
    expect(qa.questionDateText).toBe('2023/06/15 (Thu) 18:30');
    expect(update.sessions.map((s) => [s.sessionId, s.dateTime])).toEqual([
      ['answer_8748f791_1', '2023-06-01T07:45:00'],
      ['sharegpt_ZQhVP2c_3', '2023-06-05T12:00:00'],
      ['answer_8748f791_2', '2023-06-12T08:10:00'],
    ]);
    expect(update.sessions[0]!.turns[0]).toMatchObject({ speaker: 'user', diaId: 'D1:1' });
    // A number in the file is text here, as answers are compared as text.
    expect(samples[2]!.qa[0]!.answer).toBe('7');
    // The abstention question has no evidence turn.
    expect(samples[3]!.qa[0]!.evidence).toEqual([]);
  });

  it('orders an oracle file’s unsorted sessions by their dates', () => {
    const [first] = raw();
    const q = { ...first! };
    q['haystack_dates'] = [...(q['haystack_dates'] as string[])].reverse();
    const { samples } = loadDatasetValue([q], 'oracle.json');
    const sample = samples[0]!;
    expect(sample.sessions.map((s) => s.sessionId)).toEqual([
      'ultrachat_3401',
      'answer_280352e9',
      'sharegpt_yywfWbR_0',
    ]);
    // Evidence follows the turn to its new place.
    expect(sample.qa[0]!.evidence).toEqual(['D2:1']);
    expect(sample.qa[0]!.evidenceSessions).toEqual([2]);
  });

  it('counts categories by the profile in stats', async () => {
    const { samples } = await loadDatasetFile(FIXTURE);
    const stats = datasetStats(samples, {}, LONGMEMEVAL_PROFILE);
    expect(stats.totals.byCategory).toEqual({
      1: 1,
      2: 1,
      3: 1,
      4: 0,
      5: 1,
      6: 1,
      7: 0,
      8: 0,
      9: 0,
      10: 1,
      11: 0,
      12: 0,
    });
    expect(stats.totals.plannedTests).toBe(6);
  });
});

describe('LongMemEval validation names the question and the path', () => {
  it('reports a bad question_type and skips only that question', () => {
    const questions = raw();
    questions[1] = { ...questions[1]!, question_type: 'multi-hop' };
    const result = loadDatasetValue(questions, 'lme.json');
    expect(result.samples).toHaveLength(5);
    const error = result.problems.find((p) => p.severity === 'error');
    expect(error?.message).toMatch(/^lme\.json: question "6a1eabeb" \(#1\): question_type: /);
    expect(error?.path).toEqual([1, 'question_type']);
  });

  it('refuses parallel haystack lists of different lengths', () => {
    const questions = raw();
    questions[0] = { ...questions[0]!, haystack_dates: ['2023/05/20 (Sat) 02:21'] };
    const error = thrown(() => loadDatasetValue(questions.slice(0, 1), 'lme.json'));
    expect(error.message).toBe(
      'lme.json: question "e47becba" (#0): haystack_dates: has 1 entries but haystack_sessions has 3 (no sample could be loaded)',
    );
  });

  it('names a missing field and a turn with a bad role by their paths', () => {
    const questions = raw();
    const { answer_session_ids: _dropped, ...noIds } = questions[0]!;
    const sessions = structuredClone(questions[1]!['haystack_sessions']) as Array<
      Array<Record<string, unknown>>
    >;
    sessions[2]![1]!['role'] = 'system';
    const result = loadDatasetValue(
      [noIds, { ...questions[1]!, haystack_sessions: sessions }, questions[2]],
      'x.json',
    );
    expect(result.samples).toHaveLength(1);
    expect(result.problems.map((p) => p.path)).toEqual([
      [0, 'answer_session_ids'],
      [1, 'haystack_sessions', 2, 1, 'role'],
    ]);
    expect(result.problems[0]!.message).toBe(
      'x.json: question "e47becba" (#0): answer_session_ids: missing required field (expected array)',
    );
  });

  it('refuses duplicate question ids and warns about answer sessions outside the haystack', () => {
    const questions = raw();
    const dup = { ...questions[0]!, answer_session_ids: ['answer_missing'] };
    const result = loadDatasetValue([dup, questions[0]], 'd.json');
    expect(result.samples).toHaveLength(1);
    expect(result.problems.map((p) => [p.severity, p.message])).toEqual([
      [
        'warning',
        'd.json: question "e47becba" (#0): answer_session_ids[0]: answer session "answer_missing" is not in haystack_session_ids',
      ],
      [
        'error',
        'd.json: question "e47becba" (#1): question_id: duplicate question_id (also question #0)',
      ],
    ]);
  });

  it('parses the file’s dates and refuses impossible ones', () => {
    expect(parseLongMemEvalDate('2023/05/20 (Sat) 02:21')).toBe('2023-05-20T02:21:00');
    expect(parseLongMemEvalDate('2023/02/30 (Thu) 02:21')).toBeNull();
    expect(parseLongMemEvalDate('20 May 2023')).toBeNull();
  });
});

describe('LongMemEval test plan', () => {
  it('asks each question once after its whole haystack, its evidence early or not', async () => {
    const { samples } = await loadDatasetFile(FIXTURE);
    const first = samples[0]!;
    // Evidence is in packet 1 of 0..4; LoCoMo's rule would test there.
    const plan = planTests(first);
    expect(plan.tests.map((t) => [t.packetIdx, t.dialogsInserted, t.questionIndices])).toEqual([
      [4, 9, [0]],
    ]);
    // The abstention question (no evidence) is asked too, at the end.
    expect(planTests(samples[3]!).tests.map((t) => t.packetIdx)).toEqual([1]);
  });

  it('with curve points also asks it after each part of the haystack', async () => {
    const { samples } = await loadDatasetFile(FIXTURE);
    const plan = planTests(samples[0]!, { haystackCurvePoints: 2 });
    expect(plan.tests.map((t) => [t.testIndex, t.packetIdx, t.dialogsInserted])).toEqual([
      [0, 2, 6],
      [1, 4, 9],
    ]);
  });
});
