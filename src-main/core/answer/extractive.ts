import { BoundedCache, memoizeStringPair } from '../../../src-shared/memo';
import { createCachedStemmer } from '../../../src-shared/scoring/porter';
import { findDateMentions, formatDay, parseIsoDate } from './dates';
import { memoryTokensOfLines } from './protocols';
import {
  NOT_MENTIONED,
  isAdversarialRequest,
  type AnswerRequest,
  type AnswerResult,
  type Answerer,
  type MemoryHit,
} from './types';

/**
 * The offline default answerer: deterministic, no model. It picks the retrieved sentence that
 * best covers the question's content words and answers with the shortest span of it that the
 * question does not already contain; when-questions get a date resolved against the session date;
 * category-5 questions get "Not mentioned in the conversation" when retrieval does not support the
 * question's premise. It is a baseline that makes the whole pipeline measurable without an LLM,
 * not a competitor to one.
 */

const STOP_WORDS = new Set(
  (
    'a an the and or but of to in on at for from by with about as into over after before during ' +
    'is are was were be been being am do does did done doing have has had having will would can could ' +
    'should shall may might must i me my mine we us our you your he him his she her hers it its they ' +
    'them their this that these those there here what which who whom whose when where why how ' +
    'if then than so not no yes just also very really too up down out off again some any all each ' +
    'both more most other such only own same s t don didn doesn isn wasn aren weren won ll re ve d m ' +
    'oh yeah hey wow thanks thank like get got go going went gonna wanna lot lots kind sort ' +
    'something anything thing things one much many'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu;

// Answers re-read the same memories at every test: stemming each word once makes that cheap.
const porterStem = createCachedStemmer();

function words(text: string): string[] {
  return text.match(WORD) ?? [];
}

function contentStems(text: string, exclude: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  for (const word of words(text.toLowerCase())) {
    const bare = word.replace(/'.*$/, '');
    if (bare.length < 2 || STOP_WORDS.has(bare) || exclude.has(bare)) continue;
    out.push(porterStem(bare));
  }
  return out;
}

function stripSpeaker(text: string, speaker: string | null): string {
  if (speaker && text.startsWith(`${speaker}: `)) return text.slice(speaker.length + 2);
  return text.replace(/^[^:]{1,40}: /, '');
}

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\s+[-–—]\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** The retrieved memories an answer reads, best first; the rest are ignored. */
const MEMORIES_READ = 12;

interface AnalysedSentence {
  sentence: string;
  stems: ReadonlySet<string>;
}

/**
 * A memory's sentences (its speaker prefix dropped) with their content stems. The same turns are
 * retrieved for question after question and test after test, so each is analysed once.
 */
const analysedSentences = memoizeStringPair(
  (speaker: string, text: string): readonly AnalysedSentence[] =>
    sentences(stripSpeaker(text, speaker === '' ? null : speaker)).map((sentence) => ({
      sentence,
      stems: new Set(contentStems(sentence)),
    })),
);

/** The question's content stems, the speakers' names left out; a question is asked at every test. */
const questionStemsOf = memoizeStringPair(
  (speakerNamesJson: string, question: string): ReadonlySet<string> =>
    new Set(contentStems(question, new Set(JSON.parse(speakerNamesJson) as string[]))),
);

type QuestionKind = 'when' | 'how-many' | 'yes-no' | 'open';

function questionKind(question: string): QuestionKind {
  const q = question.trim().toLowerCase();
  if (
    /^(when|what (year|month|date|day)|which (year|month))\b/.test(q) ||
    /\bhow long ago\b/.test(q)
  ) {
    return 'when';
  }
  if (/^how many\b/.test(q)) return 'how-many';
  if (/^(is|are|was|were|does|do|did|would|could|will|has|have|can|should)\b/.test(q))
    return 'yes-no';
  return 'open';
}

interface ScoredSentence {
  sentence: string;
  memory: MemoryHit;
  score: number;
}

function rankSentences(
  request: AnswerRequest,
  questionStems: ReadonlySet<string>,
): ScoredSentence[] {
  const ranked: ScoredSentence[] = [];
  request.memories.slice(0, MEMORIES_READ).forEach((memory, rank) => {
    for (const { sentence, stems } of analysedSentences(memory.speaker ?? '', memory.text)) {
      let overlap = 0;
      for (const stem of questionStems) if (stems.has(stem)) overlap += 1;
      // Retrieval order breaks ties and nudges towards what the retriever trusted most.
      ranked.push({ sentence, memory, score: overlap + 0.5 / (rank + 1) });
    }
  });
  return ranked.sort((a, b) => b.score - a.score);
}

/** The part of a sentence the question doesn't already say: the first clause with new content. */
function novelSpan(sentence: string, questionWords: ReadonlySet<string>, maxWords = 8): string {
  const clauses = sentence.split(/[,;:()!?.]+|\s+(?:and|but|because|so|which|that)\s+/i);
  let fallback = '';
  for (const clause of clauses) {
    const kept = words(clause).filter((w) => {
      const lower = w.toLowerCase();
      return !questionWords.has(porterStem(lower.replace(/'.*$/, ''))) && !STOP_WORDS.has(lower);
    });
    if (kept.length === 0) continue;
    const span = kept.slice(0, maxWords).join(' ');
    if (kept.length >= 1 && fallback === '') fallback = span;
    if (kept.length >= 2) return span;
  }
  return fallback || sentence.split(/\s+/).slice(0, maxWords).join(' ');
}

function namedSpeaker(question: string, speakers: readonly [string, string]): string | null {
  const named = speakers.filter((s) =>
    new RegExp(`\\b${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(question),
  );
  return named.length === 1 ? named[0]! : null;
}

/**
 * Category 5 asks about something the conversation does not say, usually about the other speaker.
 * The premise is unsupported when the best-matching memory is someone else's and doesn't mention
 * the person asked about, or when almost nothing matches.
 */
function premiseUnsupported(
  request: AnswerRequest,
  best: ScoredSentence | undefined,
  questionStemCount: number,
): boolean {
  if (!best || questionStemCount === 0) return true;
  const overlap = Math.floor(best.score);
  if (overlap === 0 || overlap / questionStemCount < 0.25) return true;
  const asked = namedSpeaker(request.question, request.speakers);
  if (asked === null || best.memory.speaker === null) return false;
  return (
    best.memory.speaker !== asked && !best.memory.text.toLowerCase().includes(asked.toLowerCase())
  );
}

export function extractiveAnswer(request: AnswerRequest): string {
  const speakerNames = new Set(request.speakers.map((s) => s.toLowerCase()));
  const questionStems = questionStemsOf(JSON.stringify([...speakerNames]), request.question);
  const ranked = rankSentences(request, questionStems);
  const best = ranked[0];

  if (isAdversarialRequest(request) && premiseUnsupported(request, best, questionStems.size))
    return NOT_MENTIONED;
  if (!best) return NOT_MENTIONED;

  const kind = questionKind(request.question);
  if (kind === 'when') {
    // Look through the best few sentences for a date; relative ones resolve against the session.
    for (const candidate of ranked.slice(0, 3)) {
      const base = parseIsoDate(candidate.memory.sessionDateTime);
      const mention =
        findDateMentions(candidate.sentence, base)[0] ??
        findDateMentions(candidate.memory.text, base)[0];
      if (mention) return mention.answer;
    }
    const base = parseIsoDate(best.memory.sessionDateTime);
    return base ? formatDay(base) : novelSpan(best.sentence, questionStems);
  }
  if (kind === 'how-many') {
    const number = /\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twice|once)\b/i.exec(
      best.sentence,
    );
    if (number) return number[1]!;
  }
  if (kind === 'yes-no') {
    return /\b(not|never|no|don't|didn't|doesn't|isn't|wasn't|won't|can't)\b/i.test(best.sentence)
      ? 'No'
      : 'Yes';
  }
  const questionWords = new Set([...questionStems, ...[...speakerNames].map((s) => porterStem(s))]);
  return novelSpan(best.sentence, questionWords);
}

/** Everything of a request that `extractiveAnswer` reads, as one string. */
function answerKey(request: AnswerRequest): string {
  return JSON.stringify([
    request.question,
    request.speakers,
    isAdversarialRequest(request),
    request.memories.slice(0, MEMORIES_READ).map((m) => [m.text, m.speaker, m.sessionDateTime]),
  ]);
}

export class ExtractiveAnswerer implements Answerer {
  readonly name = 'extractive-v1';
  /**
   * Answers by what they were worked out from: a question re-asked at a later test often
   * retrieves the same memories, and the answer is a pure function of them.
   */
  private readonly answers = new BoundedCache<string>(10_000);

  async answer(request: AnswerRequest): Promise<AnswerResult> {
    const key = answerKey(request);
    let answer = this.answers.get(key);
    if (answer === undefined) {
      answer = extractiveAnswer(request);
      this.answers.set(key, answer);
    }
    // It reads the retrieved texts alone, one per line.
    return {
      answer,
      memoryTokens: memoryTokensOfLines(request.memories.map((m) => m.text)),
    };
  }
}
