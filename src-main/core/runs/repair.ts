import { existsSync, renameSync, rmSync } from 'node:fs';
import { WorkbenchError } from '../../../src-shared/errors';
import { openSqlite, type SqliteDatabase } from '../sqlite';
import { integrityProblems, isCorruptionError, openRunsDb } from './db';

/**
 * `runs repair`: rebuilds a damaged runs database from every row SQLite can still read.
 *
 * better-sqlite3 has no `.recover`, so this reads each table row by row in rowid order. When a
 * scan hits an unreadable page, it seeks past it (exponential then binary search over rowids for
 * the first one that can be reached again) and goes on, so one bad page costs only its own rows.
 * The copy is built in a temporary file; only when it is complete is the damaged file (with its
 * -wal/-shm) renamed to `<file>.corrupt-<timestamp>` and the copy put in its place. Nothing that
 * was readable is lost, and the damaged original is kept byte for byte.
 */

/** Child tables after their parents; the order a fresh database needs. */
const TABLES = ['runs', 'run_samples', 'tests', 'answers', 'judge_cache'] as const;

export interface TableRepair {
  table: string;
  recovered: number;
  /** Rowid ranges that could not be read (inclusive; `null` end = to the end of the table). */
  unreadable: Array<[number, number | null]>;
  /** Readable rows the fresh database refused (garbage that broke a constraint). */
  rejected: number;
}

export interface RepairReport {
  file: string;
  /** What integrity_check found before the repair; empty when the file was intact. */
  problems: string[];
  /** Where the damaged original was kept; null when nothing was repaired. */
  damagedCopy: string | null;
  tables: TableRepair[];
  /** Run ids in the repaired database. */
  runs: string[];
  /** Rows whose parent row was lost (kept, so nothing readable is dropped; listed by table). */
  orphans: Record<string, number>;
}

export interface RepairOptions {
  now?: () => number;
  /** Rebuild even when integrity_check finds nothing. */
  force?: boolean;
}

const MAX_ROWID = Number.MAX_SAFE_INTEGER;
const MIN_ROWID = -Number.MAX_SAFE_INTEGER;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function stampOf(ms: number): string {
  return new Date(ms).toISOString().replaceAll(':', '').replaceAll('-', '').replace('.', '-');
}

function columnsOf(db: SqliteDatabase, table: string): string[] {
  return (db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>).map(
    (c) => c.name,
  );
}

/** The first rowid > after that a seek can reach, or null past the end. */
function nextReadable(
  seek: (rowid: number) => number | null | 'bad',
  after: number,
): number | null {
  let lo = after;
  let step = 1;
  let hi = after + step;
  let found = seek(hi);
  while (found === 'bad') {
    lo = hi;
    step *= 2;
    if (after + step > MAX_ROWID) return null;
    hi = after + step;
    found = seek(hi);
  }
  // Smallest probe in (lo, hi] that a seek can reach: rows before it sit on the unreadable page.
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const at = seek(mid);
    if (at === 'bad') lo = mid;
    else {
      hi = mid;
      found = at;
    }
  }
  return found;
}

function copyTable(source: SqliteDatabase, target: SqliteDatabase, table: string): TableRepair {
  const result: TableRepair = { table, recovered: 0, unreadable: [], rejected: 0 };
  let sourceColumns: string[];
  try {
    sourceColumns = columnsOf(source, table);
  } catch (error) {
    if (!isCorruptionError(error)) throw error;
    result.unreadable.push([MIN_ROWID, null]);
    return result;
  }
  const targetColumns = new Set(columnsOf(target, table));
  const columns = sourceColumns.filter((c) => targetColumns.has(c));
  if (columns.length === 0) return result;
  const list = columns.map((c) => `"${c}"`).join(', ');
  const scan = source.prepare(
    `SELECT rowid AS "__rowid", ${list} FROM "${table}" WHERE rowid >= ? ORDER BY rowid`,
  );
  const seekStatement = source.prepare(
    `SELECT rowid AS r FROM "${table}" WHERE rowid >= ? ORDER BY rowid LIMIT 1`,
  );
  const seek = (rowid: number): number | null | 'bad' => {
    try {
      const row = seekStatement.get(rowid) as { r: number } | undefined;
      return row ? row.r : null;
    } catch (error) {
      if (isCorruptionError(error)) return 'bad';
      throw error;
    }
  };
  const insert = target.prepare(
    `INSERT INTO "${table}" (rowid, ${list}) VALUES (?, ${columns.map(() => '?').join(', ')})`,
  );
  let after = MIN_ROWID;
  let stuckAt: number | null = null;
  for (;;) {
    try {
      // `>= after + 1`, not `> after`: SQLite would seek to `after`, onto the page that failed.
      for (const row of scan.iterate(after + 1) as Iterable<Record<string, unknown>>) {
        const rowid = row['__rowid'] as number;
        after = rowid;
        try {
          insert.run(rowid, ...columns.map((c) => row[c]));
          result.recovered++;
        } catch {
          result.rejected++;
        }
      }
      return result;
    } catch (error) {
      if (!isCorruptionError(error)) throw error;
      const next = nextReadable(seek, after);
      if (next === null) {
        result.unreadable.push([after + 1, null]);
        return result;
      }
      if (next === after + 1 && stuckAt === after) {
        // Its key can be reached but the row itself cannot be read: lose that one row only.
        result.unreadable.push([next, next]);
        after = next;
        continue;
      }
      if (next > after + 1) result.unreadable.push([after + 1, next - 1]);
      stuckAt = after;
      after = next - 1;
    }
  }
}

function moveWithJournal(from: string, to: string): void {
  renameSync(from, to);
  for (const suffix of ['-wal', '-shm']) {
    if (existsSync(`${from}${suffix}`)) renameSync(`${from}${suffix}`, `${to}${suffix}`);
  }
}

export function repairRunsDb(file: string, options: RepairOptions = {}): RepairReport {
  if (!existsSync(file)) {
    throw new WorkbenchError('NOT_FOUND', `runs repair: no runs database at ${file}`, {
      where: file,
    });
  }
  let source: SqliteDatabase;
  try {
    source = openSqlite(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new WorkbenchError('RUNS_DB', `runs repair: cannot open ${file} (${message(error)})`, {
      where: file,
      cause: error,
    });
  }
  const report: RepairReport = {
    file,
    problems: [],
    damagedCopy: null,
    tables: [],
    runs: [],
    orphans: {},
  };
  const temp = `${file}.repair-${process.pid}.tmp`;
  try {
    try {
      report.problems = integrityProblems(source, 'integrity_check');
    } catch (error) {
      if (!isCorruptionError(error)) throw error;
      report.problems = [message(error)];
    }
    if (report.problems.length === 0 && options.force !== true) return report;
    rmSync(temp, { force: true });
    const target = openRunsDb(temp, { skipIntegrityCheck: true });
    try {
      // Rows whose parent was lost are still readable data: keep them, list them below.
      target.pragma('foreign_keys = OFF');
      target.transaction(() => {
        for (const table of TABLES) report.tables.push(copyTable(source, target, table));
      })();
      report.runs = (
        target.prepare('SELECT id FROM runs ORDER BY id').all() as Array<{ id: string }>
      ).map((r) => r.id);
      for (const row of target.pragma('foreign_key_check') as Array<{ table: string }>) {
        report.orphans[row.table] = (report.orphans[row.table] ?? 0) + 1;
      }
    } finally {
      target.close();
    }
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  } finally {
    source.close();
  }
  const damagedCopy = `${file}.corrupt-${stampOf((options.now ?? Date.now)())}`;
  moveWithJournal(file, damagedCopy);
  moveWithJournal(temp, file);
  report.damagedCopy = damagedCopy;
  return report;
}
