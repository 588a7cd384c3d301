import type { RunSummary } from './experiment';
import type { JudgeIdentity } from './judges';

/** What rescoring a stored run did (core/runs/rescore.ts; `cli rescore`, API `runs.rescore`). */

export interface RescoreSkip {
  metric: string;
  reason: string;
}

/** J of a run's final answers under one judge (`rescore --judge`), per category. */
export interface ProtocolJudgeSummary extends JudgeIdentity {
  /** sha256 of the protocol's prompt record (src-shared/runs PromptRecord). */
  promptSha256: string;
  /** Mean verdict and how many answers have one, by category id; categories without any omitted. */
  byCategory: Record<string, { mean: number; n: number }>;
  overall: { mean: number; n: number };
  /** Answers the judge gave no verdict (errors) or an unreadable reply (counted WRONG in mem0). */
  errors: number;
  unparseable: number;
}

/** What a judge protocol pass of `rescore` did. */
export interface RescoreJudgeResult extends JudgeIdentity {
  judged: number;
  errors: number;
  unparseable: number;
  calls: number;
  cacheHits: number;
  /**
   * Why the pass stopped before judging every answer (the run's circuit breaker: its judge
   * failed `maxConsecutiveFailures` answers in a row); null: it asked about every one.
   */
  stopped?: string | null;
  /** Final answers not asked about because the pass stopped. */
  notJudged?: number;
  /** The last judge error, when `errors` > 0. */
  lastError?: string | null;
}

export interface RescoreResult {
  runId: string;
  /** Metrics whose values were written. */
  metrics: string[];
  /** Metrics asked for but not rescored, each with why (a judge needs an LLM endpoint). */
  skipped: RescoreSkip[];
  /** answer_scores rows written (answers × metrics). */
  written: number;
  /** Answers of every test. */
  answers: number;
  summary: RunSummary;
  /** Present when a judge protocol was run (`judge` input): the first of `judges`. */
  judge?: RescoreJudgeResult;
  /** Every judge pass, in the order asked (`judge` first, then `judges`). */
  judges?: RescoreJudgeResult[];
}
