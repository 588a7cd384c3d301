/**
 * The judge audit (issue 37 item 3): answers whose truth is known without a person, built from a
 * benchmark's own questions, so any judge can be asked about them and its acceptance rates
 * measured. Pure and deterministic for a seed: the same questions and seed give the same set.
 * The runs DB stores a set once (core/runs/judgeAudit.ts) and every judge's verdicts on it.
 */
import { z } from 'zod';
import { endpointOrigin, type JudgeIdentity as RunJudgeIdentity } from './judges';
import { MONTH_NAMES } from './calendar';
import { mulberry32, randomInt, type Rng } from './scoring/stats';
import { wilsonInterval, type Proportion } from './scoring/judgeError';
import type { Verdict } from './scoring/agreement';

/**
 * The answer classes, in the order reports list them. Only `gold` is correct; every other class
 * is wrong by construction, so the ideal judge accepts 100% of the first row and 0% of the rest.
 */
export const AUDIT_ANSWER_CLASSES = {
  gold: { expected: 'correct', help: 'the gold answer itself' },
  'other-gold': {
    expected: 'wrong',
    help: 'the gold answer of another question of the same conversation',
  },
  vague: { expected: 'wrong', help: 'a vague answer that names no fact' },
  hedge: {
    expected: 'wrong',
    help: 'the gold and another question’s gold offered as alternatives, without choosing',
  },
  verbose: {
    expected: 'wrong',
    help: 'the gold among wrong claims (other questions’ golds asserted as facts)',
  },
  'wrong-date': {
    expected: 'wrong',
    help: 'the gold with its date changed (only where the gold has a year or a month)',
  },
} as const satisfies Record<string, { expected: Verdict; help: string }>;

export type AuditAnswerClass = keyof typeof AUDIT_ANSWER_CLASSES;
export const AUDIT_ANSWER_CLASS_IDS = Object.keys(AUDIT_ANSWER_CLASSES) as AuditAnswerClass[];
export const AuditAnswerClassSchema = z.enum(
  AUDIT_ANSWER_CLASS_IDS as [AuditAnswerClass, ...AuditAnswerClass[]],
);

/** Bumped when a builder changes what it writes: a set's id includes it, so old sets stay valid. */
export const AUDIT_BUILDER_VERSION = 1;
/** Questions drawn per category when the caller does not say (LoCoMo 1-4: 200 questions). */
export const DEFAULT_AUDIT_QUESTIONS_PER_CATEGORY = 50;
export const DEFAULT_AUDIT_SEED = 0;

/** A benchmark question the audit may use: it has a gold answer the judge metric scores. */
export interface AuditQuestion {
  sampleId: string;
  questionIndex: number;
  category: number;
  question: string;
  gold: string;
}

export interface AuditItem {
  sampleId: string;
  questionIndex: number;
  category: number;
  answerClass: AuditAnswerClass;
  question: string;
  gold: string;
  answer: string;
  expected: Verdict;
}

/** Answers that commit to no fact at all (the `vague` class). */
const VAGUE_ANSWERS = [
  'They talked about that at some point in the conversation.',
  'It was something that came up between them.',
  'That was mentioned, but the details are not clear.',
  'It depends on how you read what they discussed.',
] as const;

// The month names LoCoMo's gold answers use: calendar.ts owns them.
const MONTHS = MONTH_NAMES;

const YEAR = /\b(1[89]\d\d|20\d\d)\b/g;
const MONTH = new RegExp(`\\b(${MONTHS.join('|')})\\b`, 'gi');

/**
 * The gold with its date moved, or null when it names no year and no month: every year shifted by
 * the same ±1 or ±2, else every month name moved by 1 to 11 months. The rest (the entity) stays.
 */
export function withWrongDate(gold: string, rng: Rng): string | null {
  if (gold.match(YEAR)) {
    const shifts = [-2, -1, 1, 2];
    const shift = shifts[randomInt(rng, shifts.length)] as number;
    return gold.replace(YEAR, (year) => String(Number(year) + shift));
  }
  if (gold.match(MONTH)) {
    const shift = 1 + randomInt(rng, 11);
    return gold.replace(MONTH, (name) => {
      const index = MONTHS.findIndex((m) => m.toLowerCase() === name.toLowerCase());
      return MONTHS[(index + shift) % 12] as string;
    });
  }
  return null;
}

/** Lower-cased, single-spaced: two golds that differ only so are the same answer. */
const normal = (text: string): string => text.toLowerCase().replace(/\s+/g, ' ').trim();

/** A gold as a clause inside a sentence: its closing punctuation dropped ("children." → "children"). */
const clause = (text: string): string => text.trim().replace(/[\s.;,!?]+$/, '');

/** Fisher-Yates on a copy, from `rng`. */
function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(rng, i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/**
 * Up to `perCategory` questions of each category, drawn at random (seeded), kept in dataset order.
 */
export function sampleAuditQuestions(
  questions: readonly AuditQuestion[],
  perCategory: number,
  seed: number,
): AuditQuestion[] {
  const rng = mulberry32(seed);
  const byCategory = new Map<number, number[]>();
  questions.forEach((q, i) =>
    byCategory.set(q.category, [...(byCategory.get(q.category) ?? []), i]),
  );
  const kept = new Set<number>();
  for (const category of [...byCategory.keys()].sort((a, b) => a - b)) {
    for (const i of shuffled(byCategory.get(category) ?? [], rng).slice(0, perCategory))
      kept.add(i);
  }
  return questions.filter((_, i) => kept.has(i));
}

/**
 * The audit answers for `questions` (all of them: sample first with sampleAuditQuestions). Other
 * golds come from the same conversation (`pool`: every usable question of the dataset, so a drawn
 * question's distractors need not be drawn themselves) and never equal or contain this gold. A
 * class that cannot be built for a question (no other gold, no date) is left out for it, and
 * within a question no two classes give the same text.
 */
export function buildAuditItems(
  questions: readonly AuditQuestion[],
  pool: readonly AuditQuestion[],
  seed: number,
): AuditItem[] {
  const rng = mulberry32(seed ^ 0x5eed);
  const goldsBySample = new Map<string, string[]>();
  for (const q of pool) {
    const golds = goldsBySample.get(q.sampleId) ?? [];
    if (!golds.some((g) => normal(g) === normal(q.gold))) golds.push(q.gold);
    goldsBySample.set(q.sampleId, golds);
  }
  const items: AuditItem[] = [];
  for (const q of questions) {
    const gold = normal(q.gold);
    const others = shuffled(
      (goldsBySample.get(q.sampleId) ?? []).filter((g) => {
        const other = normal(g);
        return other !== gold && !other.includes(gold) && !gold.includes(other);
      }),
      rng,
    );
    const [first, second] = others;
    const candidates: Array<[AuditAnswerClass, string | null]> = [
      ['gold', q.gold],
      ['other-gold', first ?? null],
      ['vague', VAGUE_ANSWERS[randomInt(rng, VAGUE_ANSWERS.length)] as string],
      [
        'hedge',
        first === undefined
          ? null
          : rng() < 0.5
            ? `It might be ${clause(q.gold)}, or maybe ${clause(first)}; I can't say which.`
            : `It might be ${clause(first)}, or maybe ${clause(q.gold)}; I can't say which.`,
      ],
      [
        'verbose',
        first === undefined
          ? null
          : `From what they said: ${clause(first)}. They also mentioned ${clause(q.gold)}.` +
            (second === undefined ? '' : ` And above all, ${clause(second)}.`),
      ],
      ['wrong-date', withWrongDate(q.gold, rng)],
    ];
    const seen = new Set<string>();
    for (const [answerClass, answer] of candidates) {
      if (answer === null || seen.has(normal(answer))) continue;
      seen.add(normal(answer));
      items.push({
        sampleId: q.sampleId,
        questionIndex: q.questionIndex,
        category: q.category,
        answerClass,
        question: q.question,
        gold: q.gold,
        answer,
        expected: AUDIT_ANSWER_CLASSES[answerClass].expected,
      });
    }
  }
  return items;
}

// ---- the judge's identity ----

/**
 * Who judged an audit: a run judge's identity (src-shared/judges.ts) without its repeats, since an
 * audit set's verdicts are per repeat. Verdicts are keyed by it, so two servers of one model, or
 * two prompts on one server, are different judges.
 */
export const JudgeIdentitySchema = z
  .object({
    protocol: z.string().min(1),
    model: z.string().min(1),
    origin: z.string().min(1),
  })
  .strict();
export type JudgeIdentity = Omit<RunJudgeIdentity, 'repeats'>;

/** A judge's identity from its protocol name, model and base URL (whose origin is kept). */
export function judgeIdentityOf(judge: {
  protocol: string;
  model: string;
  baseUrl: string;
}): JudgeIdentity {
  return { protocol: judge.protocol, model: judge.model, origin: endpointOrigin(judge.baseUrl) };
}

export function judgeIdentityLabel(identity: JudgeIdentity): string {
  return `${identity.protocol} · ${identity.model} @ ${identity.origin}`;
}

// ---- acceptance tables ----

/** A judge's verdict on one audit item: accepted when most repeats said CORRECT (ties are not). */
export interface AuditVerdict {
  itemIndex: number;
  /** Null: the judge gave no verdict (an error); left out of the rates. */
  accepted: boolean | null;
}

export interface AcceptanceCell extends Proportion {
  answerClass: AuditAnswerClass;
  /** Null on a class's overall row. */
  category: number | null;
}

export interface AcceptanceTable {
  /** One row per class present, in AUDIT_ANSWER_CLASS_IDS order, over every category. */
  byClass: AcceptanceCell[];
  /** Class × category, categories ascending. */
  byClassAndCategory: AcceptanceCell[];
  /** Acceptance over every known-wrong item: the judge's false-acceptance rate. */
  falseAcceptance: Proportion;
  /** Acceptance of the gold answers: the judge's true-acceptance rate. */
  trueAcceptance: Proportion;
  /** Items without a verdict (judge errors), left out above. */
  missing: number;
}

/**
 * How often a judge accepts each class, per category, with Wilson intervals (each item one
 * trial; an audit's items are built independently, a question's classes are different answers).
 */
export function acceptanceTable(
  items: readonly AuditItem[],
  verdicts: readonly AuditVerdict[],
  confidence = 0.95,
): AcceptanceTable {
  const accepted = new Map<number, boolean>();
  let missing = 0;
  for (const v of verdicts) {
    if (v.accepted === null) missing++;
    else accepted.set(v.itemIndex, v.accepted);
  }
  const tally = new Map<string, { successes: number; n: number }>();
  const add = (key: string, yes: boolean) => {
    const t = tally.get(key) ?? { successes: 0, n: 0 };
    t.n++;
    if (yes) t.successes++;
    tally.set(key, t);
  };
  const categories = new Set<number>();
  items.forEach((item, index) => {
    const yes = accepted.get(index);
    if (yes === undefined) return;
    categories.add(item.category);
    add(item.answerClass, yes);
    add(`${item.answerClass}\u0000${item.category}`, yes);
    add(item.expected === 'wrong' ? '\u0000wrong' : '\u0000correct', yes);
  });
  const proportion = (key: string): Proportion => {
    const t = tally.get(key) ?? { successes: 0, n: 0 };
    return wilsonInterval(t.successes, t.n, confidence);
  };
  const byClass: AcceptanceCell[] = [];
  const byClassAndCategory: AcceptanceCell[] = [];
  const sortedCategories = [...categories].sort((a, b) => a - b);
  for (const answerClass of AUDIT_ANSWER_CLASS_IDS) {
    if (!tally.has(answerClass)) continue;
    byClass.push({ answerClass, category: null, ...proportion(answerClass) });
    for (const category of sortedCategories) {
      const key = `${answerClass}\u0000${category}`;
      if (tally.has(key)) byClassAndCategory.push({ answerClass, category, ...proportion(key) });
    }
  }
  return {
    byClass,
    byClassAndCategory,
    falseAcceptance: proportion('\u0000wrong'),
    trueAcceptance: proportion('\u0000correct'),
    missing,
  };
}

/**
 * How a headline names its judge's measured error (issue 37 item 4), one wording for every
 * surface: "judge accepts 8% [5%, 12%] of known-wrong answers (audit, n = 940)". Null when the
 * audit has no known-wrong verdict for the judge.
 */
/** Where a judge's measured false-acceptance rate comes from (see judgePanel.ts). */
export type MeasuredErrorSource = 'audit' | 'human';

const MEASURED_ERROR_WORDS: Record<MeasuredErrorSource, { of: string; by: string }> = {
  audit: { of: 'known-wrong answers', by: 'audit' },
  human: { of: 'answers people labelled wrong', by: 'human labels' },
};

export function judgeErrorPhrase(
  falseAcceptance: Proportion,
  source: MeasuredErrorSource = 'audit',
): string | null {
  if (falseAcceptance.n === 0) return null;
  const pct = (x: number): string => `${Math.round(100 * x)}%`;
  const words = MEASURED_ERROR_WORDS[source];
  return (
    `judge accepts ${pct(falseAcceptance.estimate)} [${pct(falseAcceptance.low)}, ` +
    `${pct(falseAcceptance.high)}] of ${words.of} (${words.by}, n = ${falseAcceptance.n})`
  );
}
