import {
  benchmarkCategory,
  benchmarkProfile,
  type BenchmarkProfile,
} from '../../../src-shared/benchmarks';
import { WorkbenchError } from '../../../src-shared/errors';
import { metricList, metricOf, metricScores, type Scores } from '../../../src-shared/metrics';
import {
  curveOf,
  summarizeAnswers,
  type JudgeScore,
  type AnswerRecord,
  type CurvePoint,
  type RetrievedRef,
  type RunStatus,
  type RunSummary,
  type SampleStatus,
  type TestRecord,
} from '../../../src-shared/experiment';
import type { JudgeCache, JudgeCacheEntry, JudgeVerdict } from '../answer/judge';
import type { SqliteDatabase } from '../sqlite';
import { openRunsDb, type OpenRunsDbOptions } from './db';
import type { RunInfo, RunListItem, RunManifest, SamplePlanRow } from '../../../src-shared/runs';

/**
 * The runs database API. One writer per file: the thread that runs experiments (workers only
 * compute and send results). Every committed test is one transaction with all its answers, so a
 * killed process leaves whole tests or nothing.
 */

export type { RunInfo, RunListItem, RunSampleInfo, SamplePlanRow } from '../../../src-shared/runs';

export interface RunStoreOptions extends OpenRunsDbOptions {
  now?: () => number;
  /** Whether a process id is alive; replaced in tests. */
  isPidAlive?: (pid: number) => boolean;
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface AnswerRow {
  sample_id: string;
  test_index: number;
  question_index: number;
  category: number;
  question: string;
  gold: string | null;
  prediction: string;
  retrieved: string;
  retrieve_ms: number;
  answer_ms: number;
  error: string | null;
  judge_std: number | null;
  judge_labels: string | null;
  judge_error: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
}

function judgeOf(r: AnswerRow, mean: number | null): JudgeScore | null {
  if (r.judge_labels === null && r.judge_error === null) return null;
  return {
    mean,
    std: r.judge_std,
    labels: r.judge_labels === null ? [] : (JSON.parse(r.judge_labels) as number[]),
    error: r.judge_error,
  };
}

interface ScoreRow {
  sample_id: string;
  test_index: number;
  question_index: number;
  metric: string;
  value: number | null;
}

const answerKey = (sampleId: string, testIndex: number, questionIndex: number): string =>
  `${sampleId}\u0000${testIndex}\u0000${questionIndex}`;

function groupScores(rows: readonly ScoreRow[]): Map<string, Scores> {
  const out = new Map<string, Scores>();
  for (const r of rows) {
    const key = answerKey(r.sample_id, r.test_index, r.question_index);
    let scores = out.get(key);
    if (!scores) out.set(key, (scores = {}));
    scores[r.metric] = r.value;
  }
  return out;
}

function toAnswer(
  r: AnswerRow,
  stored: Scores | undefined,
  profile: BenchmarkProfile,
): AnswerRecord {
  const category = benchmarkCategory(profile, r.category);
  const scores: Scores = { ...stored };
  for (const metric of metricList()) {
    if (metric.id in scores) continue;
    // A metric with no row: either it does not score the category, or the row predates it. An
    // answer metric is a pure function of what the row holds, so compute it rather than show a
    // hole (rows from before schema 3 have no set F1 or BLEU-1).
    scores[metric.id] =
      metric.source === 'answer' && metric.score && metricScores(metric, category)
        ? metric.score({
            prediction: r.prediction,
            gold: r.gold,
            category,
            evidence: [],
            retrieved: [],
            errored: r.error !== null,
          })
        : null;
  }
  return {
    sampleId: r.sample_id,
    testIndex: r.test_index,
    questionIndex: r.question_index,
    category: r.category,
    question: r.question,
    gold: r.gold,
    prediction: r.prediction,
    retrieved: JSON.parse(r.retrieved) as RetrievedRef[],
    scores,
    retrieveMs: r.retrieve_ms,
    answerMs: r.answer_ms,
    error: r.error,
    judge: judgeOf(r, scores['judge'] ?? null),
    usage:
      r.prompt_tokens === null && r.completion_tokens === null
        ? null
        : { promptTokens: r.prompt_tokens ?? 0, completionTokens: r.completion_tokens ?? 0 },
  };
}

/** Identifies one answer row of a run. */
export interface AnswerKey {
  sampleId: string;
  testIndex: number;
  questionIndex: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export class RunStore {
  readonly file: string;
  readonly db: SqliteDatabase;
  private readonly now: () => number;
  private readonly statements;

  private constructor(file: string, db: SqliteDatabase, options: RunStoreOptions) {
    this.file = file;
    this.db = db;
    this.now = options.now ?? Date.now;
    this.statements = {
      insertTest: db.prepare(
        `INSERT INTO tests (run_id, sample_id, test_index, packet_idx, dialogs_inserted, visible_count, question_indices, committed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertAnswer: db.prepare(
        `INSERT INTO answers (run_id, sample_id, test_index, question_index, category, question, gold, prediction,
           retrieved, retrieve_ms, answer_ms, error,
           judge_std, judge_labels, judge_error, prompt_tokens, completion_tokens)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      putScore: db.prepare(
        `INSERT OR REPLACE INTO answer_scores (run_id, sample_id, test_index, question_index, metric, value)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      setJudge: db.prepare(
        `UPDATE answers SET judge_std = ?, judge_labels = ?, judge_error = ?
         WHERE run_id = ? AND sample_id = ? AND test_index = ? AND question_index = ?`,
      ),
      cacheGet: db.prepare('SELECT label, reason FROM judge_cache WHERE key = ?'),
      cachePut: db.prepare(
        `INSERT OR REPLACE INTO judge_cache (key, model, prompt_sha256, repeat, label, reason, prompt_tokens, completion_tokens, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      bumpAnswerErrors: db.prepare(
        'UPDATE runs SET answer_errors = answer_errors + ? WHERE id = ?',
      ),
    };
  }

  /** Opens (creating or migrating) a runs DB and marks runs whose process is gone as interrupted. */
  static open(file: string, options: RunStoreOptions = {}): RunStore {
    const store = new RunStore(file, openRunsDb(file, options), options);
    store.markInterrupted(options.isPidAlive ?? pidAlive);
    return store;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** A run left 'running' by a process that no longer exists was killed: say so. */
  markInterrupted(isAlive: (pid: number) => boolean): string[] {
    const rows = this.db
      .prepare("SELECT id, pid FROM runs WHERE status = 'running'")
      .all() as Array<{ id: string; pid: number | null }>;
    const dead = rows.filter((r) => r.pid === null || (r.pid !== process.pid && !isAlive(r.pid)));
    const mark = this.db.prepare(
      "UPDATE runs SET status = 'interrupted', ended_at = COALESCE(ended_at, ?) WHERE id = ? AND status = 'running'",
    );
    const markSamples = this.db.prepare(
      "UPDATE run_samples SET status = 'pending' WHERE run_id = ? AND status = 'running'",
    );
    this.db.transaction(() => {
      for (const r of dead) {
        mark.run(iso(this.now()), r.id);
        markSamples.run(r.id);
      }
    })();
    return dead.map((r) => r.id);
  }

  createRun(
    manifest: RunManifest,
    samples: readonly SamplePlanRow[],
    pid: number = process.pid,
  ): void {
    const at = manifest.startedAt;
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO runs (id, status, created_at, started_at, preset, config_hash, dataset_sha256, manifest, pid)
           VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          manifest.runId,
          at,
          at,
          manifest.memory.preset,
          manifest.configHash,
          manifest.dataset.sha256,
          JSON.stringify(manifest),
          pid,
        );
      const insert = this.db.prepare(
        `INSERT INTO run_samples (run_id, sample_id, position, status, total_packets, total_questions, threshold, planned_tests)
         VALUES (?, ?, ?, 'pending', ?, ?, ?, ?)`,
      );
      samples.forEach((s, i) =>
        insert.run(
          manifest.runId,
          s.sampleId,
          i,
          s.totalPackets,
          s.totalQuestions,
          s.threshold,
          s.plannedTests,
        ),
      );
    })();
  }

  /** Takes a stopped run back for `resume`: status running, owned by this process. */
  reopenRun(runId: string, pid: number = process.pid): void {
    const info = this.db
      .prepare(
        "UPDATE runs SET status = 'running', pid = ?, ended_at = NULL, error = NULL, resumes = resumes + 1 WHERE id = ? AND status IN ('interrupted','cancelled','failed')",
      )
      .run(pid, runId);
    if (info.changes !== 1) {
      const run = this.getRun(runId);
      throw new WorkbenchError(
        'CONFLICT',
        `run ${runId} is ${run.status}; only interrupted, cancelled or failed runs can be resumed`,
      );
    }
  }

  /** One transaction: the test row and all its answers, or nothing. */
  commitTest(runId: string, test: TestRecord): void {
    const s = this.statements;
    const committedAt = iso(this.now());
    this.db.transaction(() => {
      s.insertTest.run(
        runId,
        test.sampleId,
        test.testIndex,
        test.packetIdx,
        test.dialogsInserted,
        test.visibleCount,
        JSON.stringify(test.questionIndices),
        committedAt,
      );
      let errors = 0;
      for (const a of test.answers) {
        if (a.error !== null) errors++;
        s.insertAnswer.run(
          runId,
          test.sampleId,
          test.testIndex,
          a.questionIndex,
          a.category,
          a.question,
          a.gold,
          a.prediction,
          JSON.stringify(a.retrieved),
          a.retrieveMs,
          a.answerMs,
          a.error,
          a.judge?.std ?? null,
          a.judge ? JSON.stringify(a.judge.labels) : null,
          a.judge?.error ?? null,
          a.usage?.promptTokens ?? null,
          a.usage?.completionTokens ?? null,
        );
        for (const [metric, value] of Object.entries(a.scores)) {
          s.putScore.run(runId, test.sampleId, test.testIndex, a.questionIndex, metric, value);
        }
      }
      if (errors > 0) s.bumpAnswerErrors.run(errors, runId);
    })();
  }

  markSample(
    runId: string,
    sampleId: string,
    update: {
      status: SampleStatus;
      insertErrors?: number;
      insertErrorMessages?: string[];
      notes?: string[];
      error?: string | null;
    },
  ): void {
    const at = iso(this.now());
    const started = update.status === 'running';
    const ended = update.status !== 'running' && update.status !== 'pending';
    this.db.transaction(() => {
      const previous = this.db
        .prepare('SELECT insert_errors FROM run_samples WHERE run_id = ? AND sample_id = ?')
        .get(runId, sampleId) as { insert_errors: number } | undefined;
      if (!previous)
        throw new WorkbenchError('NOT_FOUND', `run ${runId} has no sample ${sampleId}`);
      this.db
        .prepare(
          `UPDATE run_samples SET status = ?,
             insert_errors = COALESCE(?, insert_errors),
             insert_error_messages = COALESCE(?, insert_error_messages),
             notes = COALESCE(?, notes),
             error = ?,
             started_at = CASE WHEN ? THEN ? ELSE started_at END,
             ended_at = CASE WHEN ? THEN ? ELSE NULL END
           WHERE run_id = ? AND sample_id = ?`,
        )
        .run(
          update.status,
          update.insertErrors ?? null,
          update.insertErrorMessages ? JSON.stringify(update.insertErrorMessages) : null,
          update.notes ? JSON.stringify(update.notes) : null,
          update.error ?? null,
          started ? 1 : 0,
          at,
          ended ? 1 : 0,
          at,
          runId,
          sampleId,
        );
      // A replayed sample (resume) re-counts its insert errors from scratch: replace, don't add.
      if (update.insertErrors !== undefined) {
        this.db
          .prepare('UPDATE runs SET insert_errors = insert_errors + ? WHERE id = ?')
          .run(update.insertErrors - previous.insert_errors, runId);
      }
    })();
  }

  finishRun(
    runId: string,
    status: Exclude<RunStatus, 'running'>,
    options: { error?: string | null; manifest?: (m: RunManifest) => RunManifest } = {},
  ): void {
    const at = iso(this.now());
    this.db.transaction(() => {
      const row = this.db
        .prepare('SELECT manifest, insert_errors, answer_errors FROM runs WHERE id = ?')
        .get(runId) as
        { manifest: string; insert_errors: number; answer_errors: number } | undefined;
      if (!row) throw new WorkbenchError('NOT_FOUND', `no run ${runId}`);
      let manifest = JSON.parse(row.manifest) as RunManifest;
      manifest = {
        ...manifest,
        endedAt: at,
        errors: { insert: row.insert_errors, answer: row.answer_errors },
      };
      if (options.manifest) manifest = options.manifest(manifest);
      this.db
        .prepare(
          'UPDATE runs SET status = ?, ended_at = ?, error = ?, manifest = ?, pid = NULL WHERE id = ?',
        )
        .run(status, at, options.error ?? null, JSON.stringify(manifest), runId);
    })();
  }

  listRuns(): RunListItem[] {
    const rows = this.db
      .prepare(
        `SELECT r.*, (SELECT count(*) FROM run_samples s WHERE s.run_id = r.id) AS sample_count
         FROM runs r ORDER BY r.id DESC`,
      )
      .all() as RunRow[];
    return rows.map((r) => this.listItem(r));
  }

  hasRun(runId: string): boolean {
    return this.db.prepare('SELECT 1 FROM runs WHERE id = ?').get(runId) !== undefined;
  }

  getRun(runId: string): RunInfo {
    const r = this.db
      .prepare(
        `SELECT r.*, (SELECT count(*) FROM run_samples s WHERE s.run_id = r.id) AS sample_count
         FROM runs r WHERE r.id = ?`,
      )
      .get(runId) as RunRow | undefined;
    if (!r)
      throw new WorkbenchError('NOT_FOUND', `no run ${runId} in ${this.file}`, {
        where: this.file,
      });
    const samples = this.db
      .prepare(
        `SELECT s.*, (SELECT count(*) FROM tests t WHERE t.run_id = s.run_id AND t.sample_id = s.sample_id) AS tests_committed
         FROM run_samples s WHERE s.run_id = ? ORDER BY s.position`,
      )
      .all(runId) as SampleRow[];
    return {
      ...this.listItem(r),
      manifest: JSON.parse(r.manifest) as RunManifest,
      pid: r.pid,
      error: r.error,
      sampleInfo: samples.map((s) => ({
        sampleId: s.sample_id,
        status: s.status,
        totalPackets: s.total_packets,
        totalQuestions: s.total_questions,
        threshold: s.threshold,
        plannedTests: s.planned_tests,
        testsCommitted: s.tests_committed,
        insertErrors: s.insert_errors,
        insertErrorMessages: JSON.parse(s.insert_error_messages) as string[],
        notes: JSON.parse(s.notes) as string[],
        error: s.error,
        startedAt: s.started_at,
        endedAt: s.ended_at,
      })),
    };
  }

  /** Test indices already committed for a sample (resume skips answering them). */
  committedTests(runId: string, sampleId: string): number[] {
    return (
      this.db
        .prepare(
          'SELECT test_index FROM tests WHERE run_id = ? AND sample_id = ? ORDER BY test_index',
        )
        .all(runId, sampleId) as Array<{ test_index: number }>
    ).map((r) => r.test_index);
  }

  /** Every answer of every test, by sample, test, question. */
  answersByTest(
    runId: string,
    filter: { sampleId?: string; testIndex?: number } = {},
  ): AnswerRecord[] {
    this.requireRun(runId);
    const rows = this.db
      .prepare(
        `SELECT * FROM answers WHERE run_id = ?
           AND (? IS NULL OR sample_id = ?) AND (? IS NULL OR test_index = ?)
         ORDER BY sample_id, test_index, question_index`,
      )
      .all(
        runId,
        filter.sampleId ?? null,
        filter.sampleId ?? null,
        filter.testIndex ?? null,
        filter.testIndex ?? null,
      ) as AnswerRow[];
    const scores = groupScores(
      this.db
        .prepare(
          `SELECT sample_id, test_index, question_index, metric, value FROM answer_scores
           WHERE run_id = ? AND (? IS NULL OR sample_id = ?) AND (? IS NULL OR test_index = ?)`,
        )
        .all(
          runId,
          filter.sampleId ?? null,
          filter.sampleId ?? null,
          filter.testIndex ?? null,
          filter.testIndex ?? null,
        ) as ScoreRow[],
    );
    return this.toAnswers(runId, rows, scores);
  }

  /** The headline: each question's answer at the last test that asked it. */
  finalAnswers(runId: string): AnswerRecord[] {
    this.requireRun(runId);
    const rows = this.db
      .prepare(
        `SELECT a.* FROM answers a
         JOIN (SELECT sample_id, question_index, MAX(test_index) AS last_test FROM answers
               WHERE run_id = ? GROUP BY sample_id, question_index) f
           ON a.sample_id = f.sample_id AND a.question_index = f.question_index AND a.test_index = f.last_test
         WHERE a.run_id = ?
         ORDER BY a.sample_id, a.question_index`,
      )
      .all(runId, runId) as AnswerRow[];
    const scores = groupScores(
      this.db
        .prepare(
          `SELECT s.sample_id, s.test_index, s.question_index, s.metric, s.value FROM answer_scores s
           JOIN (SELECT sample_id, question_index, MAX(test_index) AS last_test FROM answers
                 WHERE run_id = ? GROUP BY sample_id, question_index) f
             ON s.sample_id = f.sample_id AND s.question_index = f.question_index AND s.test_index = f.last_test
           WHERE s.run_id = ?`,
        )
        .all(runId, runId) as ScoreRow[],
    );
    return this.toAnswers(runId, rows, scores);
  }

  /**
   * Answers a judge pass should score: those of categories the judge scores (LoCoMo 1-4) not
   * judged yet or whose judge failed (`all`: every one of them, to re-judge with another judge or
   * prompt).
   */
  answersToJudge(runId: string, options: { all?: boolean } = {}): AnswerRecord[] {
    const profile = this.profileOf(runId);
    const judge = metricOf('judge');
    const judged = new Set(
      profile.categories.filter((c) => metricScores(judge, c)).map((c) => c.id),
    );
    const rows = (
      this.db
        .prepare(
          `SELECT * FROM answers WHERE run_id = ?
             AND (? OR judge_labels IS NULL OR judge_error IS NOT NULL)
           ORDER BY sample_id, test_index, question_index`,
        )
        .all(runId, options.all ? 1 : 0) as AnswerRow[]
    ).filter((r) => judged.has(r.category));
    const scores = groupScores(
      this.db
        .prepare(
          'SELECT sample_id, test_index, question_index, metric, value FROM answer_scores WHERE run_id = ?',
        )
        .all(runId) as ScoreRow[],
    );
    return this.toAnswers(runId, rows, scores, profile);
  }

  /** Records judge verdicts (null clears one), in one transaction. */
  saveJudgeScores(
    runId: string,
    scores: ReadonlyArray<AnswerKey & { judge: JudgeScore | null }>,
  ): void {
    const s = this.statements;
    this.db.transaction(() => {
      for (const { sampleId, testIndex, questionIndex, judge } of scores) {
        s.putScore.run(runId, sampleId, testIndex, questionIndex, 'judge', judge?.mean ?? null);
        s.setJudge.run(
          judge?.std ?? null,
          judge ? JSON.stringify(judge.labels) : null,
          judge?.error ?? null,
          runId,
          sampleId,
          testIndex,
          questionIndex,
        );
      }
    })();
  }

  /** The judge cache in this database: verdicts survive the process, so re-scoring is free. */
  judgeCache(): JudgeCache {
    const s = this.statements;
    return {
      get: (key: string): JudgeVerdict | undefined => {
        const row = s.cacheGet.get(key) as JudgeVerdict | undefined;
        return row ? { label: row.label, reason: row.reason } : undefined;
      },
      put: (key: string, entry: JudgeCacheEntry): void => {
        s.cachePut.run(
          key,
          entry.model,
          entry.promptSha256,
          entry.repeat,
          entry.verdict.label,
          entry.verdict.reason,
          entry.usage?.promptTokens ?? null,
          entry.usage?.completionTokens ?? null,
          iso(this.now()),
        );
      },
    };
  }

  /** The answerer's token totals over every answer of a run (every test, not just the final). */
  answerTokenTotals(runId: string): {
    calls: number;
    promptTokens: number;
    completionTokens: number;
  } {
    const row = this.db
      .prepare(
        `SELECT count(prompt_tokens) AS calls, COALESCE(SUM(prompt_tokens), 0) AS prompt,
                COALESCE(SUM(completion_tokens), 0) AS completion
         FROM answers WHERE run_id = ?`,
      )
      .get(runId) as { calls: number; prompt: number; completion: number };
    return { calls: row.calls, promptTokens: row.prompt, completionTokens: row.completion };
  }

  /** Rewrites a run's manifest (provenance that is only known later: judge, token totals). */
  updateManifest(runId: string, update: (m: RunManifest) => RunManifest): RunManifest {
    return this.db.transaction(() => {
      const row = this.db.prepare('SELECT manifest FROM runs WHERE id = ?').get(runId) as
        { manifest: string } | undefined;
      if (!row) throw new WorkbenchError('NOT_FOUND', `no run ${runId}`);
      const manifest = update(JSON.parse(row.manifest) as RunManifest);
      this.db
        .prepare('UPDATE runs SET manifest = ? WHERE id = ?')
        .run(JSON.stringify(manifest), runId);
      return manifest;
    })();
  }

  summary(runId: string): RunSummary {
    return summarizeAnswers(this.finalAnswers(runId), this.profileOf(runId));
  }

  /** The benchmark profile of a run's dataset: it names the categories and says what scores them. */
  profileOf(runId: string): BenchmarkProfile {
    const row = this.db.prepare('SELECT manifest FROM runs WHERE id = ?').get(runId) as
      { manifest: string } | undefined;
    if (!row) {
      throw new WorkbenchError('NOT_FOUND', `no run ${runId} in ${this.file}`, {
        where: this.file,
      });
    }
    return benchmarkProfile((JSON.parse(row.manifest) as RunManifest).dataset.format);
  }

  private toAnswers(
    runId: string,
    rows: readonly AnswerRow[],
    scores: Map<string, Scores>,
    profile: BenchmarkProfile = this.profileOf(runId),
  ): AnswerRecord[] {
    return rows.map((r) =>
      toAnswer(r, scores.get(answerKey(r.sample_id, r.test_index, r.question_index)), profile),
    );
  }

  curve(runId: string): CurvePoint[] {
    this.requireRun(runId);
    const tests = this.db
      .prepare('SELECT * FROM tests WHERE run_id = ? ORDER BY sample_id, test_index')
      .all(runId) as TestRow[];
    const answers = this.answersByTest(runId);
    const byTest = new Map<string, AnswerRecord[]>();
    for (const a of answers) {
      const key = `${a.sampleId}\u0000${a.testIndex}`;
      const list = byTest.get(key);
      if (list) list.push(a);
      else byTest.set(key, [a]);
    }
    return curveOf(
      tests.map((t) => ({
        sampleId: t.sample_id,
        testIndex: t.test_index,
        packetIdx: t.packet_idx,
        dialogsInserted: t.dialogs_inserted,
        visibleCount: t.visible_count,
        answers: byTest.get(`${t.sample_id}\u0000${t.test_index}`) ?? [],
      })),
    );
  }

  /** Deletes a run and everything it recorded; false when there was no such run. */
  deleteRun(runId: string): boolean {
    return this.db.transaction(() => {
      // Explicit, child first: does not depend on foreign_keys being on for an older connection.
      this.db.prepare('DELETE FROM answer_scores WHERE run_id = ?').run(runId);
      this.db.prepare('DELETE FROM answers WHERE run_id = ?').run(runId);
      this.db.prepare('DELETE FROM tests WHERE run_id = ?').run(runId);
      this.db.prepare('DELETE FROM run_samples WHERE run_id = ?').run(runId);
      return this.db.prepare('DELETE FROM runs WHERE id = ?').run(runId).changes === 1;
    })();
  }

  private requireRun(runId: string): void {
    if (!this.hasRun(runId)) {
      throw new WorkbenchError('NOT_FOUND', `no run ${runId} in ${this.file}`, {
        where: this.file,
      });
    }
  }

  private listItem(r: RunRow): RunListItem {
    const manifest = JSON.parse(r.manifest) as RunManifest;
    return {
      id: r.id,
      status: r.status,
      preset: r.preset,
      datasetPath: manifest.dataset.path,
      samples: r.sample_count,
      createdAt: r.created_at,
      endedAt: r.ended_at,
      insertErrors: r.insert_errors,
      answerErrors: r.answer_errors,
      resumes: r.resumes,
    };
  }
}

interface RunRow {
  id: string;
  status: RunStatus;
  created_at: string;
  started_at: string;
  ended_at: string | null;
  preset: string;
  config_hash: string;
  dataset_sha256: string | null;
  manifest: string;
  error: string | null;
  insert_errors: number;
  answer_errors: number;
  pid: number | null;
  resumes: number;
  sample_count: number;
}

interface SampleRow {
  sample_id: string;
  status: SampleStatus;
  total_packets: number;
  total_questions: number;
  threshold: number;
  planned_tests: number;
  insert_errors: number;
  insert_error_messages: string;
  notes: string;
  error: string | null;
  started_at: string | null;
  ended_at: string | null;
  tests_committed: number;
}

interface TestRow {
  sample_id: string;
  test_index: number;
  packet_idx: number;
  dialogs_inserted: number;
  visible_count: number;
}
