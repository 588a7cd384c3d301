/**
 * BEAM's scoring arithmetic, as mohammadtavakoli78/BEAM `src/evaluation/compute_metrics.py` and
 * `report_results.py` (at b2a3ee8) compute it: the rubric judge's per-question mean, event
 * ordering's precision/recall/F1 and Kendall tau-b (scipy's `kendalltau(variant="b")`) over the
 * aligned lists, and the report's per-chat then over-chat means. Pure: the model calls (judge,
 * fact extraction, the equivalence check) are made by `core/answer/beam-judge.ts`, which hands the
 * aligned lists here. Golden-tested against the reference's own code
 * (tests/fixtures/golden/beam.json, scripts/golden/generate-beam.py).
 */

/**
 * scipy.stats.kendalltau(x, y, variant="b") (scipy 1.10's `_kendall_dis` path, ties counted the
 * same way): NaN when either side is constant or shorter than 2, as scipy returns it. The
 * division order is scipy's, so the float is the same.
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): number {
  const n = x.length;
  if (n !== y.length) throw new RangeError('kendallTauB: x and y differ in length');
  if (n === 0) return NaN;
  let concordantMinusDiscordant = 0;
  let xTies = 0;
  let yTies = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = Math.sign((x[i] as number) - (x[j] as number));
      const dy = Math.sign((y[i] as number) - (y[j] as number));
      if (dx === 0) xTies++;
      if (dy === 0) yTies++;
      concordantMinusDiscordant += dx * dy;
    }
  }
  const total = (n * (n - 1)) / 2;
  if (xTies === total || yTies === total) return NaN;
  const tau = concordantMinusDiscordant / Math.sqrt(total - xTies) / Math.sqrt(total - yTies);
  return Math.min(1, Math.max(-1, tau));
}

export interface EventOrderingScore {
  precision: number;
  recall: number;
  f1: number;
  /** (tau_b + 1) / 2; NaN where tau-b is (the reference's `is not None` test lets NaN through). */
  tau_norm: number;
  /** tau_norm * f1: computed by the reference, used by no report. */
  final_score: number;
}

/**
 * `event_ordering_score` after its alignment: `reference` the rubric, `system` the response's
 * lines with each matched line replaced by its rubric item (`alignWithLlm`'s output). Duplicate
 * lines count as the reference counts them: sets for true positives, lists for the rest, the
 * last occurrence's rank.
 */
export function eventOrderingScore(
  reference: readonly string[],
  system: readonly string[],
): EventOrderingScore {
  const referenceSet = new Set(reference);
  const systemSet = new Set(system);
  let tp = 0;
  for (const item of referenceSet) if (systemSet.has(item)) tp++;
  const fp = system.filter((item) => !referenceSet.has(item)).length;
  const fn = reference.filter((item) => !systemSet.has(item)).length;
  const precision = tp + fp ? tp / (tp + fp) : 0;
  const recall = tp + fn ? tp / (tp + fn) : 0;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  // union = list(dict.fromkeys(reference + system)); absent items share rank len(union) + 1.
  const union = [...new Set([...reference, ...system])];
  const tieRank = union.length + 1;
  const toRank = (seq: readonly string[]): number[] => {
    const rank = new Map<string, number>();
    seq.forEach((item, i) => rank.set(item, i + 1));
    return union.map((item) => rank.get(item) ?? tieRank);
  };
  const tauB = kendallTauB(toRank(reference), toRank(system));
  const tauNorm = (tauB + 1) / 2;
  return { precision, recall, f1, tau_norm: tauNorm, final_score: tauNorm * f1 };
}

/**
 * `align_with_llm`: each system line, in order, is replaced by the first rubric item not yet used
 * that the equivalence check calls the same event; the check is asked for every unused item until
 * one matches, so the calls (and their order) are the reference's.
 */
export async function alignWithLlm(
  reference: readonly string[],
  system: readonly string[],
  equivalent: (referenceItem: string, systemLine: string) => Promise<boolean>,
): Promise<string[]> {
  const used = new Set<number>();
  const out: string[] = [];
  for (const line of system) {
    let matched: number | null = null;
    for (let index = 0; index < reference.length; index++) {
      if (used.has(index)) continue;
      if (await equivalent(reference[index] as string, line)) {
        matched = index;
        break;
      }
    }
    if (matched === null) out.push(line);
    else {
      out.push(reference[matched] as string);
      used.add(matched);
    }
  }
  return out;
}

/** Python's `int(x)` on a JSON value, or null where Python raises. */
export function pyInt(value: unknown): number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) + 0 : null;
  if (typeof value === 'string') {
    const m = /^\s*([+-]?\d+(?:_\d+)*)\s*$/.exec(value);
    return m ? Number((m[1] as string).replace(/_/g, '')) : null;
  }
  return null;
}

/** Python's `float(x)` on a JSON value, or null where Python raises. */
export function pyFloat(value: unknown): number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const s = value.trim().replace(/(\d)_(?=\d)/g, '$1');
    if (/^[+-]?(?:\d+\.?\d*(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?)$/i.test(s)) return Number(s);
    if (/^[+-]?(?:inf|infinity)$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
    if (/^[+-]?nan$/i.test(s)) return NaN;
  }
  return null;
}

/**
 * The question's judge score: the items' scores summed in order and divided by their count,
 * each through `int()` (a 0.5 counts 0) for every ability but event ordering, which keeps
 * `float()`. Null where the reference raises on an item's score (its evaluation stops there).
 */
export function rubricMean(scores: readonly unknown[], keepPartial: boolean): number | null {
  let total = 0;
  for (const score of scores) {
    const value = keepPartial ? pyFloat(score) : pyInt(score);
    if (value === null) return null;
    total += value;
  }
  return total / scores.length;
}

/** The ability whose report cell is `tau_norm` rather than the judge score. */
export const BEAM_EVENT_ORDERING = 'event_ordering';

/** One question's result as `run_evaluation` writes it (the fields the report reads). */
export interface BeamQuestionScore {
  llm_judge_score: number;
  /** Event ordering only. */
  tau_norm?: number;
}

/** `report_results.py`'s cell for one question: tau_norm for event ordering, else the judge score. */
export function beamReportValue(ability: string, score: BeamQuestionScore): number {
  if (ability === BEAM_EVENT_ORDERING) return score.tau_norm ?? NaN;
  return score.llm_judge_score;
}

/**
 * One report row, as `report_llms_accuracies` computes it for one result file: per chat, per
 * ability the mean over that chat's questions (summed in order); then per ability the sum over
 * chats (in chat order) divided by the number of chats. `chats` in the reference's order
 * (directories sorted as integers); each chat maps an ability to its questions' scores in order.
 * A chat lacking an ability is a NaN cell there (the reference would misalign its columns).
 */
export function beamReportRow(
  abilities: readonly string[],
  chats: ReadonlyArray<ReadonlyMap<string, readonly BeamQuestionScore[]>>,
): number[] {
  const perChat = chats.map((chat) =>
    abilities.map((ability) => {
      const questions = chat.get(ability) ?? [];
      if (questions.length === 0) return NaN;
      let total = 0;
      for (const q of questions) total += beamReportValue(ability, q);
      return total / questions.length;
    }),
  );
  return abilities.map((_, k) => {
    let total = 0;
    for (const row of perChat) total += row[k] as number;
    return total / perChat.length;
  });
}
