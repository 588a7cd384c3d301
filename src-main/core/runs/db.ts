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
import { MIGRATIONS, RUNS_SCHEMA_VERSION } from './migrations';

/**
 * The runs database file: format checks, WAL, and applying the versioned migrations
 * (migrations.ts, PRAGMA user_version).
 * A file that is not ours (random bytes, another program's SQLite database) or is from a newer
 * build is refused before anything writes to it, so it stays byte-for-byte as it was.
 */

/** "MWRN": marks a SQLite file as a Memory Workbench runs database. */
export const RUNS_APPLICATION_ID = 0x4d57524e;

const SQLITE_HEADER = Buffer.from('SQLite format 3\u0000', 'latin1');

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
