import type Database from 'better-sqlite3';
import type { ErrorCode, WorkbenchError } from '../../../src-shared/errors';
import type { ScoredSeq } from '../../../src-shared/index-kinds/engine';
import type { PreparedItem } from './prepare-item';
import type { TxContext } from './tx-context';
import type { Hit, InsertResult, Metadata, StoredItem } from './types';
import { describe } from '../../../src-shared/index-kinds/validate';

/** The `items` table: one row per stored item, read and written through cached statements. */

/** The collection's prepared-statement cache: one statement per SQL text. */
export type Statements = (sql: string) => Database.Statement;

export interface ItemRow {
  seq: number;
  id: string;
  text: string;
  metadata: string;
}

export type StoredRow = ItemRow & { created_at: number };

export function storedItem(row: StoredRow | undefined): StoredItem | null {
  if (!row) return null;
  return {
    id: row.id,
    text: row.text,
    metadata: JSON.parse(row.metadata) as Metadata,
    seq: row.seq,
    createdAt: row.created_at,
  };
}

/**
 * Item ids by seq, each read from SQLite once (rankMulti names every fused candidate): a seq names
 * one item for good (seqs are never reused, an item's id never changes), so only a delete makes an
 * entry stale.
 */
export class IdsBySeq {
  private readonly ids = new Map<number, string>();

  constructor(private readonly stmt: Statements) {}

  get(seq: number): string | undefined {
    const known = this.ids.get(seq);
    if (known !== undefined) return known;
    const row = this.stmt('SELECT id FROM items WHERE seq = ?').get(seq) as
      { id: string } | undefined;
    if (row !== undefined) this.ids.set(seq, row.id);
    return row?.id;
  }

  forget(seq: number): void {
    this.ids.delete(seq);
  }
}

/** The stored item with this id; `notFound` makes the error when there is none. */
export function requireItemRow(
  stmt: Statements,
  id: string,
  notFound: (message: string) => Error,
): ItemRow {
  const row = stmt('SELECT seq, id, text, metadata FROM items WHERE id = ?').get(id) as
    ItemRow | undefined;
  if (!row) throw notFound(`no item has id ${typeof id === 'string' ? `'${id}'` : describe(id)}`);
  return row;
}

function isUniqueViolation(error: unknown): boolean {
  return (
    error instanceof Error &&
    'code' in error &&
    ((error as { code: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE' ||
      (error as { code: unknown }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
  );
}

/** The id of a stored item with exactly this text, in this batch or already stored (dedup). */
export function findByText(
  stmt: Statements,
  item: PreparedItem,
  batch: Map<number, Array<{ text: string; id: string }>>,
): string | undefined {
  for (const entry of batch.get(item.hash) ?? []) if (entry.text === item.text) return entry.id;
  const rows = stmt('SELECT id, text FROM items WHERE text_hash = ? ORDER BY seq').all(
    item.hash,
  ) as Array<{
    id: string;
    text: string;
  }>;
  return rows.find((row) => row.text === item.text)?.id;
}

/** Inserts the item row; returns its id (the caller's, or `item-<seq>` when none was given). */
export function insertItemRow(
  stmt: Statements,
  item: PreparedItem,
  seq: number,
  createdAt: number,
  /** The error for a caller's id that is taken. */
  idTaken: (id: string) => Error,
): string {
  const insert = stmt(
    'INSERT INTO items (seq, id, text, metadata, created_at, text_hash) VALUES (?, ?, ?, ?, ?, ?)',
  );
  if (item.id !== undefined) {
    try {
      insert.run(seq, item.id, item.text, item.metadataJson, createdAt, item.hash);
    } catch (error) {
      if (isUniqueViolation(error)) throw idTaken(item.id);
      throw error;
    }
    return item.id;
  }
  // A caller may already use `item-<seq>`; then the next free suffix keeps ids deterministic.
  for (let attempt = 0; ; attempt++) {
    const id = attempt === 0 ? `item-${seq}` : `item-${seq}~${attempt}`;
    try {
      insert.run(seq, id, item.text, item.metadataJson, createdAt, item.hash);
      return id;
    } catch (error) {
      // Only a clash on `id` is worth another suffix; anything else (a seq clash) is a bug.
      if (!isUniqueViolation(error) || !String((error as Error).message).includes('items.id'))
        throw error;
    }
  }
}

/** Scored seqs as hits, best first; seqs whose item is gone are left out. */
export function hydrate(stmt: Statements, scored: ScoredSeq[], withMetadata: boolean): Hit[] {
  const byId = stmt('SELECT id, text, metadata FROM items WHERE seq = ?');
  const hits: Hit[] = [];
  for (const s of scored) {
    const row = byId.get(s.seq) as { id: string; text: string; metadata: string } | undefined;
    if (!row) continue;
    const hit: Hit = { id: row.id, text: row.text, score: s.score };
    if (withMetadata) hit.metadata = JSON.parse(row.metadata) as Metadata;
    if (s.depth !== undefined) hit.depth = s.depth;
    hits.push(hit);
  }
  return hits;
}

/** What writing items needs of the collection. */
export interface ItemWriter {
  stmt: Statements;
  now(): number;
  /** The next item seq, taken (the collection gives it back when the transaction fails). */
  takeSeq(): number;
  error(code: ErrorCode, message: string): WorkbenchError;
}

export type WrittenItems = Pick<InsertResult, 'ids' | 'inserted' | 'deduplicated'>;

/**
 * Inside the write transaction: each prepared item's row (or, with `dedup`, the id of an item
 * with the same text) and its memberships, then every edge.
 */
export function writeItems(
  writer: ItemWriter,
  ctx: TxContext,
  prepared: readonly PreparedItem[],
  dedup: boolean | undefined,
): WrittenItems {
  const ids: string[] = [];
  const deduplicated: string[] = [];
  let inserted = 0;
  const batchTexts = new Map<number, Array<{ text: string; id: string }>>();
  const seqs: Array<number | undefined> = [];
  for (const item of prepared) {
    if (dedup) {
      const existing = findByText(writer.stmt, item, batchTexts);
      if (existing !== undefined) {
        ids.push(existing);
        deduplicated.push(existing);
        seqs.push(undefined);
        continue;
      }
    }
    const seq = writer.takeSeq();
    const id = insertItemRow(writer.stmt, item, seq, writer.now(), (taken) =>
      writer.error('CONFLICT', `item id '${taken}' already exists`),
    );
    ids.push(id);
    seqs.push(seq);
    inserted++;
    if (dedup) {
      const bucket = batchTexts.get(item.hash) ?? [];
      bucket.push({ text: item.text, id });
      batchTexts.set(item.hash, bucket);
    }
    for (const rt of item.targets) {
      ctx.add(rt, seq, id, item.text, item.payloads.get(rt));
    }
  }
  // Edges last, so they may point at any item of the same batch.
  prepared.forEach((item, i) => {
    const seq = seqs[i];
    if (seq === undefined || item.edges.length === 0) return;
    const graphs = item.targets.filter((rt) => rt.handle.addEdgeTx !== undefined);
    if (graphs.length === 0) {
      throw writer.error('INVALID_INPUT', `${item.label} has edges but joins no graph index`);
    }
    const from = { seq, id: ids[i] ?? '' };
    for (const rt of graphs) {
      if (!ctx.isMember(rt, seq)) continue;
      for (const edge of item.edges) {
        rt.handle.addEdgeTx?.(ctx.view(rt), from, edge.to, edge.weight);
      }
    }
  });
  ctx.finish();
  return { ids, inserted, deduplicated };
}
