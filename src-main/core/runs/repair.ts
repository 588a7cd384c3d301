import { existsSync, renameSync, rmSync } from 'node:fs';
import { WorkbenchError } from '../../../src-shared/errors';
import { openSqlite, type SqliteDatabase } from '../sqlite';
import { integrityProblems, isCorruptionError, openRunsDb } from './db';
import { btreeKeys, PageSource, type KeyValue } from './pageWalk';

/**
 * `runs repair`: rebuilds a damaged runs database from every row SQLite can still read.
 *
 * better-sqlite3 has no `.recover`, so this reads every table of the schema (the list comes from
 * the migrated schema itself, so a table a migration adds is copied without a change here) in key
 * order. When a scan hits an unreadable page it seeks past it and goes on, so one bad page costs
 * only its own rows: a rowid table searches rowids (exponential then binary); a WITHOUT ROWID
 * table (answer_scores, protocol_judge_scores) seeks to the next key of its parent rows already
 * copied (the answers its scores belong to).
 * A scan still follows one cursor, and a garbage key on a damaged page can send it past every row
 * after it; so each table's b-tree is then walked page by page from the file's bytes
 * (./pageWalk.ts) and every key found there that the copy lacks is read by its key. The ranges
 * reported unreadable are the walk's: the pages it could not read, and keys it found whose row
 * SQLite could not read.
 * The copy is built in a temporary file; only when it holds at least one row is the damaged file
 * (with its -wal/-shm) renamed to `<file>.corrupt-<timestamp>` and the copy put in its place.
 * When nothing at all could be read (a destroyed header or schema page), the file is left as it
 * was and the report says so: an empty database never replaces one that held data.
 */

type SqlValue = string | number | bigint | Buffer | null;

export interface TableRepair {
  table: string;
  recovered: number;
  /** Rowid ranges that could not be read (inclusive; `null` end = to the end of the table). */
  unreadable: Array<[number, number | null]>;
  /**
   * WITHOUT ROWID tables: primary-key ranges that could not be read. Rows strictly between
   * `after` and `before` were lost; null = the table's start or end.
   */
  unreadableKeys: Array<{ after: SqlValue[] | null; before: SqlValue[] | null }>;
  /** Readable rows the fresh database refused (garbage that broke a constraint). */
  rejected: number;
}

export type RepairOutcome = 'intact' | 'repaired' | 'nothing-recovered';

export interface RepairReport {
  file: string;
  /**
   * `intact`: integrity_check found nothing, the file is untouched; `repaired`: the readable rows
   * replaced the file; `nothing-recovered`: not one row could be read, the file is untouched.
   */
  outcome: RepairOutcome;
  /** What integrity_check found before the repair; empty when the file was intact. */
  problems: string[];
  /** Where the damaged original was kept; null when nothing was replaced. */
  damagedCopy: string | null;
  tables: TableRepair[];
  /** Rows recovered over all tables. */
  recovered: number;
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

/**
 * Every table of the runs schema in `db` (a freshly migrated database), parents before children
 * (from each table's foreign keys), the order a fresh database fills in.
 */
export function schemaTables(db: SqliteDatabase): string[] {
  const names = (
    db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
      )
      .all() as Array<{ name: string }>
  ).map((r) => r.name);
  const ordered: string[] = [];
  const visit = (table: string, path: ReadonlySet<string>): void => {
    if (ordered.includes(table) || path.has(table)) return;
    for (const parent of parentTables(db, table)) visit(parent, new Set([...path, table]));
    ordered.push(table);
  };
  for (const name of names) visit(name, new Set());
  return ordered;
}

interface ForeignKey {
  table: string;
  from: string;
  to: string;
}

function foreignKeys(db: SqliteDatabase, table: string): Map<number, ForeignKey[]> {
  const byId = new Map<number, ForeignKey[]>();
  for (const row of db.pragma(`foreign_key_list("${table}")`) as Array<
    ForeignKey & { id: number; seq: number }
  >) {
    byId.set(row.id, [...(byId.get(row.id) ?? []), row]);
  }
  return byId;
}

function parentTables(db: SqliteDatabase, table: string): string[] {
  return [...foreignKeys(db, table).values()].map((columns) => columns[0]?.table ?? table);
}

function isWithoutRowid(db: SqliteDatabase, table: string): boolean {
  const row = db.prepare('SELECT wr FROM pragma_table_list WHERE name = ?').get(table) as
    { wr: number } | undefined;
  return row?.wr === 1;
}

function primaryKey(db: SqliteDatabase, table: string): string[] {
  return (db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string; pk: number }>)
    .filter((c) => c.pk > 0)
    .sort((x, y) => x.pk - y.pk)
    .map((c) => c.name);
}

const quoted = (columns: readonly string[]): string => columns.map((c) => `"${c}"`).join(', ');
const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

function copyTable(
  source: SqliteDatabase,
  target: SqliteDatabase,
  table: string,
  pages: PageSource | null,
): TableRepair {
  const result: TableRepair = {
    table,
    recovered: 0,
    unreadable: [],
    unreadableKeys: [],
    rejected: 0,
  };
  const keyed = isWithoutRowid(target, table);
  let sourceColumns: string[];
  try {
    sourceColumns = columnsOf(source, table);
  } catch (error) {
    if (!isCorruptionError(error)) throw error;
    if (keyed) result.unreadableKeys.push({ after: null, before: null });
    else result.unreadable.push([MIN_ROWID, null]);
    return result;
  }
  const targetColumns = new Set(columnsOf(target, table));
  const columns = sourceColumns.filter((c) => targetColumns.has(c));
  if (columns.length === 0) return result;
  const put = (insert: () => unknown): void => {
    try {
      insert();
      result.recovered++;
    } catch {
      result.rejected++;
    }
  };
  const copy: TableCopy = { source, target, table, columns, result, put };
  if (keyed) copyByKey(copy);
  else copyByRowid(copy);
  if (pages) copyByPages(copy, pages, keyed ? primaryKey(target, table) : null);
  return result;
}

/** One table's copy: the columns both files have, the report to fill, and the counting insert. */
interface TableCopy {
  source: SqliteDatabase;
  target: SqliteDatabase;
  table: string;
  columns: readonly string[];
  result: TableRepair;
  put: (insert: () => unknown) => void;
}

function copyByRowid({ source, target, table, columns, result, put }: TableCopy): void {
  const list = quoted(columns);
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
    `INSERT INTO "${table}" (rowid, ${list}) VALUES (?, ${placeholders(columns.length)})`,
  );
  let after = MIN_ROWID;
  let stuckAt: number | null = null;
  for (;;) {
    try {
      // `>= after + 1`, not `> after`: SQLite would seek to `after`, onto the page that failed.
      for (const row of scan.iterate(after + 1) as Iterable<Record<string, unknown>>) {
        const rowid = row['__rowid'] as number;
        after = rowid;
        put(() => insert.run(rowid, ...columns.map((c) => row[c])));
      }
      return;
    } catch (error) {
      if (!isCorruptionError(error)) throw error;
      const next = nextReadable(seek, after);
      if (next === null) {
        result.unreadable.push([after + 1, null]);
        return;
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

/**
 * Reads by its key every row whose key the page walk found and the copy lacks, and replaces the
 * scan's unreadable ranges with the walk's (finer: it knows which pages it could not read).
 * Nothing changes when the table's root page cannot be named (its schema row is unreadable).
 */
function copyByPages(
  { source, target, table, columns, result, put }: TableCopy,
  pages: PageSource,
  key: readonly string[] | null,
): void {
  let root: number | undefined;
  try {
    root = (
      source
        .prepare("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?")
        .get(table) as { rootpage: number } | undefined
    )?.rootpage;
  } catch (error) {
    if (!isCorruptionError(error)) throw error;
  }
  if (root === undefined) return;
  const list = quoted(columns);
  const where = key === null ? 'rowid = ?' : `(${quoted(key)}) = (${placeholders(key.length)})`;
  const read = source.prepare(`SELECT ${list} FROM "${table}" WHERE ${where}`);
  const have = target.prepare(`SELECT 1 FROM "${table}" WHERE ${where}`);
  const insert = target.prepare(
    key === null
      ? `INSERT INTO "${table}" (rowid, ${list}) VALUES (?, ${placeholders(columns.length)})`
      : `INSERT INTO "${table}" (${list}) VALUES (${placeholders(columns.length)})`,
  );
  // A WITHOUT ROWID table's entries hold its columns in this order: the key, then the rest.
  const entryColumns =
    key === null
      ? []
      : (
          source
            .prepare(
              `SELECT name FROM pragma_index_xinfo((SELECT name FROM pragma_index_list(?) WHERE origin = 'pk')) ORDER BY seqno`,
            )
            .all(table) as Array<{ name: string }>
        ).map((c) => c.name);
  const walk = btreeKeys<number | bigint | KeyValue[]>(
    pages,
    root,
    key === null ? null : { keyColumns: key.length, columns: entryColumns.length },
  );
  const failed: Array<number | bigint | KeyValue[]> = [];
  for (const found of walk.keys) {
    const at = Array.isArray(found) ? found.slice(0, key?.length) : [found];
    if (have.get(...at) !== undefined) continue;
    let row: Record<string, unknown> | undefined;
    try {
      row = read.get(...at) as Record<string, unknown> | undefined;
    } catch (error) {
      if (!isCorruptionError(error)) throw error;
      // SQLite's way to the entry passes a bad page; the entry itself was read whole on its own.
      if (Array.isArray(found) && found.length === entryColumns.length) {
        row = Object.fromEntries(entryColumns.map((c, i) => [c, found[i]]));
      } else {
        failed.push(Array.isArray(found) ? at : found);
        continue;
      }
    }
    // A key from garbage names no row: nothing to copy, nothing lost.
    if (row === undefined) continue;
    const values = columns.map((c) => row[c]);
    put(() => (key === null ? insert.run(found, ...values) : insert.run(...values)));
  }
  if (key === null) {
    const asRowid = (k: unknown): number => Number(k);
    result.unreadable = [
      ...walk.unreadable.map(({ after, upTo }): [number, number | null] => [
        after === null ? MIN_ROWID : asRowid(after) + 1,
        upTo === null ? null : asRowid(upTo),
      ]),
      ...failed.map((k): [number, number] => [asRowid(k), asRowid(k)]),
    ].sort((x, y) => x[0] - y[0]);
  } else {
    const asKey = (k: unknown): SqlValue[] | null => (k === null ? null : (k as SqlValue[]));
    result.unreadableKeys = [
      ...walk.unreadable.map(({ after, upTo }) => ({ after: asKey(after), before: asKey(upTo) })),
      // `after` = `before`: that one key was found on its page but its row could not be read.
      ...failed.map((k) => ({ after: asKey(k), before: asKey(k) })),
    ];
  }
}

/**
 * A WITHOUT ROWID table has no integer to search over, so past a bad page the scan seeks to the
 * next key prefix that its parent table (already copied into `target`) holds: a score's answer.
 * Rows in between whose parent was lost too cannot be told from the bad page's own, and are
 * reported inside the unreadable key range.
 */
function copyByKey({ source, target, table, columns, result, put }: TableCopy): void {
  const key = primaryKey(target, table);
  const list = quoted(columns);
  const keyList = quoted(key);
  const order = `ORDER BY ${keyList}`;
  const scanAll = source.prepare(`SELECT ${list} FROM "${table}" ${order}`);
  const scanAfter = source.prepare(
    `SELECT ${list} FROM "${table}" WHERE (${keyList}) > (${placeholders(key.length)}) ${order}`,
  );
  const scanFrom = source.prepare(
    `SELECT ${list} FROM "${table}" WHERE (${keyList}) >= (${placeholders(key.length)}) ${order}`,
  );
  const insert = target.prepare(
    `INSERT INTO "${table}" (${list}) VALUES (${placeholders(columns.length)})`,
  );
  // The parent whose key is this table's leading key columns gives the places to seek to.
  const parent = [...foreignKeys(target, table).values()].find((fk) =>
    fk.every((column, i) => key[i] === column.from),
  );
  const prefix = parent?.map((c) => c.from) ?? [];
  const parentKey = quoted(parent?.map((c) => c.to) ?? []);
  const parentTable = parent?.[0]?.table ?? table;
  const parentKeys = parent
    ? target.prepare(
        `SELECT DISTINCT ${parentKey} FROM "${parentTable}"
         WHERE (${parentKey}) > (${placeholders(prefix.length)}) ORDER BY ${parentKey}`,
      )
    : null;
  const parentKeysAll = parent
    ? target.prepare(`SELECT DISTINCT ${parentKey} FROM "${parentTable}" ORDER BY ${parentKey}`)
    : null;
  const seekStatement = source.prepare(
    `SELECT ${keyList} FROM "${table}" WHERE (${quoted(prefix)}) >= (${placeholders(prefix.length)}) ${order} LIMIT 1`,
  );
  const seek = (at: SqlValue[]): SqlValue[] | null | 'bad' => {
    try {
      const row = seekStatement.raw().get(...at) as SqlValue[] | undefined;
      return row ?? null;
    } catch (error) {
      if (isCorruptionError(error)) return 'bad';
      throw error;
    }
  };

  let last: SqlValue[] | null = null;
  let resumeAt: SqlValue[] | null = null;
  for (;;) {
    let progressed = false;
    try {
      const rows = (
        resumeAt !== null
          ? scanFrom.iterate(...resumeAt)
          : last !== null
            ? scanAfter.iterate(...last)
            : scanAll.iterate()
      ) as Iterable<Record<string, unknown>>;
      for (const row of rows) {
        progressed = true;
        const rowKey: SqlValue[] = key.map((c) => row[c] as SqlValue);
        last = rowKey;
        resumeAt = null;
        put(() => insert.run(...columns.map((c) => row[c])));
      }
      return;
    } catch (error) {
      if (!isCorruptionError(error)) throw error;
      // Seek from the parent key after the row last read, or (when a resume point could be
      // reached but its row not read) after that resume point's parent key.
      const from = !progressed && resumeAt !== null ? resumeAt : last;
      const candidates =
        parentKeys === null || parentKeysAll === null
          ? []
          : ((from === null
              ? parentKeysAll.raw().all()
              : parentKeys.raw().all(...from.slice(0, prefix.length))) as SqlValue[][]);
      const next = firstReachable(candidates, seek);
      const widened = !progressed && resumeAt !== null ? result.unreadableKeys.at(-1) : undefined;
      if (widened) widened.before = next;
      else result.unreadableKeys.push({ after: last, before: next });
      if (next === null) return;
      resumeAt = next;
    }
  }
}

/**
 * The key a seek reaches from the first candidate it can (candidates in key order; seeks to the
 * ones on or before the bad page fail): exponential then binary search, as for rowids.
 */
function firstReachable(
  candidates: readonly SqlValue[][],
  seek: (at: SqlValue[]) => SqlValue[] | null | 'bad',
): SqlValue[] | null {
  let lo = -1;
  let step = 1;
  let hi = 0;
  let found: SqlValue[] | null | 'bad' = 'bad';
  while (hi < candidates.length) {
    found = seek(candidates[hi] as SqlValue[]);
    if (found !== 'bad') break;
    lo = hi;
    hi = lo + step;
    step *= 2;
  }
  if (hi >= candidates.length) {
    hi = candidates.length;
    found = null;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const at = seek(candidates[mid] as SqlValue[]);
    if (at === 'bad') lo = mid;
    else {
      hi = mid;
      found = at;
    }
  }
  return found === 'bad' ? null : found;
}

/** The file's pages for the walk, or null when even its page size cannot be read. */
function openPages(source: SqliteDatabase, file: string): PageSource | null {
  try {
    return PageSource.open(file, source.pragma('page_size', { simple: true }) as number);
  } catch (error) {
    if (!isCorruptionError(error)) throw error;
    return null;
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
    outcome: 'intact',
    problems: [],
    damagedCopy: null,
    tables: [],
    recovered: 0,
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
    let pages: PageSource | null = null;
    try {
      pages = openPages(source, file);
      // Rows whose parent was lost are still readable data: keep them, list them below.
      target.pragma('foreign_keys = OFF');
      target.transaction(() => {
        for (const table of schemaTables(target))
          report.tables.push(copyTable(source, target, table, pages));
      })();
      report.recovered = report.tables.reduce((sum, t) => sum + t.recovered, 0);
      report.runs = (
        target.prepare('SELECT id FROM runs ORDER BY id').all() as Array<{ id: string }>
      ).map((r) => r.id);
      for (const row of target.pragma('foreign_key_check') as Array<{ table: string }>) {
        report.orphans[row.table] = (report.orphans[row.table] ?? 0) + 1;
      }
    } finally {
      pages?.close();
      target.close();
    }
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  } finally {
    source.close();
  }
  if (report.recovered === 0) {
    // An empty database in its place would read as "no runs" and bury the damaged file's data
    // (a specialist tool may still get it back): leave the file exactly as it was.
    rmSync(temp, { force: true });
    report.outcome = 'nothing-recovered';
    return report;
  }
  const damagedCopy = `${file}.corrupt-${stampOf((options.now ?? Date.now)())}`;
  moveWithJournal(file, damagedCopy);
  moveWithJournal(temp, file);
  report.damagedCopy = damagedCopy;
  report.outcome = 'repaired';
  return report;
}
