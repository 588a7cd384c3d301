import { z } from 'zod';
import { isAdversarial, type BenchmarkProfile } from './benchmarks';
import type { Sample } from './dataset/types';
import { WorkbenchError } from './errors';
import {
  answerScores,
  summarizeAnswers,
  type AnswerRecord,
  type MeanN,
  type RunSummary,
} from './experiment';
import { metricList, type MetricId } from './metrics';

/**
 * Dataset errata (issue 12 item 7): known gold errors a user lists in a file (sample, question by
 * index or text, corrected answer, source). A run that applies them stores them in its manifest
 * with the file's sha256, and its scores are reported both ways: against the original gold (the
 * number comparable with papers) and against the corrected gold, plus the per-category ceiling —
 * the most any system can score against the original gold when it answers the corrected questions
 * correctly. Pure: reading the file lives in src-main/core/dataset/errata.ts.
 */

export const ErratumSchema = z
  .object({
    /** The sample id (`conv-26`). */
    sample: z.string().min(1),
    /** The question's 0-based index in the sample's qa list, or its exact text. */
    question: z.union([z.number().int().nonnegative(), z.string().min(1)]),
    /** The answer the gold should have been. */
    corrected: z.string().min(1),
    /** Who found it ("workbench review", a paper, an issue URL). */
    source: z.string().min(1),
    /** Why the gold is wrong, briefly. */
    note: z.string().optional(),
  })
  .strict();

export const ErrataFileSchema = z
  .object({
    name: z.string().min(1).optional(),
    entries: z.array(ErratumSchema).min(1, 'an errata file needs at least one entry'),
  })
  .strict();

export type ErrataFile = z.output<typeof ErrataFileSchema>;

/** An erratum resolved against the dataset (as the manifest stores it). */
export interface ResolvedErratum {
  sampleId: string;
  questionIndex: number;
  category: number;
  question: string;
  originalGold: string | null;
  corrected: string;
  source: string;
  note?: string;
}

/** What a run's manifest records about the errata it applied. */
export interface ErrataRecord {
  file: string;
  /** sha256 of the file's bytes. */
  sha256: string;
  name: string | null;
  entries: ResolvedErratum[];
}

export const ErrataRecordSchema = z
  .object({
    file: z.string(),
    sha256: z.string(),
    name: z.string().nullable(),
    entries: z.array(
      z
        .object({
          sampleId: z.string(),
          questionIndex: z.number().int().nonnegative(),
          category: z.number().int(),
          question: z.string(),
          originalGold: z.string().nullable(),
          corrected: z.string(),
          source: z.string(),
          note: z.string().optional(),
        })
        .loose(),
    ),
  })
  .loose() satisfies z.ZodType<ErrataRecord>;

/**
 * Each entry matched to its question. An entry that names no sample or question of the dataset,
 * or a question twice, is refused with the entry's path (`entries[1].question`).
 */
export function resolveErrata(
  errata: ErrataFile,
  samples: readonly Sample[],
  where: string,
): ResolvedErratum[] {
  const byId = new Map(samples.map((s) => [s.sampleId, s]));
  const seen = new Set<string>();
  return errata.entries.map((entry, i) => {
    const fail = (field: string, message: string): never => {
      throw new WorkbenchError('INVALID_INPUT', `${where}: entries[${i}].${field}: ${message}`, {
        path: ['entries', i, field],
        where,
      });
    };
    const sample = byId.get(entry.sample);
    if (!sample) return fail('sample', `no sample "${entry.sample}" in the dataset`);
    const qa =
      typeof entry.question === 'number'
        ? sample.qa.find((q) => q.index === entry.question)
        : sample.qa.find((q) => q.question.trim() === (entry.question as string).trim());
    if (!qa) {
      return fail(
        'question',
        typeof entry.question === 'number'
          ? `sample ${sample.sampleId} has no question ${entry.question} (it has ${sample.qa.length}, from 0)`
          : `sample ${sample.sampleId} has no question "${entry.question}"`,
      );
    }
    const key = `${sample.sampleId}#${qa.index}`;
    if (seen.has(key))
      fail('question', `question ${qa.index} of ${sample.sampleId} is listed twice`);
    seen.add(key);
    return {
      sampleId: sample.sampleId,
      questionIndex: qa.index,
      category: qa.category,
      question: qa.question,
      originalGold: qa.answer,
      corrected: entry.corrected,
      source: entry.source,
      ...(entry.note !== undefined ? { note: entry.note } : {}),
    };
  });
}

/** Per category (and overall under `all`): each answer metric's mean. */
export type CeilingTable = Record<string, Record<MetricId, MeanN>>;

export interface ErrataScores {
  /** Final answers that an erratum corrected. */
  applied: number;
  original: RunSummary;
  /**
   * Answer metrics recomputed against the corrected gold. The judge is not asked again: J keeps
   * its original-gold verdicts (`judgeRecomputed: false`).
   */
  corrected: RunSummary;
  judgeRecomputed: false;
  /** Max achievable against the original gold: the corrected answer given where gold is wrong. */
  ceiling: CeilingTable;
}

/** A run's errata as the read API returns it (runs.get/runs.summary): the record and its scores. */
export interface RunErrata extends ErrataRecord, ErrataScores {}

type FinalAnswer = Pick<
  AnswerRecord,
  'sampleId' | 'questionIndex' | 'category' | 'gold' | 'prediction' | 'scores' | 'judge' | 'error'
>;

/** What a perfect answerer says to a question without an erratum (adversarial: the refusal). */
const REFUSAL = 'Not mentioned in the conversation';

export function errataScores(
  answers: readonly FinalAnswer[],
  entries: readonly ResolvedErratum[],
  profile: BenchmarkProfile,
): ErrataScores {
  const byKey = new Map(entries.map((e) => [`${e.sampleId}#${e.questionIndex}`, e]));
  const answerMetrics = metricList().filter((m) => m.source === 'answer');
  let applied = 0;
  const corrected = answers.map((a) => {
    const erratum = byKey.get(`${a.sampleId}#${a.questionIndex}`);
    if (!erratum) return a;
    applied++;
    const fresh = answerScores(
      {
        prediction: a.prediction,
        gold: erratum.corrected,
        category: a.category,
        errored: a.error !== null,
      },
      profile,
    );
    const scores = { ...a.scores };
    for (const m of answerMetrics) scores[m.id] = fresh[m.id] ?? null;
    return { ...a, scores };
  });
  const ceilingRows = answers.map((a) => {
    const erratum = byKey.get(`${a.sampleId}#${a.questionIndex}`);
    // An adversarial question's best answer is the refusal whatever its gold field says (LoCoMo
    // keeps the tempting wrong answer beside it, and official scoring looks for the refusal).
    const best = erratum
      ? erratum.corrected
      : isAdversarial(profile, a.category)
        ? REFUSAL
        : (a.gold ?? REFUSAL);
    return {
      category: a.category,
      scores: answerScores({ prediction: best, gold: a.gold, category: a.category }, profile),
    };
  });
  const meansOf = (rows: typeof ceilingRows): Record<MetricId, MeanN> =>
    Object.fromEntries(
      answerMetrics.map((m) => {
        const values = rows
          .map((r) => r.scores[m.id])
          .filter((v): v is number => v !== null && v !== undefined);
        const mean = values.length === 0 ? null : values.reduce((s, v) => s + v, 0) / values.length;
        return [m.id, { mean, n: values.length }];
      }),
    );
  const ceiling: CeilingTable = { all: meansOf(ceilingRows) };
  for (const c of profile.categories) {
    ceiling[String(c.id)] = meansOf(ceilingRows.filter((r) => r.category === c.id));
  }
  const toScored = (rows: readonly FinalAnswer[]) =>
    rows.map((a) => ({
      category: a.category,
      scores: a.scores,
      error: a.error,
      judge: a.judge ? { labels: a.judge.labels } : null,
    }));
  return {
    applied,
    original: summarizeAnswers(toScored(answers), profile),
    corrected: summarizeAnswers(toScored(corrected), profile),
    judgeRecomputed: false,
    ceiling,
  };
}
