import {
  RUN_STATUSES,
  type ProgressEvent,
  type RunStatus,
  type RunSummary,
  type SampleStatus,
} from './experiment';
import type { RunInfo } from './runs';

/**
 * Live progress of the runs this window knows about, reduced from the engine's progress events.
 * Pure (no clock, no React) so a recorded sequence of events can be replayed in a test.
 */

/** A run's stored statuses, plus the window's own "cancel asked, not yet stopped". */
export type LiveStatus = RunStatus | 'cancelling';

export interface SampleProgress {
  sampleId: string;
  status: SampleStatus;
  packetsInserted: number;
  totalPackets: number;
  plannedTests: number;
  /** Tests committed, counting those an earlier attempt committed (resume skips them). */
  testsCommitted: number;
  /** Tests an earlier attempt committed, replayed rather than re-asked by this one. */
  skippedTests: number;
  insertErrors: number;
  answerErrors: number;
  /** Why the sample failed. */
  error: string | null;
}

/** One distinct answer error and how many answers had it. */
export interface ErrorTally {
  message: string;
  count: number;
}

/** Distinct answer error messages a run keeps (the count of every error is kept regardless). */
export const MAX_ERROR_MESSAGES = 5;

export interface RunProgress {
  runId: string;
  status: LiveStatus;
  resumed: boolean;
  /** Sample order as the run plans it. */
  sampleIds: string[];
  samples: Record<string, SampleProgress>;
  totalPackets: number;
  /** Tests this attempt will run (a resume leaves out those already committed). */
  totalTests: number;
  testsCommitted: number;
  /** Answer calls made in this attempt, over every test (a question is re-asked at each test). */
  questionsAnswered: number;
  /** Answer calls that ended in an error, in this attempt (a cancel never takes one back). */
  answerErrors: number;
  /** Inserts that failed, as the finished samples reported them. */
  insertErrors: number;
  /** The answer errors by message, first seen first, up to MAX_ERROR_MESSAGES distinct ones. */
  errorMessages: ErrorTally[];
  /** Why a cancelled run stopped (who cancelled it), when the engine said. */
  stopReason: string | null;
  /** The test in flight, for "test 3: 12/40". */
  currentTest: { sampleId: string; testIndex: number; done: number; total: number } | null;
  /** The engine's whole-run estimate at `etaAt`; null until it has a rate. */
  etaMs: number | null;
  etaAt: number | null;
  startedAt: number | null;
  lastEventAt: number | null;
  elapsedMs: number | null;
  /** Why it failed, or why it is degraded. */
  message: string | null;
  /** The final summary (run-finished). */
  summary: RunSummary | null;
  /** Joined mid-run (page reload): counts before the join are only as good as the run's info. */
  partial: boolean;
  /**
   * The engine's sequence number of the last event folded in (per run, counted by the engine);
   * null when the events came without one. Says whether a snapshot is newer than this state.
   */
  seq: number | null;
}

export type ProgressState = Readonly<Record<string, RunProgress>>;

/** A progress event as the engine broadcasts it: with its per-run sequence number. */
export interface SequencedEvent {
  event: ProgressEvent;
  seq?: number;
}

export type ProgressAction =
  | ({ type: 'event' } & SequencedEvent)
  /** Events that arrived together, folded in one step (one render for a burst). */
  | { type: 'events'; events: readonly SequencedEvent[] }
  /** The engine's own state of its runs ('experiments.live'): it replaces anything older. */
  | { type: 'snapshot'; runs: readonly RunProgress[] }
  /** The user asked to cancel; the run stops after the question in flight. */
  | { type: 'cancel-requested'; runId: string }
  /** A run seen through 'experiments.active' or 'runs.get' rather than from its first event. */
  | { type: 'seed'; info: RunInfo; last: ProgressEvent | null }
  /** The engine no longer lists the run as active and its stored status says how it ended. */
  | { type: 'settled'; info: RunInfo };

/** Every stored status but `running` is how a run ended (or stopped for now: `paused`). */
export const TERMINAL: ReadonlySet<LiveStatus> = new Set(
  RUN_STATUSES.filter((status) => status !== 'running'),
);

export function isActive(run: RunProgress): boolean {
  return !TERMINAL.has(run.status);
}

function emptyRun(runId: string): RunProgress {
  return {
    runId,
    status: 'running',
    resumed: false,
    sampleIds: [],
    samples: {},
    totalPackets: 0,
    totalTests: 0,
    testsCommitted: 0,
    questionsAnswered: 0,
    answerErrors: 0,
    insertErrors: 0,
    errorMessages: [],
    stopReason: null,
    currentTest: null,
    etaMs: null,
    etaAt: null,
    startedAt: null,
    lastEventAt: null,
    elapsedMs: null,
    message: null,
    summary: null,
    partial: false,
    seq: null,
  };
}

function emptySample(sampleId: string): SampleProgress {
  return {
    sampleId,
    status: 'pending',
    packetsInserted: 0,
    totalPackets: 0,
    plannedTests: 0,
    testsCommitted: 0,
    skippedTests: 0,
    insertErrors: 0,
    answerErrors: 0,
    error: null,
  };
}

function tally(tallies: readonly ErrorTally[], message: string): ErrorTally[] {
  const i = tallies.findIndex((t) => t.message === message);
  if (i >= 0) return tallies.map((t, j) => (j === i ? { ...t, count: t.count + 1 } : t));
  return tallies.length < MAX_ERROR_MESSAGES ? [...tallies, { message, count: 1 }] : [...tallies];
}

function withSample(
  run: RunProgress,
  sampleId: string,
  update: (s: SampleProgress) => SampleProgress,
): RunProgress {
  const before = run.samples[sampleId] ?? emptySample(sampleId);
  return {
    ...run,
    sampleIds: run.sampleIds.includes(sampleId) ? run.sampleIds : [...run.sampleIds, sampleId],
    samples: { ...run.samples, [sampleId]: update(before) },
  };
}

function applyEvent(run: RunProgress, event: ProgressEvent): RunProgress {
  const at = { lastEventAt: event.at };
  switch (event.type) {
    case 'run-started': {
      // A resume starts a fresh attempt: the counters restart, the samples are re-announced,
      // and the samples an earlier attempt finished stay on the card as done.
      const fresh = emptyRun(event.runId);
      const finished = event.finished ?? [];
      return {
        ...fresh,
        ...at,
        resumed: event.resumed,
        sampleIds: [...finished.map((s) => s.sampleId), ...event.samples],
        samples: Object.fromEntries([
          ...finished.map((s): [string, SampleProgress] => [
            s.sampleId,
            {
              ...emptySample(s.sampleId),
              status: 'completed',
              totalPackets: s.totalPackets,
              packetsInserted: s.totalPackets,
              plannedTests: s.plannedTests,
              testsCommitted: s.plannedTests,
              skippedTests: s.plannedTests,
            },
          ]),
          ...event.samples.map((id) => [id, emptySample(id)]),
        ]),
        totalPackets: event.totalPackets + finished.reduce((sum, s) => sum + s.totalPackets, 0),
        totalTests: event.totalTests,
        startedAt: event.at,
      };
    }
    case 'sample-started':
      return {
        ...withSample(run, event.sampleId, (s) => ({
          ...s,
          status: 'running',
          totalPackets: event.totalPackets,
          plannedTests: event.plannedTests,
          testsCommitted: event.skippedTests,
          skippedTests: event.skippedTests,
          packetsInserted: 0,
        })),
        ...at,
      };
    case 'packet':
      return {
        ...withSample(run, event.sampleId, (s) => ({
          ...s,
          status: s.status === 'pending' ? 'running' : s.status,
          packetsInserted: Math.max(s.packetsInserted, event.inserted),
          totalPackets: event.total,
        })),
        ...at,
        // Keep the last estimate rather than blanking it on a packet that has none.
        etaMs: event.etaMs ?? run.etaMs,
        etaAt: event.etaMs === null ? run.etaAt : event.at,
      };
    case 'test-started':
      return {
        ...run,
        ...at,
        currentTest: {
          sampleId: event.sampleId,
          testIndex: event.testIndex,
          done: 0,
          total: event.questions,
        },
      };
    case 'question-answered':
      return {
        ...withSample(run, event.sampleId, (s) => ({
          ...s,
          answerErrors: s.answerErrors + (event.error ? 1 : 0),
        })),
        ...at,
        questionsAnswered: run.questionsAnswered + 1,
        answerErrors: run.answerErrors + (event.error ? 1 : 0),
        errorMessages:
          event.error && event.errorMessage !== undefined
            ? tally(run.errorMessages, event.errorMessage)
            : run.errorMessages,
        currentTest: {
          sampleId: event.sampleId,
          testIndex: event.testIndex,
          done: event.done,
          total: event.total,
        },
      };
    case 'test-committed':
      return {
        ...withSample(run, event.sampleId, (s) => ({
          ...s,
          // Test indices run 0..planned-1 in order, so the index says how many are committed
          // even when this window missed an event.
          testsCommitted: Math.max(s.testsCommitted + 1, event.testIndex + 1),
        })),
        ...at,
        testsCommitted: run.testsCommitted + 1,
        currentTest: null,
      };
    case 'sample-finished': {
      const before = run.samples[event.sampleId];
      // A cancelled or failed sample reports no counts: the errors already seen stay counted.
      const insertErrors = Math.max(before?.insertErrors ?? 0, event.insertErrors);
      return {
        ...withSample(run, event.sampleId, (s) => ({
          ...s,
          status: event.status,
          insertErrors,
          answerErrors: Math.max(s.answerErrors, event.answerErrors),
          error: event.error ?? s.error,
          packetsInserted: event.status === 'completed' ? s.totalPackets : s.packetsInserted,
        })),
        ...at,
        insertErrors: run.insertErrors - (before?.insertErrors ?? 0) + insertErrors,
      };
    }
    case 'run-finished':
      return {
        ...run,
        ...at,
        status: event.status ?? 'completed',
        message: event.message ?? null,
        summary: event.summary,
        elapsedMs: event.elapsedMs,
        etaMs: 0,
        etaAt: event.at,
        currentTest: null,
      };
    case 'run-cancelled':
      return {
        ...run,
        ...at,
        status: 'cancelled',
        elapsedMs: event.elapsedMs,
        stopReason: event.reason ?? null,
        currentTest: null,
      };
    case 'run-failed':
    case 'run-paused':
      return {
        ...run,
        ...at,
        status: event.type === 'run-paused' ? 'paused' : 'failed',
        message: event.message,
        elapsedMs: event.elapsedMs,
        currentTest: null,
      };
  }
}

/** A run first seen mid-way (reload) or after it ended: its stored info stands in for the events. */
function fromInfo(info: RunInfo, previous: RunProgress | undefined): RunProgress {
  const base = previous ?? emptyRun(info.id);
  const samples: Record<string, SampleProgress> = {};
  for (const s of info.sampleInfo) {
    const before = base.samples[s.sampleId];
    const done = s.status === 'completed';
    samples[s.sampleId] = {
      sampleId: s.sampleId,
      status: s.status,
      totalPackets: s.totalPackets,
      plannedTests: s.plannedTests,
      packetsInserted: Math.max(before?.packetsInserted ?? 0, done ? s.totalPackets : 0),
      testsCommitted: Math.max(before?.testsCommitted ?? 0, s.testsCommitted),
      skippedTests: before?.skippedTests ?? 0,
      insertErrors: s.insertErrors,
      answerErrors: before?.answerErrors ?? 0,
      error: s.error ?? before?.error ?? null,
    };
  }
  const sampleIds = info.sampleInfo.map((s) => s.sampleId);
  const list = sampleIds.map((id) => samples[id]).filter((s) => s !== undefined);
  return {
    ...base,
    status: info.status === 'running' && base.status === 'cancelling' ? 'cancelling' : info.status,
    sampleIds,
    samples,
    totalPackets: list.reduce((sum, s) => sum + s.totalPackets, 0),
    totalTests: Math.max(
      base.totalTests,
      list.reduce((sum, s) => sum + s.plannedTests, 0),
    ),
    testsCommitted: Math.max(
      base.testsCommitted,
      list.reduce((sum, s) => sum + s.testsCommitted, 0),
    ),
    answerErrors: Math.max(base.answerErrors, info.answerErrors),
    insertErrors: Math.max(base.insertErrors, info.insertErrors),
    startedAt: base.startedAt ?? Date.parse(info.createdAt),
    message: info.error ?? base.message,
    partial: previous === undefined || previous.partial,
  };
}

/**
 * Events a run sends only while it runs and that add to a count; after the run ended they are
 * late and already counted. ('sample-finished' takes maxima, so folding it late is harmless and
 * keeps the sample's answer errors, which the stored info has not.)
 */
const MID_RUN_EVENTS: ReadonlySet<ProgressEvent['type']> = new Set([
  'sample-started',
  'packet',
  'test-started',
  'question-answered',
  'test-committed',
]);

/**
 * One event folded into its run. Skipped: an event a snapshot already covered (by seq), and a
 * mid-run event of a run already ended — the engine sends its ending last, so such an event was
 * overtaken by a stored ending ('settled') that counts it already (the "6 / 6 of 5" race).
 */
function foldEvent(state: ProgressState, { event, seq }: SequencedEvent): ProgressState {
  const before = state[event.runId] ?? emptyRun(event.runId);
  if (seq !== undefined && before.seq !== null && seq <= before.seq) return state;
  if (!isActive(before) && MID_RUN_EVENTS.has(event.type)) return state;
  let next = applyEvent(before, event);
  // A cancel stays "cancelling" through the events of the question still in flight.
  if (before.status === 'cancelling' && next.status === 'running') {
    next = { ...next, status: 'cancelling' };
  }
  return { ...state, [event.runId]: { ...next, seq: seq ?? before.seq } };
}

export function reduceProgress(state: ProgressState, action: ProgressAction): ProgressState {
  switch (action.type) {
    case 'event':
      return foldEvent(state, action);
    case 'events': {
      let next = state;
      for (const sequenced of action.events) next = foldEvent(next, sequenced);
      return next;
    }
    case 'snapshot': {
      let next = state;
      for (const run of action.runs) {
        const known = next[run.runId];
        // What this window folded in itself is as new as the snapshot or newer.
        if (known && known.seq !== null && run.seq !== null && known.seq >= run.seq) continue;
        const status =
          known?.status === 'cancelling' && run.status === 'running' ? 'cancelling' : run.status;
        next = { ...next, [run.runId]: { ...run, status, partial: false } };
      }
      return next;
    }
    case 'cancel-requested': {
      const run = state[action.runId];
      if (!run || !isActive(run)) return state;
      return { ...state, [action.runId]: { ...run, status: 'cancelling' } };
    }
    case 'seed': {
      // Only fills in a run this window has not heard of: events already seen say more, and a
      // stored info fetched a moment ago may be older than the last event.
      const known = state[action.info.id];
      if (known && (!isActive(known) || known.sampleIds.length > 0)) return state;
      const seeded = fromInfo(action.info, state[action.info.id]);
      const next = action.last ? applyEvent(seeded, action.last) : seeded;
      return { ...state, [action.info.id]: next };
    }
    case 'settled': {
      const run = state[action.info.id];
      // Events said more than the stored info can (e.g. the summary); only the status is news.
      if (run && !isActive(run)) return state;
      return { ...state, [action.info.id]: fromInfo(action.info, run) };
    }
  }
}

/**
 * Share of the run done, 0..1: packets and tests both count, since after the last packet a run
 * can still spend most of its time answering. Run-level totals are used because a sample that has
 * not started yet has announced nothing. A finished run is 1 whatever was skipped.
 */
export function overallFraction(run: RunProgress): number {
  if (run.status === 'completed') return 1;
  // Tests an earlier attempt committed (resume) are done work too: the card does not restart at 0.
  let skipped = 0;
  for (const id of run.sampleIds) skipped += run.samples[id]?.skippedTests ?? 0;
  const total = run.totalPackets + run.totalTests + skipped;
  if (total === 0) return 0;
  const done = Math.min(totalPacketsInserted(run), run.totalPackets) + run.testsCommitted + skipped;
  return Math.min(1, done / total);
}

/** Tests committed over planned, counting tests an earlier attempt committed (resume). */
export function testCounts(run: RunProgress): { done: number; total: number } {
  let done = 0;
  let skipped = 0;
  for (const id of run.sampleIds) {
    const s = run.samples[id];
    if (!s) continue;
    done += s.testsCommitted;
    skipped += s.skippedTests;
  }
  return { done, total: Math.max(done, run.totalTests + skipped) };
}

export function totalPacketsInserted(run: RunProgress): number {
  let n = 0;
  for (const id of run.sampleIds) n += run.samples[id]?.packetsInserted ?? 0;
  return n;
}

/** The engine's estimate, aged by the time since it was made; null when there is none. */
export function remainingMs(run: RunProgress, now: number): number | null {
  if (!isActive(run)) return null;
  if (run.etaMs === null || run.etaAt === null) return null;
  return Math.max(0, run.etaMs - (now - run.etaAt));
}

/** Runs newest first: the one just started is the one the user looks for. */
export function runsNewestFirst(state: ProgressState): RunProgress[] {
  return Object.values(state).sort(
    (a, b) => (b.startedAt ?? 0) - (a.startedAt ?? 0) || (a.runId < b.runId ? 1 : -1),
  );
}
