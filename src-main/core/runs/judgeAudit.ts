import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { z } from 'zod';
import type { BenchmarkProfile } from '../../../src-shared/benchmarks';
import type { Sample } from '../../../src-shared/dataset/types';
import { WorkbenchError } from '../../../src-shared/errors';
import {
  DEFAULT_MAX_CONSECUTIVE_FAILURES,
  type JudgeScore,
  type ResolvedJudgeConfig,
} from '../../../src-shared/experiment';
import {
  AUDIT_BUILDER_VERSION,
  AuditAnswerClassSchema,
  JudgeIdentitySchema,
  acceptanceTable,
  buildAuditItems,
  judgeIdentityOf,
  sampleAuditQuestions,
  type AcceptanceTable,
  type AuditItem,
  type AuditQuestion,
  type AuditVerdict,
  type JudgeIdentity,
} from '../../../src-shared/judgeAudit';
import type { Proportion } from '../../../src-shared/scoring/judgeError';
import { LlmJudge, judgeAnswer, judgeable } from '../answer/judge';
import { LlmClient } from '../answer/llm-client';
import type { ApiKeys } from '../keys';
import { CircuitBreaker } from '../pipeline/circuitBreaker';
import { writeTransaction } from './db';
import type { RunStore } from './store';

/**
 * The judge audit's storage and pass (issue 37 item 3): a set of answers of known truth is built
 * once from a dataset (src-shared/judgeAudit.ts), stored under an id derived from what built it,
 * and judged by any number of judges, each verdict keyed by the judge's identity (protocol, model,
 * endpoint origin). Tables: migration "judge audit sets" in migrations.ts.
 */

export interface AuditSetMeta {
  id: string;
  createdAt: string;
  benchmark: string;
  datasetSource: string;
  datasetSha256: string;
  seed: number;
  perCategory: number;
  builderVersion: number;
}

export interface AuditSet extends AuditSetMeta {
  items: AuditItem[];
}

const SetRowSchema = z.object({
  id: z.string(),
  created_at: z.string(),
  benchmark: z.string(),
  dataset_source: z.string(),
  dataset_sha256: z.string(),
  seed: z.number().int(),
  per_category: z.number().int(),
  builder_version: z.number().int(),
});

const ItemRowSchema = z.object({
  item_index: z.number().int(),
  sample_id: z.string(),
  question_index: z.number().int(),
  category: z.number().int(),
  answer_class: AuditAnswerClassSchema,
  question: z.string(),
  gold: z.string(),
  answer: z.string(),
  expected: z.enum(['correct', 'wrong']),
});

const VerdictRowSchema = z.object({
  item_index: z.number().int(),
  mean: z.number().nullable(),
});

/** Parses a stored row, or a RUNS_DB error naming the table and row. */
function parseRow<T>(schema: z.ZodType<T>, row: unknown, where: string): T {
  const parsed = schema.safeParse(row);
  if (!parsed.success) {
    throw new WorkbenchError(
      'RUNS_DB',
      `${where}: stored row does not have the expected shape (${parsed.error.issues[0]?.message ?? 'invalid'})`,
      { where },
    );
  }
  return parsed.data;
}

/** The questions of a dataset an audit may use: those the benchmark's judge metric scores. */
export function auditQuestionsOf(
  samples: readonly Sample[],
  profile: BenchmarkProfile,
): AuditQuestion[] {
  const out: AuditQuestion[] = [];
  for (const sample of samples) {
    for (const qa of sample.qa) {
      const candidate = { category: qa.category, gold: qa.answer };
      if (!judgeable(candidate, profile)) continue;
      out.push({
        sampleId: sample.sampleId,
        questionIndex: qa.index,
        category: qa.category,
        question: qa.question,
        gold: candidate.gold,
      });
    }
  }
  return out;
}

/** A set's id: what built it (dataset bytes, seed, size, builder), so the same choice finds it. */
export function auditSetId(
  datasetSha256: string,
  seed: number,
  perCategory: number,
  builderVersion = AUDIT_BUILDER_VERSION,
): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([datasetSha256, seed, perCategory, builderVersion]))
    .digest('hex');
  return `audit-${hash.slice(0, 16)}`;
}

/**
 * The audit set for a dataset and seed, built and stored on first use and read back after, so
 * every judge is asked about the same answers.
 */
export function ensureAuditSet(
  store: RunStore,
  dataset: {
    samples: readonly Sample[];
    source: string;
    sha256: string;
    profile: BenchmarkProfile;
  },
  choice: { seed: number; perCategory: number },
  now: () => Date = () => new Date(),
): { set: AuditSet; created: boolean } {
  const id = auditSetId(dataset.sha256, choice.seed, choice.perCategory);
  const existing = readAuditSet(store, id);
  if (existing) return { set: existing, created: false };
  const pool = auditQuestionsOf(dataset.samples, dataset.profile);
  const questions = sampleAuditQuestions(pool, choice.perCategory, choice.seed);
  const items = buildAuditItems(questions, pool, choice.seed);
  if (items.length === 0) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `judge audit: ${dataset.source} has no question the ${dataset.profile.id} judge scores`,
    );
  }
  const meta: AuditSetMeta = {
    id,
    createdAt: now().toISOString(),
    benchmark: dataset.profile.id,
    datasetSource: dataset.source,
    datasetSha256: dataset.sha256,
    seed: choice.seed,
    perCategory: choice.perCategory,
    builderVersion: AUDIT_BUILDER_VERSION,
  };
  const db = store.db;
  const putItem = db.prepare(
    `INSERT INTO judge_audit_items (set_id, item_index, sample_id, question_index, category,
       answer_class, question, gold, answer, expected) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  writeTransaction(db, store.file, () => {
    db.prepare(
      `INSERT INTO judge_audit_sets (id, created_at, benchmark, dataset_source, dataset_sha256, seed,
         per_category, builder_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      meta.createdAt,
      meta.benchmark,
      meta.datasetSource,
      meta.datasetSha256,
      meta.seed,
      meta.perCategory,
      meta.builderVersion,
    );
    items.forEach((item, index) =>
      putItem.run(
        id,
        index,
        item.sampleId,
        item.questionIndex,
        item.category,
        item.answerClass,
        item.question,
        item.gold,
        item.answer,
        item.expected,
      ),
    );
  });
  return { set: { ...meta, items }, created: true };
}

/** A stored set with its items in order, or undefined. */
export function readAuditSet(store: RunStore, id: string): AuditSet | undefined {
  const row = store.db.prepare('SELECT * FROM judge_audit_sets WHERE id = ?').get(id);
  if (row === undefined) return undefined;
  const set = parseRow(SetRowSchema, row, `judge_audit_sets ${id}`);
  const items = store.db
    .prepare('SELECT * FROM judge_audit_items WHERE set_id = ? ORDER BY item_index')
    .all(id)
    .map((r, i) => {
      const item = parseRow(ItemRowSchema, r, `judge_audit_items ${id}[${i}]`);
      return {
        sampleId: item.sample_id,
        questionIndex: item.question_index,
        category: item.category,
        answerClass: item.answer_class,
        question: item.question,
        gold: item.gold,
        answer: item.answer,
        expected: item.expected,
      };
    });
  return {
    id: set.id,
    createdAt: set.created_at,
    benchmark: set.benchmark,
    datasetSource: set.dataset_source,
    datasetSha256: set.dataset_sha256,
    seed: set.seed,
    perCategory: set.per_category,
    builderVersion: set.builder_version,
    items,
  };
}

/** A judge accepts an item when most of its repeats said CORRECT; no verdict is null. */
const acceptedOf = (mean: number | null): boolean | null => (mean === null ? null : mean > 0.5);

/** One judge's verdicts on a set (items it has not judged are absent). */
export function auditVerdicts(
  store: RunStore,
  setId: string,
  judge: JudgeIdentity,
): AuditVerdict[] {
  return store.db
    .prepare(
      `SELECT item_index, mean FROM judge_audit_verdicts WHERE set_id = ? AND judge_protocol = ?
         AND judge_model = ? AND judge_endpoint = ? ORDER BY item_index`,
    )
    .all(setId, judge.protocol, judge.model, judge.origin)
    .map((r) => {
      const row = parseRow(VerdictRowSchema, r, `judge_audit_verdicts ${setId}`);
      return { itemIndex: row.item_index, accepted: acceptedOf(row.mean) };
    });
}

/** The judges with verdicts on a set, in the order they first judged it. */
export function auditJudges(store: RunStore, setId: string): JudgeIdentity[] {
  return store.db
    .prepare(
      `SELECT judge_protocol AS protocol, judge_model AS model, judge_endpoint AS origin
         FROM judge_audit_verdicts WHERE set_id = ?
         GROUP BY judge_protocol, judge_model, judge_endpoint ORDER BY MIN(judged_at), protocol, model`,
    )
    .all(setId)
    .map((r) => parseRow(JudgeIdentitySchema, r, `judge_audit_verdicts ${setId}`));
}

export interface MeasuredJudgeError {
  setId: string;
  benchmark: string;
  /** P(accept | known-wrong answer) over the audit's wrong classes, Wilson interval. */
  falseAcceptance: Proportion;
  /** P(accept | gold answer), Wilson interval. */
  trueAcceptance: Proportion;
  table: AcceptanceTable;
}

/**
 * The audit's measure of a judge's error, for a headline to name ("judge accepts 8% of
 * known-wrong answers"): the most recently judged audit set of that identity, or null when the
 * judge was never audited.
 */
export function measuredJudgeError(
  store: RunStore,
  judge: JudgeIdentity,
): MeasuredJudgeError | null {
  const latest = store.db
    .prepare(
      `SELECT set_id FROM judge_audit_verdicts WHERE judge_protocol = ? AND judge_model = ?
         AND judge_endpoint = ? GROUP BY set_id ORDER BY MAX(judged_at) DESC, set_id LIMIT 1`,
    )
    .get(judge.protocol, judge.model, judge.origin) as { set_id: string } | undefined;
  if (latest === undefined) return null;
  const set = readAuditSet(store, latest.set_id);
  if (set === undefined) return null;
  const table = acceptanceTable(set.items, auditVerdicts(store, set.id, judge));
  return {
    setId: set.id,
    benchmark: set.benchmark,
    falseAcceptance: table.falseAcceptance,
    trueAcceptance: table.trueAcceptance,
    table,
  };
}

export interface AuditJudgeResult {
  judge: JudgeIdentity;
  judged: number;
  errors: number;
  calls: number;
  cacheHits: number;
  /** Why the pass stopped early (the circuit breaker), or null. */
  stopped: string | null;
  notJudged: number;
}

export interface AuditJudgeOptions {
  keys?: ApiKeys;
  /** Replaces the HTTP client (tests). */
  client?: LlmClient;
  signal?: AbortSignal;
  log?: (message: string) => void;
  now?: () => Date;
}

/**
 * Asks `config`'s judge about every item of a set, through the runs DB's judge cache (a second
 * pass, or another set with the same answers, costs nothing), and stores each verdict under the
 * judge's identity as it arrives (judging again replaces it). Stops like a rescore's judge pass
 * when the endpoint keeps failing.
 */
export async function judgeAuditSet(
  store: RunStore,
  set: AuditSet,
  config: ResolvedJudgeConfig,
  profile: BenchmarkProfile,
  options: AuditJudgeOptions = {},
): Promise<AuditJudgeResult> {
  const log = options.log;
  const onRetry = log
    ? (delayMs: number, error: Error) =>
        log(`judge: retrying in ${(delayMs / 1000).toFixed(1)} s after: ${error.message}`)
    : undefined;
  // The judge cache keys verdicts by endpoint too (answer/judge.ts), so another server of the
  // same model name is asked, not answered from this one's verdicts.
  const judge = new LlmJudge(config, {
    cache: store.judgeCache(),
    client: options.client ?? new LlmClient({ ...config, onRetry }, options.keys ?? {}),
  });
  if (judge.protocol.rubric !== undefined) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `judge audit: the ${judge.protocol.name} judge scores answers against a rubric, and the audit's answers are known right or wrong only against a gold answer`,
    );
  }
  const identity = judgeIdentityOf({
    protocol: judge.protocol.name,
    model: judge.model,
    baseUrl: config.baseUrl,
  });
  const breaker = new CircuitBreaker(DEFAULT_MAX_CONSECUTIVE_FAILURES, 'judge calls');
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  // Every queued item listens for the stop (as a run's judge pass does, pipeline/judgeRun.ts).
  setMaxListeners(0, signal);
  const now = options.now ?? (() => new Date());
  const put = store.db.prepare(
    `INSERT OR REPLACE INTO judge_audit_verdicts (set_id, item_index, judge_protocol, judge_model,
       judge_endpoint, prompt_sha256, mean, labels, error, judged_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const result: AuditJudgeResult = {
    judge: identity,
    judged: 0,
    errors: 0,
    calls: 0,
    cacheHits: 0,
    stopped: null,
    notJudged: 0,
  };
  // Verdicts are written together once the pass ends, however it ends (one transaction, not one
  // per answer); a crash before that loses none of them, as each is in the judge cache already.
  const pending: Array<[number, JudgeScore, string]> = [];
  const flush = () =>
    writeTransaction(store.db, store.file, () => {
      for (const [index, score, at] of pending.splice(0)) {
        put.run(
          set.id,
          index,
          identity.protocol,
          identity.model,
          identity.origin,
          judge.prompt.sha256,
          score.mean,
          JSON.stringify(score.labels),
          score.error,
          at,
        );
      }
    });
  // The client's semaphore bounds requests in flight; every item is queued at once.
  try {
    await Promise.all(
      set.items.map(async (item, index) => {
        let score: JudgeScore | null;
        try {
          score = await judgeAnswer(
            judge,
            { ...item, prediction: item.answer, error: null },
            profile,
            signal,
          );
        } catch (error) {
          if (options.signal?.aborted || !stop.signal.aborted) throw error;
          result.notJudged++;
          return;
        }
        if (score === null) {
          result.notJudged++;
          return;
        }
        const tripped = breaker.record(score.error !== null, score.error ?? undefined);
        if (tripped !== null && result.stopped === null) {
          result.stopped = tripped;
          log?.(`judge: stopped early, ${tripped}`);
          stop.abort();
        }
        pending.push([index, score, now().toISOString()]);
        result.judged++;
        if (score.error !== null) result.errors++;
      }),
    );
  } finally {
    flush();
  }
  result.calls = judge.stats.calls;
  result.cacheHits = judge.stats.cacheHits;
  return result;
}
