import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HumanLabel } from '../../../src-shared/labels';
import { writeFixtureRun } from '../../../tests/support/runs-fixture';
import { RUN_JUDGE, humanJudgeAgreement, labelAgreement } from './humanAgreement';
import { judgeKey } from '../../../src-shared/judges';
import { saveLabel } from './labels';
import { RunStore } from './store';
import { runJudgePanel } from './judgePanel';
import { judgeErrorLookupFor } from './judgeErrorLookup';
import { measuredErrorText } from '../../../src-shared/judgePanel';

const STRICT = {
  protocol: 'strict',
  model: 'judge-model',
  origin: 'http://127.0.0.1:1',
  repeats: 1,
  promptSha256: 'p',
};

const dir = mkdtempSync(join(tmpdir(), 'workbench-human-agreement-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FINAL = 2;
const BOOT = { resamples: 200, seed: 1 };

/**
 * Three conversations of 12 questions (categories q % 5 + 1; LoCoMo's judge scores 1-4, so 10 per
 * conversation are judged). The run's judge accepts the even questions; a `strict` protocol judge
 * accepts every one. Ann and Bob label six answers of conv-1:
 *   q0 judge ✓  ann ✓ bob ✓  → human correct, accepted
 *   q1 judge ✗  ann ✗ bob ✗  → human wrong, rejected
 *   q2 judge ✓  ann ✗ bob ✗  → human wrong, accepted (a false acceptance)
 *   q3 judge ✗  ann ✓ bob ✗  → a tie: no truth (unsure), excluded
 *   q5 judge ✗  ann ✓ bob ✓  → human correct, rejected
 *   q6 judge ✓  ann skip     → skip, excluded
 */
function labelledRun(): RunStore {
  const store = RunStore.open(join(dir, `runs-${Math.random().toString(36).slice(2)}.db`));
  writeFixtureRun(store, { runId: 'run-a', samples: 3, tests: FINAL + 1, step: 4 });
  const finals = store.finalAnswers('run-a');
  store.saveJudgeScores(
    'run-a',
    finals.map((a) => {
      const label = a.questionIndex % 2 === 0 ? 1 : 0;
      return { ...a, judge: { mean: label, std: 0, labels: [label], error: null } };
    }),
  );
  store.saveProtocolJudgeScores(
    'run-a',
    STRICT,
    finals.map((a) => ({ ...a, judge: { mean: 1, std: 0, labels: [1], error: null } })),
  );
  const give = (questionIndex: number, labeller: string, label: HumanLabel) =>
    saveLabel(store, {
      runId: 'run-a',
      key: { sampleId: 'conv-1', testIndex: FINAL, questionIndex },
      labeller,
      label,
    });
  const table: Array<[number, HumanLabel, HumanLabel | null]> = [
    [0, 'correct', 'correct'],
    [1, 'wrong', 'wrong'],
    [2, 'wrong', 'wrong'],
    [3, 'correct', 'wrong'],
    [5, 'correct', 'correct'],
    [6, 'skip', null],
  ];
  for (const [q, ann, bob] of table) {
    give(q, 'ann', ann);
    if (bob !== null) give(q, 'bob', bob);
  }
  return store;
}

describe('humanJudgeAgreement', () => {
  it("lines the run's judge up against the labellers' majority", () => {
    const store = labelledRun();
    const figures = humanJudgeAgreement(store, 'run-a', RUN_JUDGE, BOOT);
    expect(figures).not.toBeNull();
    // q0, q1, q2, q5 have a truth; q3 (a tie) and q6 (skipped) are excluded.
    expect(figures?.labelled).toBe(4);
    expect(figures?.excludedUnsureOrSkip).toBe(2);
    // Human correct: q0 accepted, q5 rejected. Human wrong: q1 rejected, q2 accepted.
    expect(figures?.trueAcceptance).toMatchObject({ successes: 1, n: 2 });
    expect(figures?.falseAcceptance).toMatchObject({ successes: 1, n: 2 });
    // Agreeing on q0 and q1 of the four.
    expect(figures?.accuracy.estimate).toBe(0.5);
    // Every judged answer counts for the observed share: 5 even of the 10 per conversation in
    // categories 1-4 (the judge verdicts the fixture gave category 5 are outside J).
    expect(figures?.observed).toMatchObject({ estimate: 0.5, n: 30, clusters: 3 });
    store.close();
  });

  it("reads a rescore protocol's verdicts under its name; a judge that accepts all has no correction", () => {
    const store = labelledRun();
    const strict = humanJudgeAgreement(store, 'run-a', judgeKey(STRICT), BOOT);
    expect(strict?.trueAcceptance).toMatchObject({ successes: 2, n: 2 });
    expect(strict?.falseAcceptance).toMatchObject({ successes: 2, n: 2 });
    expect(strict?.corrected.valid).toBe(false);
    expect(humanJudgeAgreement(store, 'run-a', 'no-such-protocol', BOOT)).toBeNull();
    store.close();
  });

  it('is null for a run nobody labelled', () => {
    const store = RunStore.open(join(dir, 'unlabelled.db'));
    writeFixtureRun(store, { runId: 'run-b', samples: 1 });
    expect(humanJudgeAgreement(store, 'run-b')).toBeNull();
    store.close();
  });
});

describe('labelAgreement', () => {
  it('counts each labeller, measures their agreement and lists each judge against them', () => {
    const store = labelledRun();
    const report = labelAgreement(store, 'run-a', BOOT);
    expect(report.labellers).toEqual(['ann', 'bob']);
    expect(report.counts).toEqual({
      ann: { correct: 3, wrong: 2, unsure: 0, skip: 1 },
      bob: { correct: 2, wrong: 3, unsure: 0, skip: 0 },
    });
    expect(report.labelled).toBe(6);
    // Both gave a correct/wrong label to q0, q1, q2, q3, q5 and agree on all but q3.
    expect(report.humans?.pairs[0]?.percentAgreement).toMatchObject({ estimate: 0.8, n: 5 });
    expect(report.judges.map((j) => [j.id, j.protocol, j.vsHuman.labelled])).toEqual([
      [judgeKey(STRICT), 'strict', 4],
    ]);
    store.close();
  });
});

describe("the judge panel names each judge's error measured by this run's human labels", () => {
  it('prints the false acceptance against the labels beside each judge, in place of an audit', () => {
    const store = labelledRun();
    const lookup = judgeErrorLookupFor(store, 'run-a');
    // The fixture's own judge has no manifest entry, so it is asked for directly.
    const own = lookup({ protocol: 'mem0', model: 'm', origin: '', repeats: 1 }, true);
    const panel = runJudgePanel(store, 'run-a', lookup);
    const strict = panel?.judges.find((j) => j.judge.protocol === 'strict');
    // Human-wrong answers: q1 (run judge rejects) and q2 (accepts); strict accepts both.
    expect(own?.source).toBe('human');
    expect(own?.falseAcceptance).toMatchObject({ successes: 1, n: 2 });
    expect(strict?.measuredError).toMatchObject({
      source: 'human',
      falseAcceptance: { successes: 2, n: 2 },
    });
    expect(measuredErrorText(own ?? null)).toMatch(
      /^judge accepts 50% \[\d+%, \d+%\] of answers people labelled wrong \(human labels, n = 2\)$/,
    );
    store.close();
  });
});
