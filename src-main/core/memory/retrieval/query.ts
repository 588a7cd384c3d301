/**
 * Question analysis for turn retrieval: which words of a question carry no evidence signal, and
 * which speakers it names.
 *
 * The text index already drops a short English stop list; LoCoMo questions add their own
 * boilerplate ("What kind of ...", "When did ...", "How many times ..."). Those words occur in
 * many turns ("kind", "time", "think") and pull in turns that share nothing but the phrasing.
 */
export const QUESTION_WORDS: ReadonlySet<string> = new Set(
  (
    'what when where why how who whom whose which whats kind kinds type types sort ' +
    'do does did done is are was were be been has have had ' +
    'would could should might likely probably ' +
    'many much often times time ever recently ' +
    'mention mentioned mentions say said tell told talk talked ' +
    'something anything thing things some any'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}]+(?:['\u2019][\p{L}]+)?/gu;

/** The question without its question words (the original when nothing would be left). */
export function stripQuestionWords(question: string): string {
  const kept: string[] = [];
  for (const match of question.matchAll(WORD)) {
    const word = match[0];
    const bare = word.toLowerCase().replace(/['\u2019].*$/, '');
    if (!QUESTION_WORDS.has(bare)) kept.push(word);
  }
  return kept.length > 0 ? kept.join(' ') : question;
}

/** The speakers whose first name (or full name) the question contains, as given. */
export function mentionedSpeakers(question: string, speakers: readonly string[]): string[] {
  const words = new Set<string>();
  for (const match of question.matchAll(WORD)) {
    words.add(match[0].toLowerCase().replace(/['\u2019].*$/, ''));
  }
  return speakers.filter((speaker) => {
    const first = speaker.split(/\s+/)[0]?.toLowerCase() ?? '';
    return first !== '' && words.has(first);
  });
}
