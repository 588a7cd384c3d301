import { setMaxListeners } from 'node:events';
import {
  judgeConfigFor,
  type AnswerRecord,
  type JudgeConfig,
  type JudgeScore,
} from '../../../src-shared/experiment';
import type { RunManifest, TokenTotals } from '../../../src-shared/runs';
import { repeatCacheScope } from '../../../src-shared/sweeps';
import { LlmJudge, judgeAnswer } from '../answer/judge';
import { LlmClient, type CallMeter } from '../answer/llm-client';
import type { ApiKeys } from '../keys';
import type { RunStore } from '../runs/store';
import { rubricLookupFor } from '../dataset/rubrics';
import { ledgerCacheCounts, ledgerTotals } from '../runs/usage';

/**
 * The judge pass over a run, on the main thread (the runs DB and its judge cache live here):
 * every answer of categories 1-4 at every test, so the per-test curves have J too. Identical
 * (question, gold, answer) rows are judged once; each verdict is saved as soon as it is known, so
 * a cancelled pass keeps what it paid for.
 */

export interface JudgePassOptions {
  /** Re-judge answers that already have a verdict (another judge model or prompt). */
  all?: boolean;
  signal?: AbortSignal;
  /** Replaces the HTTP client (tests); its calls are not filed in the run's call ledger. */
  client?: LlmClient;
  /** The judge's API key by variable name (see core/keys.ts). */
  keys?: ApiKeys;
  /** False for a run from the network (core/trust.ts isLocalUser): errors never quote replies. */
  quoteReplies?: boolean;
}

export interface JudgePassResult {
  /** Answer rows given a verdict (or a judge error). */
  judged: number;
  errors: number;
  /** Answer rows with a label that is WRONG only because the judge's reply was unreadable. */
  unparseable: number;
  /** Model calls made; cache hits cost nothing. */
  calls: number;
  cacheHits: number;
  usage: TokenTotals;
}

function groupKey(a: AnswerRecord, rubric?: readonly string[]): string {
  const key: unknown[] = [a.question, a.gold, a.prediction, a.error !== null];
  // Two questions judged against different rubrics are different verdicts.
  return JSON.stringify(rubric === undefined ? key : [...key, rubric]);
}

export async function judgeRun(
  store: RunStore,
  runId: string,
  named: JudgeConfig,
  options: JudgePassOptions = {},
): Promise<JudgePassResult> {
  const profile = store.profileOf(runId);
  // A protocol the config leaves open is the run's benchmark's own judge.
  const { config } = judgeConfigFor(named, profile);
  const cacheScope = repeatCacheScope(store.getRun(runId).manifest.sweep);
  const meter: CallMeter = (delta) =>
    store.recordCalls(runId, { role: 'judge', model: config.model, ...delta });
  const judge = new LlmJudge(config, {
    cache: store.judgeCache(),
    ...(cacheScope !== undefined ? { cacheScope } : {}),
    meter,
    client:
      options.client ??
      new LlmClient(
        { ...config, quoteReplies: options.quoteReplies },
        options.keys ?? {},
        Math.random,
        meter,
      ),
  });
  // A rubric judge (BEAM) scores each answer against its question's rubric, read from the dataset.
  const rubricOf = await rubricLookupFor(store.getRun(runId).manifest.dataset, judge.protocol);
  const groups = new Map<string, AnswerRecord[]>();
  for (const a of store.answersToJudge(runId, { all: options.all === true })) {
    const key = groupKey(a, rubricOf(a));
    const group = groups.get(key);
    if (group) group.push(a);
    else groups.set(key, [a]);
  }
  let judged = 0;
  let errors = 0;
  let unparseable = 0;
  // Every queued group listens to one signal: a local one, so the run's own stays quiet.
  const local = new AbortController();
  setMaxListeners(0, local.signal);
  const onAbort = (): void => local.abort(options.signal?.reason);
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  // The client's semaphore bounds requests in flight; every group is queued at once.
  try {
    await Promise.all([...groups.values()].map((rows) => judgeGroup(rows)));
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
  async function judgeGroup(rows: AnswerRecord[]): Promise<void> {
    const first = rows[0] as AnswerRecord;
    const rubric = rubricOf(first);
    const score: JudgeScore | null = await judgeAnswer(
      judge,
      rubric === undefined ? first : { ...first, rubric },
      profile,
      local.signal,
    );
    store.saveJudgeScores(
      runId,
      rows.map((r) => ({
        sampleId: r.sampleId,
        testIndex: r.testIndex,
        questionIndex: r.questionIndex,
        judge: score,
      })),
    );
    judged += rows.length;
    if (score?.error) errors += rows.length;
    if (score?.unparseable) unparseable += rows.length;
  }
  const usage = judge.client.totals();
  const ledger = store.callLedger(runId);
  const total = ledgerTotals(ledger, 'judge', config.prices, judge.model);
  const counted = { unparseable, cacheHits: ledgerCacheCounts(ledger, 'judge', judge.model).hits };
  const sent = store.requestShapes(runId);
  store.updateManifest(runId, (m) => ({
    ...withJudgeProvenance(m, judge, total, counted),
    requestParams: sent,
  }));
  return {
    judged,
    errors,
    unparseable,
    calls: judge.stats.calls,
    cacheHits: judge.stats.cacheHits,
    usage,
  };
}

/**
 * Records the judge in the manifest with its totals from the call ledger (every request to this
 * judge model over every pass, failed and retried ones included) and its unreadable replies.
 */
function withJudgeProvenance(
  m: RunManifest,
  judge: LlmJudge,
  total: TokenTotals,
  { unparseable, cacheHits }: { unparseable: number; cacheHits: number },
): RunManifest {
  return {
    ...m,
    judge: {
      model: judge.model,
      repeats: judge.repeats,
      prompt: judge.prompt,
      responseFormat: judge.protocol.jsonMode ? 'json_object' : null,
      unparseable,
      cacheHits,
    },
    usage: {
      ...m.usage,
      answer: m.usage?.answer ?? { calls: 0, promptTokens: 0, completionTokens: 0, cost: null },
      judge: total,
    },
  };
}
