import {
  judgeConfigFor,
  type AnswerRecord,
  type JudgeConfig,
  type JudgeScore,
} from '../../../src-shared/experiment';
import { metricOf, metricScores } from '../../../src-shared/metrics';
import type { RescoreJudgeResult } from '../../../src-shared/rescore';
import { endpointOrigin } from '../../../src-shared/judges';
import { LlmJudge, judgeAnswer } from '../answer/judge';
import { LlmClient } from '../answer/llm-client';
import { CircuitBreaker } from '../pipeline/circuitBreaker';
import { DEFAULT_MAX_CONSECUTIVE_FAILURES } from '../../../src-shared/experiment';
import type { ApiKeys } from '../keys';
import { rubricLookupFor } from '../dataset/rubrics';
import type { RunStore } from './store';

/**
 * A judge protocol over a stored run's final answers, offline from memory and answers (issue 11
 * item 8): the verdicts go to `protocol_judge_scores` under the judge's identity (protocol, model,
 * endpoint origin, repeats: src-shared/judges.ts), beside the run's own J; the answers, their
 * scores and the run's manifest and call ledger stay as they were. Identical (question, gold, answer) rows are judged once, and the runs DB's judge cache (keyed by
 * model and prompt) makes a repeat free.
 */

export interface RescoreJudgeOptions {
  /** The judge's API key by variable name (core/keys.ts). */
  keys?: ApiKeys;
  /** Replaces the HTTP client (tests). */
  client?: LlmClient;
  signal?: AbortSignal;
  /** False for a caller from the network (core/trust.ts isLocalUser): replies are not quoted. */
  quoteReplies?: boolean;
  /** Hears each retry (and why) and an early stop as they happen (the CLI's stderr). */
  log?: (message: string) => void;
}

export async function rescoreJudge(
  store: RunStore,
  runId: string,
  named: JudgeConfig,
  options: RescoreJudgeOptions = {},
): Promise<RescoreJudgeResult> {
  const profile = store.profileOf(runId);
  // A protocol the request leaves open is the run's benchmark's own judge.
  const { config } = judgeConfigFor(named, profile);
  const log = options.log;
  const onRetry = log
    ? (delayMs: number, error: Error) =>
        log(`judge: retrying in ${(delayMs / 1000).toFixed(1)} s after: ${error.message}`)
    : undefined;
  const judge = new LlmJudge(config, {
    cache: store.judgeCache(),
    client:
      options.client ??
      new LlmClient({ ...config, quoteReplies: options.quoteReplies, onRetry }, options.keys ?? {}),
  });
  // A dead endpoint stops the pass as it pauses a run: the run's own consecutive-failures rule.
  const breaker = new CircuitBreaker(
    store.getRun(runId).manifest.config.maxConsecutiveFailures ?? DEFAULT_MAX_CONSECUTIVE_FAILURES,
    'judge calls',
  );
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const judgeMetric = metricOf('judge');
  const judged = new Set(
    profile.categories.filter((c) => metricScores(judgeMetric, c)).map((c) => c.id),
  );
  // A rubric judge (BEAM) scores each answer against its question's rubric, read from the dataset.
  const rubricOf = await rubricLookupFor(store.getRun(runId).manifest.dataset, judge.protocol);
  const groups = new Map<string, AnswerRecord[]>();
  for (const a of store.finalAnswers(runId)) {
    if (!judged.has(a.category)) continue;
    const rubric = rubricOf(a);
    const key = JSON.stringify([
      a.question,
      a.gold,
      a.prediction,
      a.error !== null,
      rubric ?? null,
    ]);
    groups.set(key, [...(groups.get(key) ?? []), a]);
  }
  const identity = {
    protocol: judge.protocol.name,
    model: judge.model,
    origin: endpointOrigin(config.baseUrl),
    repeats: config.repeats,
    promptSha256: judge.prompt.sha256,
  };
  const result: RescoreJudgeResult = {
    protocol: identity.protocol,
    model: identity.model,
    origin: identity.origin,
    repeats: identity.repeats,
    judged: 0,
    errors: 0,
    unparseable: 0,
    calls: 0,
    cacheHits: 0,
    stopped: null,
    notJudged: 0,
    lastError: null,
  };
  // The client's semaphore bounds requests in flight; every group is queued at once.
  await Promise.all(
    [...groups.values()].map(async (rows) => {
      const first = rows[0] as AnswerRecord;
      const rubric = rubricOf(first);
      let score: JudgeScore | null;
      try {
        score = await judgeAnswer(
          judge,
          rubric === undefined ? first : { ...first, rubric },
          profile,
          signal,
        );
      } catch (error) {
        // Stopped by the breaker: these rows were never asked about. A user's cancel rejects.
        if (options.signal?.aborted || !stop.signal.aborted) throw error;
        result.notJudged = (result.notJudged ?? 0) + rows.length;
        return;
      }
      if (score === null) return;
      const tripped = breaker.record(score.error !== null, score.error ?? undefined);
      if (tripped !== null) {
        result.stopped = tripped;
        log?.(`judge: stopped early, ${result.stopped}`);
        stop.abort();
      }
      store.saveProtocolJudgeScores(
        runId,
        identity,
        rows.map((r) => ({
          sampleId: r.sampleId,
          testIndex: r.testIndex,
          questionIndex: r.questionIndex,
          judge: score,
        })),
      );
      result.judged += rows.length;
      if (score.error !== null) {
        result.errors += rows.length;
        result.lastError = score.error;
      }
      if ((score.unparseable ?? 0) > 0) result.unparseable += rows.length;
    }),
  );
  result.calls = judge.stats.calls;
  result.cacheHits = judge.stats.cacheHits;
  return result;
}
