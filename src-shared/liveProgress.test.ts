import { describe, expect, it } from 'vitest';
import { LOCOMO_PROFILE } from './benchmarks';
import { summarizeAnswers, type ProgressEvent } from './experiment';
import type { RunInfo } from './runs';
import {
  isActive,
  MAX_ERROR_MESSAGES,
  overallFraction,
  reduceProgress,
  remainingMs,
  testCounts,
  totalPacketsInserted,
  type ProgressAction,
  type ProgressState,
} from './liveProgress';

const R = 'run-1';
const ev = (e: ProgressEvent): ProgressAction => ({ type: 'event', event: e });

/** Two samples, run one after the other: a has 2 packets and 2 tests, b has 1 packet and 1 test. */
const START: ProgressAction[] = [
  ev({
    type: 'run-started',
    runId: R,
    at: 1000,
    samples: ['a', 'b'],
    totalPackets: 3,
    totalTests: 3,
    resumed: false,
  }),
  ev({
    type: 'sample-started',
    runId: R,
    at: 1001,
    sampleId: 'a',
    totalPackets: 2,
    plannedTests: 2,
    skippedTests: 0,
  }),
  ev({ type: 'packet', runId: R, at: 1100, sampleId: 'a', inserted: 1, total: 2, etaMs: 5000 }),
  ev({ type: 'test-started', runId: R, at: 1101, sampleId: 'a', testIndex: 0, questions: 2 }),
  ev({
    type: 'question-answered',
    runId: R,
    at: 1150,
    sampleId: 'a',
    testIndex: 0,
    questionIndex: 0,
    done: 1,
    total: 2,
    error: false,
  }),
  ev({
    type: 'question-answered',
    runId: R,
    at: 1160,
    sampleId: 'a',
    testIndex: 0,
    questionIndex: 3,
    done: 2,
    total: 2,
    error: true,
  }),
  ev({
    type: 'test-committed',
    runId: R,
    at: 1170,
    sampleId: 'a',
    testIndex: 0,
    meanF1: 0.5,
    errors: 1,
  }),
];

function replay(actions: ProgressAction[], state: ProgressState = {}): ProgressState {
  return actions.reduce(reduceProgress, state);
}

function info(partial: Partial<RunInfo>): RunInfo {
  return {
    id: R,
    status: 'running',
    preset: 'hybrid',
    datasetPath: '/x.json',
    datasetSha256: null,
    samples: 2,
    sampleIds: ['a', 'b'],
    createdAt: '2025-01-01T00:00:00.000Z',
    endedAt: null,
    insertErrors: 0,
    answerErrors: 0,
    resumes: 0,
    name: '',
    tags: [],
    notes: '',
    topK: 10,
    seed: 42,
    answerer: 'extractive-v1',
    judgeProtocol: null,
    questions: 0,
    summary: null,
    pid: null,
    error: null,
    sampleInfo: [],
    manifest: {} as RunInfo['manifest'],
    ...partial,
  };
}

function sampleInfo(sampleId: string, extra: Partial<RunInfo['sampleInfo'][number]>) {
  return {
    sampleId,
    totalPackets: 2,
    totalQuestions: 4,
    threshold: 1,
    plannedTests: 2,
    status: 'pending' as const,
    testsCommitted: 0,
    insertErrors: 0,
    insertErrorMessages: [],
    notes: [],
    error: null,
    startedAt: null,
    endedAt: null,
    ...extra,
  };
}

describe('reduceProgress', () => {
  it('counts packets, answers, errors and tests as the events arrive', () => {
    const run = replay(START)[R]!;
    expect(run.status).toBe('running');
    expect(run.sampleIds).toEqual(['a', 'b']);
    expect(run.samples.a).toMatchObject({ packetsInserted: 1, totalPackets: 2, testsCommitted: 1 });
    // b has not started: it is pending and has announced nothing yet.
    expect(run.samples.b).toMatchObject({ status: 'pending', totalPackets: 0 });
    expect(run.questionsAnswered).toBe(2);
    expect(run.answerErrors).toBe(1);
    expect(run.currentTest).toBeNull();
    expect(testCounts(run)).toEqual({ done: 1, total: 3 });
    // 1 packet + 1 test of 3 packets + 3 tests.
    expect(overallFraction(run)).toBeCloseTo(2 / 6);
    expect(run.etaMs).toBe(5000);
    // The estimate ages with the clock and never goes below zero.
    expect(remainingMs(run, 3100)).toBe(3000);
    expect(remainingMs(run, 99_000)).toBe(0);
  });

  it('tracks the test in flight', () => {
    const run = replay(START.slice(0, 5))[R]!;
    expect(run.currentTest).toEqual({ sampleId: 'a', testIndex: 0, done: 1, total: 2 });
  });

  it('keeps the last estimate when a packet carries none', () => {
    const run = replay([
      ...START,
      ev({ type: 'packet', runId: R, at: 1200, sampleId: 'a', inserted: 2, total: 2, etaMs: null }),
    ])[R]!;
    expect(run.etaMs).toBe(5000);
    expect(run.etaAt).toBe(1100);
  });

  it('reaches 100% and keeps the summary when the run finishes', () => {
    const summary = summarizeAnswers([], LOCOMO_PROFILE);
    const run = replay([
      ...START,
      ev({ type: 'packet', runId: R, at: 1200, sampleId: 'a', inserted: 2, total: 2, etaMs: 10 }),
      ev({
        type: 'test-committed',
        runId: R,
        at: 1300,
        sampleId: 'a',
        testIndex: 1,
        meanF1: 1,
        errors: 0,
      }),
      ev({
        type: 'sample-finished',
        runId: R,
        at: 1301,
        sampleId: 'a',
        status: 'completed',
        insertErrors: 0,
        answerErrors: 1,
      }),
      ev({
        type: 'sample-started',
        runId: R,
        at: 1302,
        sampleId: 'b',
        totalPackets: 1,
        plannedTests: 1,
        skippedTests: 0,
      }),
      ev({ type: 'packet', runId: R, at: 1400, sampleId: 'b', inserted: 1, total: 1, etaMs: 0 }),
      ev({
        type: 'test-committed',
        runId: R,
        at: 1500,
        sampleId: 'b',
        testIndex: 0,
        meanF1: 0,
        errors: 0,
      }),
      ev({ type: 'run-finished', runId: R, at: 1600, summary, elapsedMs: 600 }),
    ])[R]!;
    expect(run.status).toBe('completed');
    expect(run.summary).toBe(summary);
    expect(run.elapsedMs).toBe(600);
    expect(totalPacketsInserted(run)).toBe(3);
    expect(testCounts(run)).toEqual({ done: 3, total: 3 });
    expect(overallFraction(run)).toBe(1);
    expect(remainingMs(run, 2000)).toBeNull();
  });

  it('shows a run that finished with too many errors as degraded, with why', () => {
    const run = replay([
      ...START,
      ev({
        type: 'run-finished',
        runId: R,
        at: 1600,
        summary: summarizeAnswers([], LOCOMO_PROFILE),
        elapsedMs: 600,
        status: 'degraded',
        message: '2 of 5 final answers are errors (40%, more than maxErrorShare 10%)',
      }),
    ])[R]!;
    expect(run.status).toBe('degraded');
    expect(run.message).toBe('2 of 5 final answers are errors (40%, more than maxErrorShare 10%)');
    expect(isActive(run)).toBe(false);
  });

  it('shows a run the circuit breaker stopped as paused, with why, and no longer active', () => {
    const why = 'paused by the circuit breaker: 20 answers in a row failed';
    const run = replay([
      ...START,
      ev({ type: 'run-paused', runId: R, at: 1600, message: why, elapsedMs: 600 }),
    ])[R]!;
    expect(run.status).toBe('paused');
    expect(run.message).toBe(why);
    expect(run.currentTest).toBeNull();
    expect(isActive(run)).toBe(false);
  });

  it('stays "cancelling" through the in-flight question, then shows cancelled', () => {
    let state = replay(START);
    state = reduceProgress(state, { type: 'cancel-requested', runId: R });
    expect(state[R]!.status).toBe('cancelling');
    state = reduceProgress(
      state,
      ev({ type: 'packet', runId: R, at: 1200, sampleId: 'a', inserted: 2, total: 2, etaMs: 1 }),
    );
    expect(state[R]!.status).toBe('cancelling');
    state = reduceProgress(
      state,
      ev({ type: 'run-cancelled', runId: R, at: 1300, elapsedMs: 300 }),
    );
    expect(state[R]!.status).toBe('cancelled');
    // Cancelling a run that has ended changes nothing.
    expect(reduceProgress(state, { type: 'cancel-requested', runId: R })).toBe(state);
  });

  it('restarts the counters on resume and counts the tests an earlier attempt committed', () => {
    let state = replay(START);
    state = reduceProgress(
      state,
      ev({ type: 'run-cancelled', runId: R, at: 1300, elapsedMs: 300 }),
    );
    state = replay(
      [
        ev({
          type: 'run-started',
          runId: R,
          at: 5000,
          samples: ['a', 'b'],
          totalPackets: 3,
          totalTests: 2,
          resumed: true,
        }),
        ev({
          type: 'sample-started',
          runId: R,
          at: 5001,
          sampleId: 'a',
          totalPackets: 2,
          plannedTests: 2,
          skippedTests: 1,
        }),
      ],
      state,
    );
    const run = state[R]!;
    expect(run).toMatchObject({ status: 'running', resumed: true, questionsAnswered: 0 });
    expect(testCounts(run)).toEqual({ done: 1, total: 3 });
  });

  it("keeps a resume's finished samples on the card instead of restarting at 0%", () => {
    const state = replay([
      ev({
        type: 'run-started',
        runId: R,
        at: 5000,
        samples: ['b'],
        totalPackets: 1,
        totalTests: 1,
        resumed: true,
        finished: [{ sampleId: 'a', totalPackets: 2, plannedTests: 2 }],
      }),
    ]);
    const run = state[R]!;
    expect(run.sampleIds).toEqual(['a', 'b']);
    expect(run.samples['a']).toMatchObject({ status: 'completed', packetsInserted: 2 });
    expect(run.totalPackets).toBe(3);
    expect(totalPacketsInserted(run)).toBe(2);
    expect(testCounts(run)).toEqual({ done: 2, total: 3 });
    // a's 2 packets and 2 tests of 3 packets and 3 tests.
    expect(overallFraction(run)).toBeCloseTo(4 / 6);
  });

  it('failure keeps its message', () => {
    const run = replay([
      ...START,
      ev({ type: 'run-failed', runId: R, at: 2000, message: 'worker died', elapsedMs: 1000 }),
    ])[R]!;
    expect(run).toMatchObject({ status: 'failed', message: 'worker died' });
  });

  it('seeds a run joined mid-way from its stored info and last event', () => {
    const state = reduceProgress(
      {},
      {
        type: 'seed',
        info: info({
          sampleInfo: [
            sampleInfo('a', { status: 'completed', testsCommitted: 2 }),
            sampleInfo('b', { status: 'running', testsCommitted: 1, totalPackets: 4 }),
          ],
        }),
        last: {
          type: 'packet',
          runId: R,
          at: 9000,
          sampleId: 'b',
          inserted: 3,
          total: 4,
          etaMs: 700,
        },
      },
    );
    const run = state[R]!;
    expect(run.partial).toBe(true);
    expect(run.samples.a).toMatchObject({ packetsInserted: 2, testsCommitted: 2 });
    expect(run.samples.b).toMatchObject({ packetsInserted: 3, totalPackets: 4, testsCommitted: 1 });
    expect(totalPacketsInserted(run)).toBe(5);
    expect(testCounts(run)).toEqual({ done: 3, total: 4 });
    expect(run.etaMs).toBe(700);
    // Later events carry on from the seed.
    const next = reduceProgress(
      state,
      ev({
        type: 'test-committed',
        runId: R,
        at: 9100,
        sampleId: 'b',
        testIndex: 1,
        meanF1: 1,
        errors: 0,
      }),
    )[R]!;
    expect(testCounts(next)).toEqual({ done: 4, total: 4 });
  });

  it('settles a run whose end this window missed, but not one whose events it saw', () => {
    const running = replay(START);
    const settled = reduceProgress(running, {
      type: 'settled',
      info: info({ status: 'interrupted', sampleInfo: [sampleInfo('a', {}), sampleInfo('b', {})] }),
    });
    expect(settled[R]!.status).toBe('interrupted');
    const cancelled = reduceProgress(
      running,
      ev({ type: 'run-cancelled', runId: R, at: 1300, elapsedMs: 300 }),
    );
    expect(reduceProgress(cancelled, { type: 'settled', info: info({ status: 'failed' }) })).toBe(
      cancelled,
    );
  });
  it("does not count an ended run's last events twice when the reconcile settled it first", () => {
    // Issue 23 item 10 (the e2e saw "6 / 6" tests where 5 were planned): the engine ends the run,
    // the window's reconcile finds it no longer active and settles it from the stored info, and
    // only then do the run's last events arrive (the server and the page batch them ~100 ms each).
    const summary = summarizeAnswers([], LOCOMO_PROFILE);
    const beforeEnd = replay([
      ...START,
      ev({
        type: 'sample-finished',
        runId: R,
        at: 1301,
        sampleId: 'a',
        status: 'completed',
        insertErrors: 0,
        answerErrors: 1,
      }),
      ev({
        type: 'sample-started',
        runId: R,
        at: 1302,
        sampleId: 'b',
        totalPackets: 1,
        plannedTests: 1,
        skippedTests: 0,
      }),
      ev({ type: 'test-started', runId: R, at: 1400, sampleId: 'b', testIndex: 0, questions: 1 }),
    ]);
    const settled = reduceProgress(beforeEnd, {
      type: 'settled',
      info: info({
        status: 'completed',
        answerErrors: 2,
        sampleInfo: [
          sampleInfo('a', { status: 'completed', testsCommitted: 2 }),
          sampleInfo('b', { status: 'completed', testsCommitted: 1, plannedTests: 1 }),
        ],
      }),
    });
    const late = replay(
      [
        ev({
          type: 'question-answered',
          runId: R,
          at: 1450,
          sampleId: 'b',
          testIndex: 0,
          questionIndex: 0,
          done: 1,
          total: 1,
          error: true,
        }),
        ev({
          type: 'test-committed',
          runId: R,
          at: 1500,
          sampleId: 'b',
          testIndex: 0,
          meanF1: 0,
          errors: 1,
        }),
        ev({
          type: 'sample-finished',
          runId: R,
          at: 1501,
          sampleId: 'b',
          status: 'completed',
          insertErrors: 0,
          answerErrors: 1,
        }),
        ev({ type: 'run-finished', runId: R, at: 1600, summary, elapsedMs: 600 }),
      ],
      settled,
    )[R]!;
    expect(testCounts(late)).toEqual({ done: 3, total: 3 });
    expect(late.testsCommitted).toBe(3);
    expect(late.answerErrors).toBe(2);
    expect(late.samples.b?.answerErrors).toBe(1);
    // The run's own ending still says what the stored info cannot.
    expect(late.status).toBe('completed');
    expect(late.summary).toBe(summary);
    expect(late.elapsedMs).toBe(600);
    expect(overallFraction(late)).toBe(1);
  });
});

describe('reduceProgress: batches and the engine snapshot (reload-safe progress)', () => {
  const events = START.map((a) => (a.type === 'event' ? a.event : null)).filter(
    (e): e is ProgressEvent => e !== null,
  );
  const numbered = (from: number) => events.map((event, i) => ({ event, seq: from + i }));

  it('folds a batch of events exactly as one event at a time', () => {
    const oneByOne = replay(numbered(1).map((e) => ({ type: 'event' as const, ...e })));
    const batched = reduceProgress({}, { type: 'events', events: numbered(1) });
    expect(batched).toEqual(oneByOne);
    expect(batched[R]?.seq).toBe(events.length);
  });

  it('a window that joins mid-run takes the engine state, then only the events after it', () => {
    // The engine has folded every event so far; this window saw only the last packet.
    const engine = reduceProgress({}, { type: 'events', events: numbered(1) })[R]!;
    const packet = numbered(1)[2]!;
    const joined = reduceProgress({}, { type: 'event', ...packet });
    // Alone, a mid-run event knows nothing of the totals: "Packets 1 / 0", one sample.
    expect(joined[R]).toMatchObject({ totalPackets: 0, sampleIds: ['a'] });

    const seeded = reduceProgress(joined, { type: 'snapshot', runs: [engine] });
    expect(seeded[R]).toMatchObject({
      totalPackets: 3,
      totalTests: 3,
      sampleIds: ['a', 'b'],
      questionsAnswered: 2,
      answerErrors: 1,
      etaMs: 5000,
      startedAt: 1000,
      partial: false,
    });
    // An event the snapshot already holds is not counted twice; a newer one is.
    const answered = numbered(1)[4]!;
    expect(reduceProgress(seeded, { type: 'event', ...answered })).toBe(seeded);
    const next = reduceProgress(seeded, {
      type: 'event',
      seq: events.length + 1,
      event: { type: 'packet', runId: R, at: 1200, sampleId: 'a', inserted: 2, total: 2, etaMs: 1 },
    });
    expect(next[R]?.samples.a?.packetsInserted).toBe(2);
  });

  it('ignores a snapshot older than what the window folded itself', () => {
    const older = reduceProgress({}, { type: 'events', events: numbered(1).slice(0, 3) })[R]!;
    const newer = reduceProgress({}, { type: 'events', events: numbered(1) });
    expect(reduceProgress(newer, { type: 'snapshot', runs: [older] })).toBe(newer);
  });

  it('keeps a cancel the user asked for over a running snapshot', () => {
    const engine = reduceProgress({}, { type: 'events', events: numbered(1) })[R]!;
    const asked = reduceProgress(
      { [R]: { ...engine, seq: 2 } },
      {
        type: 'cancel-requested',
        runId: R,
      },
    );
    expect(reduceProgress(asked, { type: 'snapshot', runs: [engine] })[R]?.status).toBe(
      'cancelling',
    );
  });
});

describe('reduceProgress: failures stay visible (issue 15 item 5)', () => {
  const answered = (at: number, questionIndex: number, errorMessage?: string): ProgressAction =>
    ev({
      type: 'question-answered',
      runId: R,
      at,
      sampleId: 'a',
      testIndex: 1,
      questionIndex,
      done: questionIndex + 1,
      total: 4,
      error: errorMessage !== undefined,
      ...(errorMessage !== undefined ? { errorMessage } : {}),
    });

  it('a cancel keeps the errors already seen, by message, and says who cancelled', () => {
    const run = replay([
      ...START,
      answered(1200, 0, 'answer: HTTP 401 from 127.0.0.1'),
      answered(1201, 1, 'answer: HTTP 401 from 127.0.0.1'),
      answered(1202, 2, 'answer: timed out after 30000 ms'),
      // A cancelled sample reports no counts of its own.
      ev({
        type: 'sample-finished',
        runId: R,
        at: 1300,
        sampleId: 'a',
        status: 'cancelled',
        insertErrors: 0,
        answerErrors: 0,
      }),
      ev({
        type: 'run-cancelled',
        runId: R,
        at: 1301,
        elapsedMs: 301,
        reason: 'cancelled by the user',
      }),
    ])[R]!;
    expect(run.status).toBe('cancelled');
    expect(run.stopReason).toBe('cancelled by the user');
    // 1 error in START's test 0, and 3 here.
    expect(run.answerErrors).toBe(4);
    expect(run.samples.a?.answerErrors).toBe(4);
    expect(run.errorMessages).toEqual([
      { message: 'answer: HTTP 401 from 127.0.0.1', count: 2 },
      { message: 'answer: timed out after 30000 ms', count: 1 },
    ]);
  });

  it('a failed sample keeps why, and its insert errors add up to the run', () => {
    const run = replay([
      ...START,
      ev({
        type: 'sample-finished',
        runId: R,
        at: 1300,
        sampleId: 'a',
        status: 'completed',
        insertErrors: 2,
        answerErrors: 1,
      }),
      ev({
        type: 'sample-finished',
        runId: R,
        at: 1400,
        sampleId: 'b',
        status: 'failed',
        insertErrors: 0,
        answerErrors: 0,
        error: 'memory service: connection refused',
      }),
      ev({
        type: 'run-failed',
        runId: R,
        at: 1401,
        elapsedMs: 401,
        message: 'b: memory service: connection refused',
      }),
    ])[R]!;
    expect(run.samples.b?.error).toBe('memory service: connection refused');
    expect(run.insertErrors).toBe(2);
    expect(run.message).toBe('b: memory service: connection refused');
  });

  it('keeps at most MAX_ERROR_MESSAGES distinct messages but counts every error', () => {
    const many = Array.from({ length: MAX_ERROR_MESSAGES + 3 }, (_, i) =>
      answered(1200 + i, i, `error ${i}`),
    );
    const run = replay([...START, ...many])[R]!;
    expect(run.errorMessages).toHaveLength(MAX_ERROR_MESSAGES);
    expect(run.answerErrors).toBe(1 + MAX_ERROR_MESSAGES + 3);
  });
});
