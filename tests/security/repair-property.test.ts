import {
  closeSync,
  copyFileSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite, type SqliteDatabase } from '../../src-main/core/sqlite';
import { repairRunsDb } from '../../src-main/core/runs/repair';
import { buildDb } from '../support/runs-db';

/**
 * Issue 39 item 5: `runs repair` kept 1,402 of 3,142 readable answers after 8 KB of random bytes
 * in the middle of a runs database, because a garbage rowid from the damaged page sent its scan
 * past every row after it. The property: whatever bytes land wherever, every row of the clean
 * file that SQLite still reads back unchanged from the damaged file by its own key is in the
 * repaired file, unchanged. The reader here knows every key from the clean copy and asks for each
 * one alone, so it finds what a scan would skip, and shares nothing with the repair's walk.
 */

const dir = mkdtempSync(join(tmpdir(), 'workbench-repair-property-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const clean = join(dir, 'clean.db');
buildDb(clean);
const fileBytes = statSync(clean).size;

interface TableRows {
  table: string;
  /** The columns a row is looked up by: rowid, or the primary key of a WITHOUT ROWID table. */
  key: string[];
  rows: Array<Record<string, unknown>>;
}

function cleanRows(): TableRows[] {
  const db = openSqlite(clean, { readonly: true });
  try {
    const tables = (
      db
        .prepare(
          "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
        )
        .all() as Array<{ name: string; sql: string }>
    ).map(({ name, sql }) => {
      const withoutRowid = /WITHOUT ROWID\s*$/i.test(sql);
      const key = withoutRowid
        ? (db.prepare(`PRAGMA table_info("${name}")`).all() as Array<{ name: string; pk: number }>)
            .filter((c) => c.pk > 0)
            .sort((a, b) => a.pk - b.pk)
            .map((c) => c.name)
        : ['rowid'];
      const select = withoutRowid ? '*' : 'rowid, *';
      return { table: name, key, rows: db.prepare(`SELECT ${select} FROM "${name}"`).all() };
    });
    return tables as TableRows[];
  } finally {
    db.close();
  }
}

const CLEAN = cleanRows();

type Lookup = (...key: unknown[]) => unknown;
const statements = new WeakMap<SqliteDatabase, Map<string, Lookup>>();

function lookup(db: SqliteDatabase, t: TableRows, row: Record<string, unknown>): unknown {
  const byTable = statements.get(db) ?? new Map<string, Lookup>();
  statements.set(db, byTable);
  let statement = byTable.get(t.table);
  if (statement === undefined) {
    const select = t.key[0] === 'rowid' ? 'rowid, *' : '*';
    const where = t.key.map((c) => `"${c}" = ?`).join(' AND ');
    const prepared = db.prepare(`SELECT ${select} FROM "${t.table}" WHERE ${where}`);
    statement = (...key: unknown[]) => prepared.get(...key);
    byTable.set(t.table, statement);
  }
  return statement(...t.key.map((c) => row[c]));
}

/** Each clean row that SQLite reads back unchanged, by its key alone, from `file`. */
function readableRows(file: string): Array<{ table: TableRows; row: Record<string, unknown> }> {
  let db: SqliteDatabase;
  try {
    db = openSqlite(file, { readonly: true, fileMustExist: true });
  } catch {
    return [];
  }
  const found: Array<{ table: TableRows; row: Record<string, unknown> }> = [];
  try {
    for (const t of CLEAN) {
      for (const row of t.rows) {
        try {
          const read = lookup(db, t, row);
          if (read !== undefined && JSON.stringify(read) === JSON.stringify(row)) {
            found.push({ table: t, row });
          }
        } catch {
          // Unreadable by its key: not a row the repair owes.
        }
      }
    }
  } finally {
    db.close();
  }
  return found;
}

/** Seeded bytes (xorshift): the same seed gives the same damage, so a failure replays. */
function noise(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = state & 0xff;
  }
  return bytes;
}

let copies = 0;
function damaged(offset: number, bytes: Buffer): string {
  const file = join(dir, `damaged-${++copies}.db`);
  copyFileSync(clean, file);
  const fd = openSync(file, 'r+');
  writeSync(fd, bytes, 0, bytes.length, offset);
  closeSync(fd);
  return file;
}

/** The repair of `file` against what a key-by-key reader gets from it before the repair. */
function checkRepairKeepsReadableRows(file: string): void {
  const owed = readableRows(file);
  const report = repairRunsDb(file);
  if (report.outcome === 'nothing-recovered') {
    expect(owed).toEqual([]);
    return;
  }
  const repaired = openSqlite(file, { readonly: true, fileMustExist: true });
  try {
    const missing = owed.filter(({ table, row }) => {
      const read = lookup(repaired, table, row);
      return read === undefined || JSON.stringify(read) !== JSON.stringify(row);
    });
    expect(
      missing.map(({ table, row }) => `${table.table} ${table.key.map((c) => row[c]).join('/')}`),
    ).toEqual([]);
  } finally {
    repaired.close();
  }
}

describe('runs repair walks every page it can read (issue 39 item 5)', () => {
  it('random bytes at random offsets never cost a row that can be read by its key', () => {
    fc.assert(
      fc.property(
        // Past the 100-byte header and the schema page: damage there leaves nothing to read.
        fc.integer({ min: 4096, max: fileBytes - 1 }),
        fc.integer({ min: 1, max: 8192 }),
        fc.integer(),
        (offset, length, seed) => {
          const file = damaged(offset, noise(length, seed));
          try {
            checkRepairKeepsReadableRows(file);
          } finally {
            for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
          }
        },
      ),
      { numRuns: 15, seed: 39 },
    );
  });

  it('8 KB of random bytes in the middle of the answers (the probe of the issue)', () => {
    for (const at of [0.4, 0.6, 0.8]) {
      const offset = Math.floor((fileBytes * at) / 4096) * 4096 + 1000;
      checkRepairKeepsReadableRows(damaged(offset, noise(8192, offset)));
    }
  });
});
