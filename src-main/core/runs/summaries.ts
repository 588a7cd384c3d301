import { z } from 'zod';
import { WorkbenchError } from '../../../src-shared/errors';
import { summarizeAnswers, type RunSummary } from '../../../src-shared/experiment';
import type { SqliteDatabase } from '../sqlite';
import { readFinalAnswers, runProfile } from './answerRows';
import { parseStoredJson } from './stored';

/**
 * A run's summary is stored, not recomputed (DESIGN §7): `runs.summary` holds it as JSON, written
 * when the run stops and after a rescore, cleared (NULL) by any write that changes its answers or
 * scores, so a list never shows a stale one and never computes one.
 */

const MetricMeanSchema = z.object({
  mean: z.number().nullable(),
  n: z.number(),
  std: z.number().nullable().optional(),
  repeats: z.number().optional(),
});
const ScorePairSchema = z.intersection(
  z.record(z.string(), MetricMeanSchema),
  z.object({
    judge: z.object({
      mean: z.number().nullable(),
      n: z.number(),
      std: z.number().nullable(),
      repeats: z.number(),
    }),
  }),
);
/**
 * The key LoCoMo summaries stored their headline subset under before every benchmark had the one
 * key `answerable` (Mem0's categories 1-4). Such a summary still reads: its pair is `answerable`.
 */
const LEGACY_ANSWERABLE_KEY = 'categories1to4';

/** A stored overall, its legacy key read as `answerable` (a current key wins). */
function withAnswerableKey(overall: unknown): unknown {
  if (typeof overall !== 'object' || overall === null || !(LEGACY_ANSWERABLE_KEY in overall)) {
    return overall;
  }
  const { [LEGACY_ANSWERABLE_KEY]: legacy, ...rest } = overall as Record<string, unknown>;
  return 'answerable' in rest ? rest : { ...rest, answerable: legacy };
}

// Every field of RunSummary: a key the schema left out would be stripped from a stored summary on
// read (LongMemEval's `answerable`, `abstention` and `byTask`), and one it required would refuse it.
export const RunSummarySchema = z.object({
  byCategory: z.record(z.string(), ScorePairSchema),
  byTask: z.record(z.string(), ScorePairSchema).optional(),
  bySampleMean: z.record(z.string(), ScorePairSchema).optional(),
  overall: z.preprocess(
    withAnswerableKey,
    z.object({
      all: ScorePairSchema,
      answerable: ScorePairSchema.optional(),
      abstention: ScorePairSchema.optional(),
      taskAveraged: ScorePairSchema.optional(),
    }),
  ),
  questions: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  rankingDepth: z
    .object({ scored: z.number().int().nonnegative(), lowerBound: z.number().int().nonnegative() })
    .refine((d) => d.lowerBound <= d.scored, { message: 'lowerBound is more than scored' })
    .optional(),
}) satisfies z.ZodType<RunSummary>;

/** The headline summary over a run's final answers (the one computation every path calls). */
export function computeRunSummary(db: SqliteDatabase, file: string, runId: string): RunSummary {
  const profile = runProfile(db, file, runId);
  return summarizeAnswers(readFinalAnswers(db, file, runId, profile), profile);
}

/** Computes and stores a run's summary; the caller's transaction (if any) covers both. */
export function writeRunSummary(db: SqliteDatabase, file: string, runId: string): RunSummary {
  const summary = computeRunSummary(db, file, runId);
  db.prepare('UPDATE runs SET summary = ? WHERE id = ?').run(JSON.stringify(summary), runId);
  return summary;
}

/**
 * `writeRunSummary` for paths that must not fail on one unreadable run (the backfill, marking
 * killed runs): such a run keeps no summary, and its detail view names why.
 */
export function writeRunSummaryIfReadable(db: SqliteDatabase, file: string, runId: string): void {
  try {
    writeRunSummary(db, file, runId);
  } catch (error) {
    if (!(error instanceof WorkbenchError)) throw error;
  }
}

/** Marks a run's stored summary stale: its answers or scores are changing. */
export function clearRunSummary(db: SqliteDatabase, runId: string): void {
  db.prepare('UPDATE runs SET summary = NULL WHERE id = ? AND summary IS NOT NULL').run(runId);
}

/** The stored summary column, read through its schema; null when none is stored. */
export function parseStoredSummary(
  file: string,
  runId: string,
  text: string | null,
): RunSummary | null {
  return text === null
    ? null
    : parseStoredJson(RunSummarySchema, text, `runs database ${file}: run ${runId} summary`);
}
