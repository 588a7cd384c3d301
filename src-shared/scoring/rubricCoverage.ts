/**
 * A lexical stand-in for BEAM's rubric judge, for runs without a judge endpoint: per rubric item,
 * the share of its content words the answer contains; the question's value is the mean over its
 * items. It is NOT BEAM's score (the reference asks an LLM judge per item, compute_metrics.py), only
 * a cheap, deterministic signal that an offline run is finding the right material.
 */

/** The reference's rubric items open with an instruction to the judge, not with content. */
const ITEM_PREFIX = /^\s*llm response should (?:\w+\s*){0,3}:\s*/i;

/** Words that carry no rubric content (articles, auxiliaries, connectives). */
const STOPWORDS = new Set(
  (
    'a an the and or of to in on at for by with from as is are was were be been being it its this that ' +
    'these those i you your my me we our he she they them their his her not no do does did has have had ' +
    'should would could can will about into than then so if but also any all each which who what when how'
  ).split(' '),
);

function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+(?:['.][\p{L}\p{N}]+)*/gu) ?? []).filter(
    (w) => !STOPWORDS.has(w),
  );
}

/** Mean over rubric items of the share of each item's content words found in the answer. */
export function lexicalRubricCoverage(answer: string, rubric: readonly string[]): number | null {
  const said = new Set(contentWords(answer));
  let sum = 0;
  let items = 0;
  for (const item of rubric) {
    const words = [...new Set(contentWords(item.replace(ITEM_PREFIX, '')))];
    if (words.length === 0) continue;
    sum += words.filter((w) => said.has(w)).length / words.length;
    items += 1;
  }
  return items === 0 ? null : sum / items;
}
