import { describe, expect, it } from 'vitest';
import { judgePanelOf, type JudgeErrorLookup } from '@shared/judgePanel';
import { wilsonInterval } from '@shared/scoring/judgeError';
import { judgePanelView } from './judgePanelShape';

/**
 * The Runs view's per-judge table from a hand-made panel: four questions in two conversations,
 * the run's own judge (mem0) once and an added strict judge three times, so every figure is known
 * by hand.
 */
const questions = [
  { key: 'q1', cluster: 'conv-a' },
  { key: 'q2', cluster: 'conv-a' },
  { key: 'q3', cluster: 'conv-b' },
  { key: 'q4', cluster: 'conv-b' },
];
const own = {
  identity: { protocol: 'mem0', model: 'gpt-a', origin: 'http://127.0.0.1:1', repeats: 1 },
  own: true,
  labels: new Map([
    ['q1', [1]],
    ['q2', [1]],
    ['q3', [0]],
    ['q4', [0]],
  ]),
};
const strict = {
  identity: { protocol: 'strict', model: 'gpt-b', origin: 'http://127.0.0.1:1', repeats: 3 },
  own: false,
  // Majority: correct, wrong, wrong, wrong; q4 is split 1 of 3.
  labels: new Map([
    ['q1', [1, 1, 1]],
    ['q2', [0, 0, 0]],
    ['q3', [0, 0, 0]],
    ['q4', [0, 1, 0]],
  ]),
};
// Only mem0/gpt-a was audited: it accepted 8 of 100 known-wrong answers.
const audited: JudgeErrorLookup = (j) =>
  j.protocol === 'mem0' && j.model === 'gpt-a' && j.endpoint === 'http://127.0.0.1:1'
    ? { source: 'audit', falseAcceptance: wilsonInterval(8, 100) }
    : null;

describe('judgePanelView', () => {
  const panel = judgePanelOf({ questions, judges: [own, strict] }, audited, { resamples: 200 });
  const view = judgePanelView(panel);

  it('gives each judge its J with an interval, the paired difference to the first, and its measured error beside it', () => {
    expect(view.questions).toBe(4);
    expect(view.judges.map((j) => [j.name, j.own, j.n, j.missing])).toEqual([
      ['mem0', true, 4, 0],
      ['strict', false, 4, 0],
    ]);
    // mem0: 2 of 4. strict: the mean of each answer's share of CORRECT, (1 + 0 + 0 + 1/3) / 4.
    expect(view.judges[0]?.j).toMatch(/^0\.500 \[\d\.\d{3}, \d\.\d{3}\]$/);
    expect(view.judges[1]?.j).toMatch(/^0\.333 \[/);
    expect(view.judges[0]?.vsFirst).toBe('–');
    expect(view.judges[1]?.vsFirst).toMatch(/^-0\.167 \[/);
    expect(view.judges[0]?.measuredError).toMatch(
      /^judge accepts 8% \[\d+%, \d+%\] of known-wrong answers \(audit, n = 100\)$/,
    );
    expect(view.judges[1]?.measuredError).toBeNull();
    expect(view.judges[0]?.consistency).toBeNull();
    // Repeats' J: 1/4, 2/4 and 1/4; majority vote 1 of 4.
    expect(view.judges[1]?.consistency).toBe(
      '3 repeats: majority-vote J 0.250, spread 0.250–0.500 (std 0.144)',
    );
    expect(view.judges[1]?.title).toBe('strict · gpt-b · ×3 · http://127.0.0.1:1');
  });

  it("lists the agreement between the judges' verdicts (the majority for repeats)", () => {
    // Verdicts mem0 C C W W, strict C W W W: agree on 3 of 4. Cohen: chance 0.5·0.25 + 0.5·0.75
    // = 0.5, κ = (0.75 − 0.5) / 0.5.
    const byLabel = new Map(view.agreement.map((r) => [r.label, r]));
    expect(byLabel.get('Percent agreement')?.value).toMatch(/^0\.750 \[/);
    expect(byLabel.get("Cohen's κ, mem0 × strict")?.value).toMatch(/^0\.500 \[/);
    expect(byLabel.get("Cohen's κ, mem0 × strict")?.n).toBe(4);
    expect(byLabel.has("Fleiss' κ")).toBe(true);
    expect(byLabel.has("Krippendorff's α")).toBe(true);
  });

  it('names judges of one protocol by their models, and has no agreement with one judge', () => {
    const twin = { ...strict, identity: { ...strict.identity, protocol: 'mem0' } };
    expect(
      judgePanelView(
        judgePanelOf({ questions, judges: [own, twin] }, undefined, { resamples: 50 }),
      ).judges.map((j) => j.name),
    ).toEqual(['mem0/gpt-a', 'mem0/gpt-b']);
    const alone = judgePanelView(
      judgePanelOf({ questions, judges: [own] }, undefined, { resamples: 50 }),
    );
    expect(alone.agreement).toEqual([]);
  });
});
