import type { CategoryId } from '../../src-shared/dataset/categories';
import type { AnswerRecord } from '../../src-shared/experiment';

/**
 * Two runs' final answers over a full LoCoMo-sized set, 1,986 questions in LoCoMo's category sizes
 * (DESIGN.md §4) spread over ten samples, with different scores: the Compare view's test at full
 * size and `npm run bench -- compare-view` build from it.
 */
export function fullLocomoAnswerPair(): { base: AnswerRecord[]; other: AnswerRecord[] } {
  const sizes: Array<[CategoryId, number]> = [
    [1, 282],
    [2, 321],
    [3, 96],
    [4, 841],
    [5, 446],
  ];
  const base: AnswerRecord[] = [];
  let i = 0;
  for (const [category, count] of sizes)
    for (let k = 0; k < count; k++, i++)
      base.push(
        finalAnswer(`conv-${i % 10}`, Math.floor(i / 10), category, ((i * 37) % 100) / 100),
      );
  const other = base.map((a, k) => ({
    ...a,
    scores: { ...a.scores, officialF1: ((k * 53) % 100) / 100 },
  }));
  return { base, other };
}

/** One final answer scored only by official F1; `extra` overrides any field. */
export function finalAnswer(
  sampleId: string,
  questionIndex: number,
  category: CategoryId,
  officialF1: number,
  extra: Partial<AnswerRecord> = {},
): AnswerRecord {
  return {
    sampleId,
    testIndex: 0,
    questionIndex,
    category,
    question: `question ${sampleId}/${questionIndex}`,
    gold: `gold ${questionIndex}`,
    prediction: `prediction ${officialF1}`,
    retrieved: [],
    scores: { officialF1, setF1: null, bleu1: null, judge: null, evidenceRecall: null },
    judge: null,
    usage: null,
    retrieveMs: 0,
    answerMs: 0,
    error: null,
    ...extra,
  };
}
