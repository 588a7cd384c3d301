import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { WorkbenchError } from '../../../src-shared/errors';
import { openSqlite, type SqliteDatabase } from '../sqlite';
import { writeRunSummaryIfReadable } from './summaries';

/**
 * The runs database file: format checks, WAL, and versioned migrations (PRAGMA user_version).
 * A file that is not ours (random bytes, another program's SQLite database) or is from a newer
 * build is refused before anything writes to it, so it stays byte-for-byte as it was.
 */

/** "MWRN": marks a SQLite file as a Memory Workbench runs database. */
export const RUNS_APPLICATION_ID = 0x4d57524e;

const SQLITE_HEADER = Buffer.from('SQLite format 3\u0000', 'latin1');

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
];

export const RUNS_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

function refuse(file: string, why: string): WorkbenchError {
  return new WorkbenchError('RUNS_DB', `runs database ${file}: ${why}; the file was not changed`, {
    where: file,
  });
}

/** Reads the header without SQLite, so a foreign file is never opened for writing. */
function checkHeader(file: string): 'absent' | 'empty' | 'sqlite' {
  if (!existsSync(file)) return 'absent';
  const info = statSync(file);
  if (!info.isFile()) throw refuse(file, 'not a regular file');
  if (info.size === 0) return 'empty';
  const header = Buffer.alloc(SQLITE_HEADER.length);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (!header.equals(SQLITE_HEADER)) throw refuse(file, 'not a SQLite database (bad header)');
  return 'sqlite';
}

/** SQLite's own words for a damaged file (SQLITE_CORRUPT and its extended codes, SQLITE_NOTADB). */
export function isCorruptionError(error: unknown): boolean {
  const code =
    error !== null && typeof error === 'object' && 'code' in error ? error.code : undefined;
  return (
    typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')
  );
}

/**
 * How long a runs DB connection waits for another connection's write lock (another CLI run, the
 * app, a `runs` command) before it gives up. Writers take the lock up front (`BEGIN IMMEDIATE`, see
 * `writeTransaction`), so waiting is all a busy file ever costs them; a test's commit holds the lock
 * for milliseconds.
 */
export const RUNS_DB_BUSY_TIMEOUT_MS = 5000;

/** SQLITE_BUSY and its extended codes: another connection held the lock past the busy timeout. */
function isLockedError(error: unknown): boolean {
  const code =
    error !== null && typeof error === 'object' && 'code' in error ? error.code : undefined;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** A busy file as a coded error naming it and the wait; anything else is passed through. */
export function lockedError(file: string, error: unknown): unknown {
  if (!isLockedError(error)) return error;
  return new WorkbenchError(
    'BUSY',
    `runs database ${file}: another process held its write lock for more than ${RUNS_DB_BUSY_TIMEOUT_MS} ms; nothing was written, try again when it has finished`,
    { where: file, cause: error },
  );
}

/**
 * Runs `fn` as one write transaction that takes the write lock before its first read
 * (`BEGIN IMMEDIATE`), so it waits out another writer under the busy timeout. A deferred
 * transaction would read first and then fail at once with SQLITE_BUSY when another process
 * committed in between: no busy timeout can save a read snapshot that went stale.
 */
export function writeTransaction<T>(db: SqliteDatabase, file: string, fn: () => T): T {
  try {
    return db.transaction(fn).immediate();
  } catch (error) {
    throw lockedError(file, error);
  }
}

export function repairHint(file: string): string {
  return `run "npm run -s cli -- runs repair --runs-db ${file}" to copy every readable row into a fresh database (the damaged file is kept beside it)`;
}

export function corruptError(file: string, detail: string, cause?: unknown): WorkbenchError {
  return new WorkbenchError(
    'RUNS_DB_CORRUPT',
    `runs database ${file} is damaged (${detail}); the file was not changed; ${repairHint(file)}`,
    { where: file, ...(cause === undefined ? {} : { cause }) },
  );
}

/**
 * `PRAGMA quick_check`: SQLite's b-tree and page checks without the index-content cross-check.
 * It reads every page (about 0.3-0.6 s for a 100 MB runs DB here, docs/benchmarks.md), so open
 * runs it once per file version (a stamp beside the file, `checkedStampMatches`); `runs repair`
 * runs the full integrity_check.
 */
export function integrityProblems(
  db: SqliteDatabase,
  mode: 'quick_check' | 'integrity_check' = 'quick_check',
): string[] {
  const rows = db.pragma(`${mode}(20)`) as Array<Record<string, string>>;
  const problems = rows.map((r) => String(Object.values(r)[0]));
  return problems.length === 1 && problems[0] === 'ok' ? [] : problems;
}

/** Files found intact by this process: checked once, not on every open. */
const checkedFiles = new Set<string>();

/**
 * What a runs DB's files looked like when a process last vouched for them: after its quick_check
 * passed, or when it closed the file it had checked and then wrote through SQLite. A later command
 * that finds the same sizes and times skips the check (1.4-1.7 s per command on a 724 MB file);
 * anything else touching the file (a copy, a kill mid-run, another tool) changes them.
 */
const checkedStampSchema = z
  .object({
    version: z.literal(1),
    db: z.tuple([z.number(), z.number()]),
    wal: z.tuple([z.number(), z.number()]).nullable(),
  })
  .strict();
type CheckedStamp = z.infer<typeof checkedStampSchema>;

/** The stamp's own file, beside the DB's. */
export function checkedStampFile(file: string): string {
  return `${file}.checked`;
}

function sizeAndTime(file: string): [number, number] | null {
  const stat = statSync(file, { throwIfNoEntry: false, bigint: false });
  // Whole milliseconds: what every filesystem and `utimes` keep.
  return stat ? [stat.size, Math.trunc(stat.mtimeMs)] : null;
}

function currentStamp(file: string): CheckedStamp | null {
  const db = sizeAndTime(file);
  if (!db) return null;
  // An empty WAL holds nothing to check (any reader opening the file may leave one).
  const wal = sizeAndTime(`${file}-wal`);
  return { version: 1, db, wal: wal && wal[0] > 0 ? wal : null };
}

/** True when the file is the version a process last stamped as checked. */
export function checkedStampMatches(file: string): boolean {
  let stored: unknown;
  try {
    stored = JSON.parse(readFileSync(checkedStampFile(file), 'utf8'));
  } catch {
    return false;
  }
  const parsed = checkedStampSchema.safeParse(stored);
  return parsed.success && JSON.stringify(parsed.data) === JSON.stringify(currentStamp(file));
}

/**
 * Records the file as this process leaves it, if this process checked it: the writes since were
 * SQLite's own. Best effort: a stamp that cannot be written only means the next open checks.
 */
export function stampChecked(file: string): void {
  if (file === ':memory:' || !checkedFiles.has(resolve(file))) return;
  const stamp = currentStamp(file);
  if (!stamp) return;
  try {
    writeFileSync(checkedStampFile(file), JSON.stringify(stamp));
  } catch {
    // A read-only folder: the next command checks again.
  }
}

function checkIntact(db: SqliteDatabase, file: string): void {
  const key = resolve(file);
  if (checkedFiles.has(key)) return;
  if (checkedStampMatches(file)) {
    checkedFiles.add(key);
    return;
  }
  let problems: string[];
  try {
    problems = integrityProblems(db);
  } catch (error) {
    if (!isCorruptionError(error)) throw error;
    problems = [error instanceof Error ? error.message : String(error)];
  }
  if (problems.length > 0) {
    const more = problems.length > 1 ? ` and ${problems.length - 1} more problems` : '';
    throw corruptError(file, `${problems[0]}${more}`);
  }
  checkedFiles.add(key);
  stampChecked(file);
}

/** Read-only look at an existing SQLite file: is it a runs DB this build can open? */
function inspect(file: string): void {
  let db: SqliteDatabase;
  try {
    db = openSqlite(file, {
      readonly: true,
      fileMustExist: true,
      timeout: RUNS_DB_BUSY_TIMEOUT_MS,
    });
  } catch (error) {
    throw refuse(
      file,
      `cannot be opened (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  try {
    const appId = db.pragma('application_id', { simple: true }) as number;
    const version = db.pragma('user_version', { simple: true }) as number;
    const tables = (
      db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as {
        n: number;
      }
    ).n;
    if (appId !== RUNS_APPLICATION_ID && !(appId === 0 && version === 0 && tables === 0)) {
      throw refuse(file, 'a SQLite database, but not a Memory Workbench runs database');
    }
    if (version > RUNS_SCHEMA_VERSION) {
      throw refuse(
        file,
        `schema version ${version} is newer than this build understands (${RUNS_SCHEMA_VERSION}); use a newer Memory Workbench`,
      );
    }
  } catch (error) {
    if (error instanceof WorkbenchError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (isCorruptionError(error)) throw corruptError(file, message, error);
    throw refuse(file, `unreadable (${message})`);
  } finally {
    db.close();
  }
}

/**
 * Applies migrations after the file's version, each in its own transaction, up to `target`. Two
 * processes may open a fresh file at once: each migration re-reads the version under the write
 * lock, so the second one skips what the first applied.
 */
export function migrate(
  db: SqliteDatabase,
  target: number = RUNS_SCHEMA_VERSION,
  file: string = db.name,
): number {
  const current = (): number => db.pragma('user_version', { simple: true }) as number;
  let version = current();
  for (const m of MIGRATIONS) {
    if (m.version <= version || m.version > target) continue;
    // A no-op inside a transaction, so it is switched here.
    const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number;
    if (m.rebuildsTables) db.pragma('foreign_keys = OFF');
    try {
      writeTransaction(db, file, () => {
        if (current() >= m.version) return;
        db.exec(m.up);
        m.backfill?.(db);
        if (m.rebuildsTables) {
          const broken = db.pragma('foreign_key_check') as unknown[];
          if (broken.length > 0) {
            throw new Error(`migration ${m.version} leaves ${broken.length} broken foreign key(s)`);
          }
        }
        db.pragma(`application_id = ${RUNS_APPLICATION_ID}`);
        db.pragma(`user_version = ${m.version}`);
      });
    } finally {
      if (m.rebuildsTables) db.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
    }
    version = m.version;
  }
  return version;
}

export interface OpenRunsDbOptions {
  /** Stop migrating at this version (tests build older-schema files with it). */
  targetVersion?: number;
  /** Skip the once-per-process quick_check (`runs repair` opens its fresh target with it). */
  skipIntegrityCheck?: boolean;
}

export function openRunsDb(file: string, options: OpenRunsDbOptions = {}): SqliteDatabase {
  if (file !== ':memory:' && checkHeader(file) === 'sqlite') inspect(file);
  let db: SqliteDatabase;
  try {
    // The busy timeout from the first statement on: even switching to WAL waits for a lock.
    db = openSqlite(file, { timeout: RUNS_DB_BUSY_TIMEOUT_MS });
  } catch (error) {
    throw new WorkbenchError(
      'RUNS_DB',
      `runs database ${file}: cannot open (${error instanceof Error ? error.message : String(error)})`,
      { where: file, cause: error },
    );
  }
  try {
    // Before anything writes (even the journal mode): a damaged file is refused as it is.
    if (file !== ':memory:' && options.skipIntegrityCheck !== true) checkIntact(db, file);
    db.pragma('journal_mode = WAL');
    // Under WAL, NORMAL keeps every committed test across a killed process (the OS holds the
    // pages); only a power cut can lose the last few commits, and never corrupts the file.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, options.targetVersion ?? RUNS_SCHEMA_VERSION, file);
  } catch (error) {
    db.close();
    if (error instanceof WorkbenchError) throw error;
    const locked = lockedError(file, error);
    if (locked instanceof WorkbenchError) throw locked;
    if (isCorruptionError(error)) {
      throw corruptError(file, error instanceof Error ? error.message : String(error), error);
    }
    throw new WorkbenchError(
      'RUNS_DB',
      `runs database ${file}: migration failed (${error instanceof Error ? error.message : String(error)})`,
      { where: file, cause: error },
    );
  }
  return db;
}
