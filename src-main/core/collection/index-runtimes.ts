import type Database from 'better-sqlite3';
import type { ErrorCode, WorkbenchError } from '../../../src-shared/errors';
import type { AnyIndexEngine, KindContext } from '../../../src-shared/index-kinds/engine';
import { findIndexKind, indexKindTypes } from './kinds/registry';
import type { Statements } from './item-rows';
import type { Runtime } from './tx-context';
import { sameSet } from '../../../src-shared/index-kinds/validate';

/** Opening the collection's indexes: each stored index's kind, config and members. */

/** Opens one index: its members read from SQLite (none when `fresh`), then its kind's handle. */
export function openRuntime(
  db: Database.Database,
  kindContext: KindContext,
  id: number,
  name: string,
  kind: AnyIndexEngine,
  config: { type: string },
  fresh: boolean,
): Runtime {
  const members = new Set<number>();
  if (!fresh) {
    const rows = db
      .prepare(`SELECT item_seq FROM ${kind.memberTable} WHERE index_id = ? ORDER BY item_seq`)
      .iterate(id) as Iterable<{ item_seq: number }>;
    for (const row of rows) members.add(row.item_seq);
  }
  const handle = kind.open(kindContext, { id, name, config, fresh, members });
  return { id, name, kind, config, members, handle };
}

/**
 * Opens every stored index into `runtimes`, in creation order. An index of a type this build does
 * not know, or with a config it cannot read, refuses the whole collection rather than drop it.
 */
export function loadRuntimes(
  db: Database.Database,
  kindContext: KindContext,
  runtimes: Map<string, Runtime>,
  error: (code: ErrorCode, message: string) => WorkbenchError,
): void {
  const rows = db
    .prepare('SELECT index_id, name, type, config FROM indexes ORDER BY index_id')
    .all() as Array<{ index_id: number; name: string; type: string; config: string }>;
  for (const row of rows) {
    const kind = findIndexKind(row.type);
    if (!kind) {
      throw error(
        'COLLECTION',
        `index '${row.name}' has type '${row.type}', which this build does not know (known: ${indexKindTypes().join(', ')})`,
      );
    }
    let config: { type: string };
    try {
      config = kind.configSchema.parse(JSON.parse(row.config));
    } catch (cause) {
      throw error(
        'COLLECTION',
        `index '${row.name}' has an unreadable stored config (${(cause as Error).message})`,
      );
    }
    runtimes.set(
      row.name,
      openRuntime(db, kindContext, row.index_id, row.name, kind, config, false),
    );
  }
}

/**
 * Every index's in-memory members compared with SQLite, then the kind's own check; the problems
 * found (empty when consistent).
 */
export function integrityProblems(stmt: Statements, runtimes: Iterable<Runtime>): string[] {
  const problems: string[] = [];
  for (const rt of runtimes) {
    const rows = stmt(`SELECT item_seq FROM ${rt.kind.memberTable} WHERE index_id = ?`).all(
      rt.id,
    ) as Array<{ item_seq: number }>;
    const stored = new Set(rows.map((r) => r.item_seq));
    if (!sameSet(stored, rt.members))
      problems.push(`index '${rt.name}': members differ from SQLite`);
    problems.push(...(rt.handle.checkIntegrity?.(stored) ?? []));
  }
  return problems;
}
