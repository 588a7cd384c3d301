import type { BenchmarkProfile } from '../../../src-shared/benchmarks';
import { metricOf, metricScores, type Scores } from '../../../src-shared/metrics';
import { WorkbenchError } from '../../../src-shared/errors';
import {
  curveOf,
  type AnswerRecord,
  type CurvePoint,
  type RunStatus,
  type RunSummary,
  type SampleStatus,
} from '../../../src-shared/experiment';
import {
  ManifestListViewSchema,
  checkManifestVersion,
  type LlmCallRecord,
  type LlmCallRole,
  type RunInfo,
  type RunListItem,
} from '../../../src-shared/runs';
import type { ProtocolJudgeSummary } from '../../../src-shared/rescore';
import type { JudgeIdentity } from '../../../src-shared/judges';
import { SweepTagSchema, type SweepRunRow } from '../../../src-shared/sweeps';
import { openSqlite, type SqliteDatabase } from '../sqlite';
import { RUNS_APPLICATION_ID, RUNS_DB_BUSY_TIMEOUT_MS } from './db';
import { RUNS_SCHEMA_VERSION } from './migrations';
import {
  answerColumns,
  answerKey,
  countFinalAnswers,
  groupScores,
  readFinalAnswers,
  runProfile,
  toAnswer,
  type AnswerReadOptions,
  type AnswerRow,
  type ScoreRow,
} from './answerRows';
import { StringListSchema, parseManifest, parseStoredJson } from './stored';
import { computeRunSummary, parseStoredSummary } from './summaries';
import { usageOf } from './usage';
import { readJudgeVerdicts, readProtocolJudges, type StoredJudgeVerdict } from './judgeReads';

/**
 * The read side of the runs database (Signal's Readable/Writable split): everything the UI, the
 * CLI and exports read. It never writes, so it also runs over a read-only connection in the read
 * worker (runs/readWorkers.ts) while the main thread stays the single writer (RunStore); WAL lets
 * both see every committed test.
 */
export interface RunReader {
  listRuns(): RunListItem[];
  hasRun(runId: string): boolean;
  getRun(runId: string): RunInfo;
  /** Test indices already committed for a sample (resume skips answering them). */
  committedTests(runId: string, sampleId: string): number[];
  /** Every answer of every test, by sample, test, question. */
  answersByTest(
    runId: string,
    filter?: { sampleId?: string; testIndex?: number },
    options?: AnswerReadOptions,
  ): AnswerRecord[];
  /** The headline: each question's answer at the last test that asked it. */
  finalAnswers(runId: string, options?: AnswerReadOptions): AnswerRecord[];
  /** A slice of `finalAnswers`' order, with how many there are in all. */
  finalAnswersPage(
    runId: string,
    offset: number,
    limit: number,
  ): { total: number; answers: AnswerRecord[] };
  /** J under each judge `rescore --judge` ran (protocol, model, origin, repeats order). */
  protocolJudges(runId: string): ProtocolJudgeSummary[];
  /** One of those judges' verdicts on the final answers (the run's own J is in the answers). */
  judgeVerdictsOf(runId: string, judge: JudgeIdentity): StoredJudgeVerdict[];
  /** Categories 1-4 answers a judge pass should score (`all`: every one). */
  answersToJudge(runId: string, options?: { all?: boolean }): AnswerRecord[];
  /** Every (role, model) of the run's LLM call ledger; empty for runs made before the ledger. */
  callLedger(runId: string): LlmCallRecord[];
  summary(runId: string): RunSummary;
  /** The benchmark profile of a run's dataset: it names the categories and says what scores them. */
  profileOf(runId: string): BenchmarkProfile;
  curve(runId: string): CurvePoint[];
  /** The runs tagged with a sweep (with `sweepId`, that sweep's), newest first. */
  sweepRuns(sweepId?: string): SweepRunRow[];
  /** The judge cache's verdicts (label and the judge's reason) stored under these keys. */
  judgeVerdicts(keys: readonly string[]): Map<string, { label: string; reason: string }>;
}

export class SqliteRunReader implements RunReader {
  readonly file: string;
  readonly db: SqliteDatabase;

  constructor(file: string, db: SqliteDatabase) {
    this.file = file;
    this.db = db;
  }

  /**
   * A read-only connection to a runs DB that a writer (RunStore.open) has already created and
   * migrated: it refuses any other file or schema version rather than misread it.
   */
  static openReadOnly(file: string): SqliteRunReader {
    let db: SqliteDatabase;
    try {
      db = openSqlite(file, { readonly: true, fileMustExist: true });
    } catch (error) {
      throw new WorkbenchError(
        'RUNS_DB',
        `runs database ${file}: cannot open for reading (${error instanceof Error ? error.message : String(error)})`,
        { where: file, cause: error },
      );
    }
    const appId = db.pragma('application_id', { simple: true }) as number;
    const version = db.pragma('user_version', { simple: true }) as number;
    if (appId !== RUNS_APPLICATION_ID || version !== RUNS_SCHEMA_VERSION) {
      db.close();
      throw new WorkbenchError(
        'RUNS_DB',
        `runs database ${file}: expected a runs database at schema ${RUNS_SCHEMA_VERSION}, found application id ${appId} schema ${version}`,
        { where: file },
      );
    }
    db.pragma(`busy_timeout = ${RUNS_DB_BUSY_TIMEOUT_MS}`);
    return new SqliteRunReader(file, db);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  listRuns(): RunListItem[] {
    const rows = this.db
      .prepare(
        `SELECT r.*, ${RUN_SAMPLE_COLUMNS}
         FROM runs r ORDER BY r.id DESC`,
      )
      .all() as RunRow[];
    // One damaged run is named in its row; it must not hide every other run.
    return rows.map((r) => {
      try {
        return this.listItem(r);
      } catch (error) {
        if (!(error instanceof WorkbenchError) || error.code !== 'RUNS_DB') throw error;
        return damagedListItem(r, this.damage(r.id, error), this.file);
      }
    });
  }

  judgeVerdicts(keys: readonly string[]): Map<string, { label: string; reason: string }> {
    const get = this.db.prepare('SELECT label, reason FROM judge_cache WHERE key = ?');
    const out = new Map<string, { label: string; reason: string }>();
    for (const key of keys) {
      const row = get.get(key) as { label: string; reason: string } | undefined;
      if (row) out.set(key, row);
    }
    return out;
  }

  hasRun(runId: string): boolean {
    return this.db.prepare('SELECT 1 FROM runs WHERE id = ?').get(runId) !== undefined;
  }

  getRun(runId: string): RunInfo {
    const r = this.db
      .prepare(
        `SELECT r.*, ${RUN_SAMPLE_COLUMNS}
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
    const manifest = parseManifest(this.file, r.id, r.manifest);
    // The stored totals are written when a run stops; a running or killed run's are in the ledger.
    const ledger =
      r.status === 'running' || r.status === 'interrupted' ? this.callLedger(runId) : [];
    return {
      ...this.listItem(r),
      manifest:
        ledger.length === 0
          ? manifest
          : { ...manifest, usage: usageOf(manifest.config, ledger, manifest.judge?.model ?? null) },
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
        insertErrorMessages: parseStoredJson(
          StringListSchema,
          s.insert_error_messages,
          `runs database ${this.file}: run ${runId} sample ${s.sample_id} insert_error_messages`,
        ),
        notes: parseStoredJson(
          StringListSchema,
          s.notes,
          `runs database ${this.file}: run ${runId} sample ${s.sample_id} notes`,
        ),
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
    options: AnswerReadOptions = {},
  ): AnswerRecord[] {
    this.requireRun(runId);
    const rows = this.db
      .prepare(
        `SELECT ${answerColumns('answers', options)} FROM answers WHERE run_id = ?
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

  protocolJudges(runId: string): ProtocolJudgeSummary[] {
    this.requireRun(runId);
    return readProtocolJudges(this.db, runId);
  }

  judgeVerdictsOf(runId: string, judge: JudgeIdentity): StoredJudgeVerdict[] {
    this.requireRun(runId);
    return readJudgeVerdicts(this.db, this.file, runId, judge);
  }

  finalAnswers(runId: string, options: AnswerReadOptions = {}): AnswerRecord[] {
    this.requireRun(runId);
    return readFinalAnswers(this.db, this.file, runId, this.profileOf(runId), undefined, options);
  }

  finalAnswersPage(
    runId: string,
    offset: number,
    limit: number,
  ): { total: number; answers: AnswerRecord[] } {
    this.requireRun(runId);
    return this.db.transaction(() => ({
      total: countFinalAnswers(this.db, runId),
      answers: readFinalAnswers(this.db, this.file, runId, this.profileOf(runId), {
        offset,
        limit,
      }),
    }))();
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

  /** Every (role, model) of the run's LLM call ledger; empty for runs made before the ledger. */
  callLedger(runId: string): LlmCallRecord[] {
    const rows = this.db
      .prepare(
        'SELECT role, model, calls, failures, prompt_tokens, completion_tokens, cache_hits, cache_misses FROM llm_calls WHERE run_id = ? ORDER BY role, model',
      )
      .all(runId) as Array<{
      role: LlmCallRole;
      model: string;
      calls: number;
      failures: number;
      prompt_tokens: number;
      completion_tokens: number;
      cache_hits: number;
      cache_misses: number;
    }>;
    return rows.map((r) => ({
      role: r.role,
      model: r.model,
      calls: r.calls,
      failures: r.failures,
      promptTokens: r.prompt_tokens,
      completionTokens: r.completion_tokens,
      cacheHits: r.cache_hits,
      cacheMisses: r.cache_misses,
    }));
  }

  /** The stored summary while it is current (NULL once answers or scores change), else computed. */
  summary(runId: string): RunSummary {
    const row = this.db.prepare('SELECT summary FROM runs WHERE id = ?').get(runId) as
      { summary: string | null } | undefined;
    return (
      (row ? parseStoredSummary(this.file, runId, row.summary) : null) ??
      computeRunSummary(this.db, this.file, runId)
    );
  }

  /** The benchmark profile of a run's dataset: it names the categories and says what scores them. */
  profileOf(runId: string): BenchmarkProfile {
    return runProfile(this.db, this.file, runId);
  }

  protected toAnswers(
    runId: string,
    rows: readonly AnswerRow[],
    scores: Map<string, Scores>,
    profile: BenchmarkProfile = this.profileOf(runId),
  ): AnswerRecord[] {
    return rows.map((r) =>
      toAnswer(
        this.file,
        r,
        scores.get(answerKey(r.sample_id, r.test_index, r.question_index)),
        profile,
      ),
    );
  }

  sweepRuns(sweepId?: string): SweepRunRow[] {
    const rows = this.db
      .prepare(
        `SELECT id, status, json_extract(manifest, '$.sweep') AS tag FROM runs
         WHERE json_extract(manifest, '$.sweep.sweepId') IS NOT NULL
           AND (? IS NULL OR json_extract(manifest, '$.sweep.sweepId') = ?)
         ORDER BY id DESC`,
      )
      .all(sweepId ?? null, sweepId ?? null) as Array<{
      id: string;
      status: RunStatus;
      tag: string;
    }>;
    return rows.flatMap((r) => {
      // A tag this build cannot read leaves that run out of the sweep views (runs.get names why)
      // rather than hiding every sweep.
      const tag = SweepTagSchema.safeParse(JSON.parse(r.tag));
      return tag.success ? [{ runId: r.id, status: r.status, tag: tag.data }] : [];
    });
  }

  curve(runId: string): CurvePoint[] {
    this.requireRun(runId);
    const tests = this.db
      .prepare('SELECT * FROM tests WHERE run_id = ? ORDER BY sample_id, test_index')
      .all(runId) as TestRow[];
    const answers = this.answersByTest(runId, {}, { retrieved: false });
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
      this.profileOf(runId),
    );
  }

  protected requireRun(runId: string): void {
    if (!this.hasRun(runId)) {
      throw new WorkbenchError('NOT_FOUND', `no run ${runId} in ${this.file}`, {
        where: this.file,
      });
    }
  }

  /** What is damaged, without the database and run the row already names. */
  private damage(runId: string, error: WorkbenchError): string {
    return error.message.replace(`runs database ${this.file}: run ${runId} `, '');
  }

  protected listItem(r: RunRow): RunListItem {
    const where = `runs database ${this.file}: run ${r.id} manifest`;
    const manifest = parseStoredJson(ManifestListViewSchema, r.manifest, where);
    checkManifestVersion(manifest, where);
    const answerer = manifest.answerer
      ? manifest.answerer.model
        ? `${manifest.answerer.name} (${manifest.answerer.model})`
        : manifest.answerer.name
      : null;
    return {
      id: r.id,
      name: r.name,
      tags: parseStoredJson(
        StringListSchema,
        r.tags,
        `runs database ${this.file}: run ${r.id} tags`,
      ),
      ...(manifest.sweep ? { sweep: manifest.sweep } : {}),
      sampleIds: sampleIdsOf(r, this.file),
      notes: r.notes,
      status: r.status,
      preset: r.preset,
      topK: manifest.config?.retrieval?.topK ?? null,
      seed: manifest.seed ?? null,
      answerer,
      judgeProtocol: manifest.judge?.prompt.style ?? null,
      questions: r.question_count,
      datasetPath: manifest.dataset.path,
      datasetSha256: r.dataset_sha256,
      samples: r.sample_count,
      createdAt: r.created_at,
      endedAt: r.ended_at,
      insertErrors: r.insert_errors,
      answerErrors: r.answer_errors,
      resumes: r.resumes,
      ...this.storedSummary(r),
    };
  }

  /** A broken stored summary is no summary (rescore rebuilds it from the answers), and is said. */
  private storedSummary(r: RunRow): Pick<RunListItem, 'summary' | 'damaged'> {
    try {
      return { summary: parseStoredSummary(this.file, r.id, r.summary) };
    } catch (error) {
      if (!(error instanceof WorkbenchError) || error.code !== 'RUNS_DB') throw error;
      return { summary: null, damaged: this.damage(r.id, error) };
    }
  }
}

/** What a run's list item says of its samples: how many, their questions, and which (in order). */
const RUN_SAMPLE_COLUMNS = `(SELECT count(*) FROM run_samples s WHERE s.run_id = r.id) AS sample_count,
  (SELECT coalesce(sum(s.total_questions), 0) FROM run_samples s WHERE s.run_id = r.id) AS question_count,
  (SELECT json_group_array(sample_id) FROM
     (SELECT s.sample_id FROM run_samples s WHERE s.run_id = r.id ORDER BY s.position)) AS sample_ids`;

/** The sample ids column; a run's own rows, so unreadable means a damaged database, named. */
function sampleIdsOf(r: RunRow, file: string): string[] {
  return parseStoredJson(
    StringListSchema,
    r.sample_ids,
    `runs database ${file}: run ${r.id} samples`,
  );
}

/** A run whose manifest or tags cannot be read: what its row still says, and what is damaged. */
function damagedListItem(r: RunRow, damaged: string, file: string): RunListItem {
  let sampleIds: string[] = [];
  try {
    sampleIds = sampleIdsOf(r, file);
  } catch {
    // The damage already named is what the row shows; its samples stay unknown.
  }
  return {
    id: r.id,
    name: r.name,
    tags: [],
    sampleIds,
    notes: r.notes,
    status: r.status,
    preset: r.preset,
    topK: null,
    seed: null,
    answerer: null,
    judgeProtocol: null,
    questions: r.question_count,
    datasetPath: '',
    datasetSha256: r.dataset_sha256,
    samples: r.sample_count,
    createdAt: r.created_at,
    endedAt: r.ended_at,
    insertErrors: r.insert_errors,
    answerErrors: r.answer_errors,
    resumes: r.resumes,
    summary: null,
    damaged,
  };
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
  name: string;
  /** JSON array of strings. */
  tags: string;
  notes: string;
  /** JSON RunSummary; NULL while none is current. */
  summary: string | null;
  sample_count: number;
  question_count: number;
  /** JSON array of the run's sample ids, in its order. */
  sample_ids: string;
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
