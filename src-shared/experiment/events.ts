import type { SampleStatus } from './status';
import type { RunSummary } from './summaries';

/** The progress events a run emits, in the order a run emits them. */

interface EventBase {
  runId: string;
  /** Epoch milliseconds. */
  at: number;
}

export type ProgressEvent =
  | (EventBase & {
      type: 'run-started';
      samples: string[];
      totalPackets: number;
      totalTests: number;
      resumed: boolean;
      /** A resume's samples an earlier attempt finished: not run again, still part of the run. */
      finished?: Array<{ sampleId: string; totalPackets: number; plannedTests: number }>;
    })
  | (EventBase & {
      type: 'sample-started';
      sampleId: string;
      totalPackets: number;
      plannedTests: number;
      /** Tests already committed by an earlier attempt (resume): replayed, not re-answered. */
      skippedTests: number;
    })
  | (EventBase & {
      type: 'packet';
      sampleId: string;
      inserted: number;
      total: number;
      /** Whole-run estimate, from packets done so far; null until there is a rate. */
      etaMs: number | null;
    })
  | (EventBase & {
      type: 'test-started';
      sampleId: string;
      testIndex: number;
      questions: number;
    })
  | (EventBase & {
      type: 'question-answered';
      sampleId: string;
      testIndex: number;
      questionIndex: number;
      done: number;
      total: number;
      error: boolean;
      /** The answer's error, when it has one (the circuit breaker names the last). */
      errorMessage?: string;
    })
  | (EventBase & {
      type: 'test-committed';
      sampleId: string;
      testIndex: number;
      meanF1: number | null;
      errors: number;
    })
  | (EventBase & {
      type: 'sample-finished';
      sampleId: string;
      status: SampleStatus;
      insertErrors: number;
      answerErrors: number;
      /** Why a failed sample stopped. */
      error?: string;
    })
  | (EventBase & {
      type: 'run-finished';
      summary: RunSummary;
      elapsedMs: number;
      /** `degraded` (with why) when too many final answers are errors; absent means completed. */
      status?: 'completed' | 'degraded';
      message?: string | null;
    })
  /** `reason`: who or what cancelled it (the user, the app quitting), when the canceller said. */
  | (EventBase & { type: 'run-cancelled'; elapsedMs: number; reason?: string })
  | (EventBase & { type: 'run-failed'; message: string; elapsedMs: number })
  /** The circuit breaker stopped the run (`message` says why); resume it once the endpoint works. */
  | (EventBase & { type: 'run-paused'; message: string; elapsedMs: number });

export type ProgressEventType = ProgressEvent['type'];
