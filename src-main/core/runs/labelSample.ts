import type { CategoryId } from '../../../src-shared/benchmarks/types';
import type { LabelAnswerKey, LabelSampleRequest } from '../../../src-shared/labels';
import { mulberry32, type Rng } from '../../../src-shared/scoring';

/**
 * The labelling sample of a run (issue 37 item 2): a stratified random sample of its final
 * answers, `perCategory` from each category (all of a smaller one), drawn with a seeded mulberry32
 * and then shuffled once more so a labeller does not meet one category after another. The same
 * answers and seed give the same sample in the same order on every machine, which is what lets
 * two labellers in two data folders label the same answers.
 */

export interface SampleCandidate extends LabelAnswerKey {
  category: CategoryId;
}

const byKey = (a: SampleCandidate, b: SampleCandidate): number =>
  a.sampleId < b.sampleId
    ? -1
    : a.sampleId > b.sampleId
      ? 1
      : a.questionIndex - b.questionIndex || a.testIndex - b.testIndex;

/** Fisher-Yates in place: each order equally likely under a uniform `rng`. */
function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/**
 * The sample in the order it is shown. Candidates are sorted by key first, so the input's order
 * (a query's) never changes the draw; categories are drawn in ascending id.
 */
export function drawLabelSample(
  candidates: readonly SampleCandidate[],
  { perCategory, seed }: LabelSampleRequest,
): SampleCandidate[] {
  const rng = mulberry32(seed);
  const byCategory = new Map<CategoryId, SampleCandidate[]>();
  for (const c of [...candidates].sort(byKey)) {
    const list = byCategory.get(c.category) ?? [];
    list.push(c);
    byCategory.set(c.category, list);
  }
  const drawn = [...byCategory.keys()]
    .sort((a, b) => a - b)
    .flatMap((category) => shuffle(byCategory.get(category) ?? [], rng).slice(0, perCategory));
  return shuffle(drawn, rng);
}
