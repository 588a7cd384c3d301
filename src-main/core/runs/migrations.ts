import type { SqliteDatabase } from '../sqlite';
import { writeRunSummaryIfReadable } from './summaries';

/**
 * The runs database's schema as versioned migrations (PRAGMA user_version), applied in order by
 * db.ts's `migrate`; each has its test in db.test.ts.
 */

export interface Migration {
  version: number;
  description: string;
  up: string;
  /**
   * Rebuilds a table other tables reference (SQLite cannot change a CHECK in place): foreign keys
   * go off around it, or dropping the old table would cascade-delete its children. The foreign
   * keys are checked before the migration commits.
   */
  rebuildsTables?: boolean;
  /** Fills what SQL alone cannot (values computed in TypeScript), in the migration's transaction. */
  backfill?: (db: SqliteDatabase) => void;
}

/** Append only: a released migration is never edited, the next one fixes it. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'runs, run_samples, tests, answers',
    up: `
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        status TEXT NOT NULL CHECK (status IN ('running','completed','cancelled','failed','interrupted')),
        created_at TEXT NOT NULL,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        preset TEXT NOT NULL,
        config_hash TEXT NOT NULL,
        dataset_sha256 TEXT,
        manifest TEXT NOT NULL,
        error TEXT,
        insert_errors INTEGER NOT NULL DEFAULT 0,
        answer_errors INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE run_samples (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        sample_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending','running','completed','cancelled','failed')),
        total_packets INTEGER NOT NULL,
        total_questions INTEGER NOT NULL,
        threshold INTEGER NOT NULL,
        planned_tests INTEGER NOT NULL,
        insert_errors INTEGER NOT NULL DEFAULT 0,
        insert_error_messages TEXT NOT NULL DEFAULT '[]',
        notes TEXT NOT NULL DEFAULT '[]',
        error TEXT,
        started_at TEXT,
        ended_at TEXT,
        PRIMARY KEY (run_id, sample_id)
      );
      CREATE TABLE tests (
        run_id TEXT NOT NULL,
        sample_id TEXT NOT NULL,
        test_index INTEGER NOT NULL,
        packet_idx INTEGER NOT NULL,
        dialogs_inserted INTEGER NOT NULL,
        visible_count INTEGER NOT NULL,
        question_indices TEXT NOT NULL,
        committed_at TEXT NOT NULL,
        PRIMARY KEY (run_id, sample_id, test_index),
        FOREIGN KEY (run_id, sample_id) REFERENCES run_samples(run_id, sample_id) ON DELETE CASCADE
      );
      CREATE TABLE answers (
        run_id TEXT NOT NULL,
        sample_id TEXT NOT NULL,
        test_index INTEGER NOT NULL,
        question_index INTEGER NOT NULL,
        category INTEGER NOT NULL,
        question TEXT NOT NULL,
        gold TEXT,
        prediction TEXT NOT NULL,
        retrieved TEXT NOT NULL,
        official_f1 REAL NOT NULL,
        evidence_recall REAL,
        retrieve_ms REAL NOT NULL,
        answer_ms REAL NOT NULL,
        error TEXT,
        PRIMARY KEY (run_id, sample_id, test_index, question_index),
        FOREIGN KEY (run_id, sample_id, test_index)
          REFERENCES tests(run_id, sample_id, test_index) ON DELETE CASCADE
      );
    `,
  },
  {
    version: 2,
    description: 'owner pid (interrupted-run detection), resume count, final-answer index',
    up: `
      ALTER TABLE runs ADD COLUMN pid INTEGER;
      ALTER TABLE runs ADD COLUMN resumes INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX answers_by_question ON answers (run_id, sample_id, question_index, test_index);
    `,
  },
  {
    version: 3,
    description: 'Mem0-style metrics, judge verdicts and token usage per answer; the judge cache',
    up: `
      ALTER TABLE answers ADD COLUMN set_f1 REAL;
      ALTER TABLE answers ADD COLUMN bleu1 REAL;
      ALTER TABLE answers ADD COLUMN judge_mean REAL;
      ALTER TABLE answers ADD COLUMN judge_std REAL;
      ALTER TABLE answers ADD COLUMN judge_labels TEXT;
      ALTER TABLE answers ADD COLUMN judge_error TEXT;
      ALTER TABLE answers ADD COLUMN prompt_tokens INTEGER;
      ALTER TABLE answers ADD COLUMN completion_tokens INTEGER;
      CREATE TABLE judge_cache (
        key TEXT PRIMARY KEY,
        model TEXT NOT NULL,
        prompt_sha256 TEXT NOT NULL,
        repeat INTEGER NOT NULL,
        label TEXT NOT NULL CHECK (label IN ('CORRECT','WRONG')),
        reason TEXT NOT NULL,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        created_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 4,
    description: "run status 'degraded'; the ledger of every LLM call a run made",
    rebuildsTables: true,
    up: `
      CREATE TABLE runs_v4 (
        id TEXT PRIMARY KEY,
        status TEXT NOT NULL CHECK (status IN ('running','completed','degraded','cancelled','failed','interrupted')),
        created_at TEXT NOT NULL,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        preset TEXT NOT NULL,
        config_hash TEXT NOT NULL,
        dataset_sha256 TEXT,
        manifest TEXT NOT NULL,
        error TEXT,
        insert_errors INTEGER NOT NULL DEFAULT 0,
        answer_errors INTEGER NOT NULL DEFAULT 0,
        pid INTEGER,
        resumes INTEGER NOT NULL DEFAULT 0
      );
      INSERT INTO runs_v4 SELECT id, status, created_at, started_at, ended_at, preset, config_hash,
        dataset_sha256, manifest, error, insert_errors, answer_errors, pid, resumes FROM runs;
      DROP TABLE runs;
      ALTER TABLE runs_v4 RENAME TO runs;
      CREATE TABLE llm_calls (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('answer','judge','memory','embedder')),
        model TEXT NOT NULL,
        calls INTEGER NOT NULL DEFAULT 0,
        failures INTEGER NOT NULL DEFAULT 0,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (run_id, role, model)
      );
    `,
  },
  {
    version: 5,
    description:
      'scores in one table keyed by metric id (src-shared/metrics), moved out of the answers columns',
    // Only values that exist move: set F1 and BLEU-1 NULL on a pre-3 row of categories 1-4 was
    // "never computed" (the store recomputes those from the row), and J is stored only where a
    // verdict (or a judge error) was recorded. A NULL row value means "does not score it".
    up: `
      CREATE TABLE answer_scores (
        run_id TEXT NOT NULL,
        sample_id TEXT NOT NULL,
        test_index INTEGER NOT NULL,
        question_index INTEGER NOT NULL,
        metric TEXT NOT NULL,
        value REAL,
        PRIMARY KEY (run_id, sample_id, test_index, question_index, metric),
        FOREIGN KEY (run_id, sample_id, test_index, question_index)
          REFERENCES answers(run_id, sample_id, test_index, question_index) ON DELETE CASCADE
      ) WITHOUT ROWID;
      INSERT INTO answer_scores
        SELECT run_id, sample_id, test_index, question_index, 'officialF1', official_f1 FROM answers;
      INSERT INTO answer_scores
        SELECT run_id, sample_id, test_index, question_index, 'evidenceRecall', evidence_recall
        FROM answers;
      INSERT INTO answer_scores
        SELECT run_id, sample_id, test_index, question_index, 'setF1', set_f1
        FROM answers WHERE set_f1 IS NOT NULL;
      INSERT INTO answer_scores
        SELECT run_id, sample_id, test_index, question_index, 'bleu1', bleu1
        FROM answers WHERE bleu1 IS NOT NULL;
      INSERT INTO answer_scores
        SELECT run_id, sample_id, test_index, question_index, 'judge', judge_mean
        FROM answers WHERE judge_labels IS NOT NULL OR judge_error IS NOT NULL;
      ALTER TABLE answers DROP COLUMN official_f1;
      ALTER TABLE answers DROP COLUMN evidence_recall;
      ALTER TABLE answers DROP COLUMN set_f1;
      ALTER TABLE answers DROP COLUMN bleu1;
      ALTER TABLE answers DROP COLUMN judge_mean;
    `,
  },
  {
    version: 6,
    description:
      "BLEU-1 stored so far was computed on simple_tokenize tokens: keep it as 'bleu1Simple', so 'bleu1' means Mem0's word_tokenize BLEU-1 (recomputed on read for older rows)",
    up: `
      UPDATE answer_scores SET metric = 'bleu1Simple' WHERE metric = 'bleu1';
    `,
  },
  {
    version: 7,
    description:
      "a run's identity: the user's name, tags (a JSON array) and notes, set at launch and editable later",
    up: `
      ALTER TABLE runs ADD COLUMN name TEXT NOT NULL DEFAULT '';
      ALTER TABLE runs ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE runs ADD COLUMN notes TEXT NOT NULL DEFAULT '';
    `,
  },
  {
    version: 8,
    description:
      'judge verdicts per judge protocol from `rescore --judge`, beside (never replacing) the run’s own J',
    up: `
      CREATE TABLE protocol_judge_scores (
        run_id TEXT NOT NULL,
        sample_id TEXT NOT NULL,
        test_index INTEGER NOT NULL,
        question_index INTEGER NOT NULL,
        protocol TEXT NOT NULL,
        model TEXT NOT NULL,
        prompt_sha256 TEXT NOT NULL,
        mean REAL,
        labels TEXT NOT NULL,
        error TEXT,
        unparseable INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (run_id, sample_id, test_index, question_index, protocol),
        FOREIGN KEY (run_id, sample_id, test_index, question_index)
          REFERENCES answers(run_id, sample_id, test_index, question_index) ON DELETE CASCADE
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 9,
    description: "run status 'paused': the circuit breaker stopped the run, resumable",
    rebuildsTables: true,
    up: `
      CREATE TABLE runs_v9 (
        id TEXT PRIMARY KEY,
        status TEXT NOT NULL CHECK (status IN ('running','completed','degraded','cancelled','failed','interrupted','paused')),
        created_at TEXT NOT NULL,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        preset TEXT NOT NULL,
        config_hash TEXT NOT NULL,
        dataset_sha256 TEXT,
        manifest TEXT NOT NULL,
        error TEXT,
        insert_errors INTEGER NOT NULL DEFAULT 0,
        answer_errors INTEGER NOT NULL DEFAULT 0,
        pid INTEGER,
        resumes INTEGER NOT NULL DEFAULT 0,
        name TEXT NOT NULL DEFAULT '',
        tags TEXT NOT NULL DEFAULT '[]',
        notes TEXT NOT NULL DEFAULT ''
      );
      INSERT INTO runs_v9 SELECT id, status, created_at, started_at, ended_at, preset, config_hash,
        dataset_sha256, manifest, error, insert_errors, answer_errors, pid, resumes, name, tags, notes
        FROM runs;
      DROP TABLE runs;
      ALTER TABLE runs_v9 RENAME TO runs;
    `,
  },
  {
    version: 10,
    description:
      "a run's summary stored (JSON, NULL while stale) so lists read it rather than score every run",
    up: `
      ALTER TABLE runs ADD COLUMN summary TEXT;
    `,
    backfill: (db) => {
      const ids = db.prepare("SELECT id FROM runs WHERE status != 'running'").all() as Array<{
        id: string;
      }>;
      for (const { id } of ids) writeRunSummaryIfReadable(db, db.name, id);
    },
  },
  {
    version: 11,
    description:
      "call ledger role 'preflight': the launch's test request to each endpoint, so the ledger counts every request sent",
    up: `
      CREATE TABLE llm_calls_v11 (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('answer','judge','memory','embedder','preflight')),
        model TEXT NOT NULL,
        calls INTEGER NOT NULL DEFAULT 0,
        failures INTEGER NOT NULL DEFAULT 0,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (run_id, role, model)
      );
      INSERT INTO llm_calls_v11 SELECT run_id, role, model, calls, failures, prompt_tokens,
        completion_tokens FROM llm_calls;
      DROP TABLE llm_calls;
      ALTER TABLE llm_calls_v11 RENAME TO llm_calls;
    `,
  },
  {
    version: 12,
    description:
      "an answer's memory tokens (Mem0 Table 2: the retrieved context's tokens); NULL, unknown, on older runs",
    up: `
      ALTER TABLE answers ADD COLUMN memory_tokens INTEGER;
    `,
  },
  {
    version: 13,
    description:
      "the call ledger's cache hits and misses, filed as they happen so a kill -9 loses none; each kind of request a role sent (llm_request_shapes)",
    up: `
      ALTER TABLE llm_calls ADD COLUMN cache_hits INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE llm_calls ADD COLUMN cache_misses INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE llm_request_shapes (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        step TEXT NOT NULL,
        params TEXT NOT NULL,
        PRIMARY KEY (run_id, role, step, params)
      );
    `,
  },
  {
    version: 14,
    description:
      'a judge verdict keyed by its whole judge (protocol, model, endpoint origin, repeats), so several judges of one protocol sit side by side; older rows keep their model, origin unknown',
    // Nothing references this table, so rebuilding it cascades nothing. An older row's repeats are
    // its pass's (the longest label list of its run and protocol: a failed verdict has none).
    up: `
      CREATE TABLE protocol_judge_scores_by_judge (
        run_id TEXT NOT NULL,
        sample_id TEXT NOT NULL,
        test_index INTEGER NOT NULL,
        question_index INTEGER NOT NULL,
        protocol TEXT NOT NULL,
        model TEXT NOT NULL,
        origin TEXT NOT NULL,
        repeats INTEGER NOT NULL CHECK (repeats >= 1),
        prompt_sha256 TEXT NOT NULL,
        mean REAL,
        labels TEXT NOT NULL,
        error TEXT,
        unparseable INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (run_id, sample_id, test_index, question_index, protocol, model, origin, repeats),
        FOREIGN KEY (run_id, sample_id, test_index, question_index)
          REFERENCES answers(run_id, sample_id, test_index, question_index) ON DELETE CASCADE
      ) WITHOUT ROWID;
      INSERT INTO protocol_judge_scores_by_judge SELECT p.run_id, p.sample_id, p.test_index,
        p.question_index, p.protocol, p.model, '',
        (SELECT MAX(1, MAX(json_array_length(q.labels))) FROM protocol_judge_scores q
          WHERE q.run_id = p.run_id AND q.protocol = p.protocol),
        p.prompt_sha256, p.mean, p.labels, p.error, p.unparseable
        FROM protocol_judge_scores p;
      DROP TABLE protocol_judge_scores;
      ALTER TABLE protocol_judge_scores_by_judge RENAME TO protocol_judge_scores;
    `,
  },
  {
    version: 15,
    description:
      "human labels of a run's final answers (several labellers each) and the run's stored labelling sample",
    up: `
      CREATE TABLE label_plans (
        run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        per_category INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE label_sample (
        run_id TEXT NOT NULL REFERENCES label_plans(run_id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        sample_id TEXT NOT NULL,
        test_index INTEGER NOT NULL,
        question_index INTEGER NOT NULL,
        PRIMARY KEY (run_id, position),
        UNIQUE (run_id, sample_id, test_index, question_index),
        FOREIGN KEY (run_id, sample_id, test_index, question_index)
          REFERENCES answers(run_id, sample_id, test_index, question_index) ON DELETE CASCADE
      );
      CREATE TABLE human_labels (
        run_id TEXT NOT NULL,
        sample_id TEXT NOT NULL,
        test_index INTEGER NOT NULL,
        question_index INTEGER NOT NULL,
        labeller TEXT NOT NULL,
        label TEXT NOT NULL CHECK (label IN ('correct','wrong','unsure','skip')),
        labelled_at TEXT NOT NULL,
        PRIMARY KEY (run_id, sample_id, test_index, question_index, labeller),
        FOREIGN KEY (run_id, sample_id, test_index, question_index)
          REFERENCES answers(run_id, sample_id, test_index, question_index) ON DELETE CASCADE
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 16,
    description:
      'judge audit sets (answers of known truth built from a benchmark) and each judge’s verdicts on them, keyed by protocol, model and endpoint origin',
    up: `
      CREATE TABLE judge_audit_sets (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        benchmark TEXT NOT NULL,
        dataset_source TEXT NOT NULL,
        dataset_sha256 TEXT NOT NULL,
        seed INTEGER NOT NULL,
        per_category INTEGER NOT NULL,
        builder_version INTEGER NOT NULL
      );
      CREATE TABLE judge_audit_items (
        set_id TEXT NOT NULL REFERENCES judge_audit_sets(id) ON DELETE CASCADE,
        item_index INTEGER NOT NULL,
        sample_id TEXT NOT NULL,
        question_index INTEGER NOT NULL,
        category INTEGER NOT NULL,
        answer_class TEXT NOT NULL,
        question TEXT NOT NULL,
        gold TEXT NOT NULL,
        answer TEXT NOT NULL,
        expected TEXT NOT NULL CHECK (expected IN ('correct','wrong')),
        PRIMARY KEY (set_id, item_index)
      );
      CREATE TABLE judge_audit_verdicts (
        set_id TEXT NOT NULL,
        item_index INTEGER NOT NULL,
        judge_protocol TEXT NOT NULL,
        judge_model TEXT NOT NULL,
        judge_endpoint TEXT NOT NULL,
        prompt_sha256 TEXT NOT NULL,
        mean REAL,
        labels TEXT NOT NULL,
        error TEXT,
        judged_at TEXT NOT NULL,
        PRIMARY KEY (set_id, item_index, judge_protocol, judge_model, judge_endpoint),
        FOREIGN KEY (set_id, item_index) REFERENCES judge_audit_items(set_id, item_index) ON DELETE CASCADE
      );
      CREATE INDEX judge_audit_verdicts_by_judge
        ON judge_audit_verdicts (judge_protocol, judge_model, judge_endpoint);
    `,
  },
  {
    version: 17,
    description:
      "the ranking an answer's depth-reading metrics were scored on (LongMemEval's, past the top-k) and whether it reached their depth; NULL, not recorded, on older rows",
    up: `
      ALTER TABLE answers ADD COLUMN scoring_ranking TEXT;
    `,
  },
];

export const RUNS_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
