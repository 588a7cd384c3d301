import type { RunSummary } from './summaries';

/** How a run stands: its statuses, how one that ran its course ends, and the time it has left. */

/**
 * `degraded`: the run finished, but more than `maxErrorShare` of its final answers are errors; its
 * scores measure the endpoint's failures more than the memory. A run whose every final answer is
 * an error ends `failed`. `paused`: the circuit breaker stopped it (its endpoint kept failing);
 * committed tests stay and it resumes once the endpoint is fixed.
 */
export const RUN_STATUSES = [
  'running',
  'completed',
  'degraded',
  'cancelled',
  'failed',
  'interrupted',
  'paused',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const SAMPLE_STATUSES = ['pending', 'running', 'completed', 'cancelled', 'failed'] as const;
export type SampleStatus = (typeof SAMPLE_STATUSES)[number];

/**
 * How a run that ran its course ends, from its final answers: `failed` when every one is an error
 * (e.g. a wrong API key), `degraded` when more than `maxErrorShare` are, else `completed`.
 */
export function finishedStatus(
  summary: Pick<RunSummary, 'questions' | 'errors'>,
  maxErrorShare: number,
): { status: 'completed' | 'degraded' | 'failed'; message: string | null } {
  const { questions, errors } = summary;
  if (questions === 0 || errors === 0) return { status: 'completed', message: null };
  const percent = (share: number): string => `${Math.round(share * 1000) / 10}%`;
  if (errors === questions) {
    return {
      status: 'failed',
      message: `every final answer is an error (${errors} of ${questions})`,
    };
  }
  if (errors / questions > maxErrorShare) {
    return {
      status: 'degraded',
      message: `${errors} of ${questions} final answers are errors (${percent(errors / questions)}, more than maxErrorShare ${percent(maxErrorShare)})`,
    };
  }
  return { status: 'completed', message: null };
}

/** Remaining time from the share of work done; null before anything is done. */
export function estimateRemainingMs(elapsedMs: number, done: number, total: number): number | null {
  if (done <= 0 || total <= 0 || elapsedMs <= 0) return null;
  if (done >= total) return 0;
  return Math.round((elapsedMs / done) * (total - done));
}
