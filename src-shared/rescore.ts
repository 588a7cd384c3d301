import type { RunSummary } from './experiment';

/** What rescoring a stored run did (core/runs/rescore.ts; `cli rescore`, API `runs.rescore`). */

export interface RescoreSkip {
  metric: string;
  reason: string;
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
}
