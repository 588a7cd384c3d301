import type { ErrorCode, ErrorPath, WorkbenchError } from '../../../src-shared/errors';
import { textHash } from './hash';
import type { IncomingItem, PendingItem } from '../../../src-shared/index-kinds/engine';
import type { Runtime } from './tx-context';
import type {
  EdgeInput,
  InsertOptions,
  InsertToIndexOptions,
  ItemInput,
  Metadata,
  SkippedMembership,
} from './types';
import {
  describe,
  idProblem,
  isPlainObject,
  textProblem,
  weightProblem,
} from '../../../src-shared/index-kinds/validate';

/**
 * Checking an item to insert and preparing what each target index takes of it, before the write
 * transaction: every problem is found here, so a refused batch writes nothing.
 */

/** What preparing needs of the collection: its indexes by name and its error wording. */
export interface PrepareContext {
  runtime(name: string): Runtime;
  error(code: ErrorCode, message: string, path?: ErrorPath): WorkbenchError;
}

export interface PreparedItem {
  /** How messages name the item: `item 'abc'` or `items[3]`. */
  label: string;
  id: string | undefined;
  text: string;
  hash: number;
  metadata: Metadata;
  metadataJson: string;
  /** What each target index's kind prepared for this item (a vector, a sort value...). */
  payloads: Map<Runtime, unknown>;
  /** Target runtimes this item joins (skipped memberships removed). */
  targets: Runtime[];
  edges: readonly EdgeInput[];
}

export function prepareItem(
  ctx: PrepareContext,
  raw: ItemInput | string,
  i: number,
  options: InsertOptions,
  targets: Runtime[],
  explicit: boolean,
  skipped: SkippedMembership[],
): PreparedItem {
  const item: ItemInput = typeof raw === 'string' ? { text: raw } : raw;
  if (!isPlainObject(item)) {
    throw ctx.error(
      'INVALID_INPUT',
      `items[${i}] must be a string or an object, got ${describe(raw)}`,
      ['items', i],
    );
  }
  if (item.id !== undefined) {
    const problem = idProblem(item.id, `items[${i}].id`);
    if (problem) throw ctx.error('INVALID_INPUT', problem, ['items', i, 'id']);
  }
  const label = item.id !== undefined ? `item '${item.id}'` : `items[${i}]`;
  const problem = textProblem(item.text, `${label}: text`);
  if (problem) throw ctx.error('INVALID_INPUT', problem, ['items', i, 'text']);
  const metadata = item.metadata ?? options.metadata ?? {};
  if (!isPlainObject(metadata)) {
    throw ctx.error(
      'INVALID_INPUT',
      `${label}: metadata must be a plain object, got ${describe(metadata)}`,
      ['items', i, 'metadata'],
    );
  }
  let metadataJson: string;
  try {
    metadataJson = JSON.stringify(metadata);
  } catch (error) {
    throw ctx.error(
      'INVALID_INPUT',
      `${label}: metadata is not JSON-serialisable (${(error as Error).message})`,
      ['items', i, 'metadata'],
    );
  }
  // Every given vector and index text is checked (in the caller's order) before any index
  // prepares the item.
  const given = new Map<Runtime, unknown>();
  for (const [indexName, value] of Object.entries(item.vectors ?? options.vectors ?? {})) {
    const rt = ctx.runtime(indexName);
    if (!rt.handle.acceptVector) {
      throw ctx.error(
        'INVALID_INPUT',
        `${label}: a vector was given for index '${indexName}', which is a ${rt.kind.type} index`,
      );
    }
    if (!targets.includes(rt)) continue;
    given.set(rt, rt.handle.acceptVector(value, label));
  }
  const indexTexts: unknown = item.indexTexts ?? {};
  if (!isPlainObject(indexTexts)) {
    throw ctx.error(
      'INVALID_INPUT',
      `${label}: indexTexts must be an object of text per index name, got ${describe(indexTexts)}`,
      ['items', i, 'indexTexts'],
    );
  }
  for (const [indexName, value] of Object.entries(indexTexts)) {
    const rt = ctx.runtime(indexName);
    if (!rt.handle.acceptIndexText) {
      throw ctx.error(
        'INVALID_INPUT',
        `${label}: an index text was given for index '${indexName}', which is a ${rt.kind.type} index`,
        ['items', i, 'indexTexts', indexName],
      );
    }
    const textIssue = textProblem(value, `${label}: indexTexts.${indexName}`);
    if (textIssue || typeof value !== 'string') {
      throw ctx.error(
        'INVALID_INPUT',
        textIssue ?? `${label}: indexTexts.${indexName} must be a string`,
        ['items', i, 'indexTexts', indexName],
      );
    }
    if (targets.includes(rt)) given.set(rt, rt.handle.acceptIndexText(value, label));
  }
  const incoming: IncomingItem = { label, id: item.id, text: item.text, metadata };
  const payloads = new Map<Runtime, unknown>();
  const joined: Runtime[] = [];
  for (const rt of targets) {
    const prepared = prepareFor(ctx, rt, incoming, explicit);
    if ('skip' in prepared) {
      skipped.push({ id: item.id ?? label, index: rt.name, reason: prepared.skip });
      continue;
    }
    // A caller's vector or index text wins over what the kind prepared.
    const payload = given.has(rt) ? given.get(rt) : prepared.payload;
    if (payload !== undefined) payloads.set(rt, payload);
    joined.push(rt);
  }
  const edges = item.edges ?? options.edges ?? [];
  if (!Array.isArray(edges)) throw ctx.error('INVALID_INPUT', `${label}: edges must be an array`);
  edges.forEach((edge: EdgeInput, e) => {
    if (!isPlainObject(edge) || typeof edge.to !== 'string') {
      throw ctx.error(
        'INVALID_INPUT',
        `${label}: edges[${e}] must be {to: string, weight?: number}`,
      );
    }
    const weight = weightProblem(edge.weight, `${label}: edges[${e}].weight`);
    if (weight) throw ctx.error('INVALID_INPUT', weight);
  });
  return {
    label,
    id: item.id,
    text: item.text,
    hash: textHash(item.text),
    metadata,
    metadataJson,
    payloads,
    targets: joined,
    edges,
  };
}

/**
 * What `rt`'s kind makes of an item joining it. A kind may leave an item out only when it
 * joins by default ("every index"); when the caller named the index it must refuse instead.
 */
export function prepareFor(
  ctx: PrepareContext,
  rt: Runtime,
  item: IncomingItem,
  explicit: boolean,
): { payload: unknown } | { skip: string } {
  const prepared = rt.handle.prepare?.(item, explicit) ?? {};
  if (!('skip' in prepared)) return { payload: prepared.payload };
  if (explicit) {
    throw ctx.error(
      'INTERNAL',
      `index '${rt.name}' left out ${item.label} (${prepared.skip}) although the caller named it`,
    );
  }
  return prepared;
}

/** Lets each target index fill the payloads it still lacks (embedding), index by index. */
export async function completePayloads(items: PreparedItem[]): Promise<void> {
  const lacking = new Set<Runtime>();
  for (const item of items) {
    for (const rt of item.targets) {
      if (rt.handle.complete && !item.payloads.has(rt)) lacking.add(rt);
    }
  }
  for (const rt of lacking) {
    const joining = items.filter((item) => item.targets.includes(rt));
    const pending = joining.map((item) => ({
      label: item.label,
      text: item.text,
      payload: item.payloads.get(rt),
    }));
    await rt.handle.complete?.(pending);
    joining.forEach((item, i) => {
      const payload = pending[i]?.payload;
      if (payload !== undefined) item.payloads.set(rt, payload);
    });
  }
}

/** A stored item as its row holds it (metadata still JSON). */
interface StoredItemRow {
  seq: number;
  id: string;
  text: string;
  metadata: string;
}

/**
 * Stored items about to join `rt` (insertToIndex): what its kind prepares for each, a caller's
 * vector winning. Items already members, or listed twice, are reported instead.
 */
export function prepareStoredItems<R extends StoredItemRow>(
  ctx: PrepareContext,
  rt: Runtime,
  rows: readonly R[],
  vectors: InsertToIndexOptions['vectors'],
): { toAdd: Array<{ row: R; pending: PendingItem<unknown> }>; alreadyMember: string[] } {
  const alreadyMember: string[] = [];
  const toAdd: Array<{ row: R; pending: PendingItem<unknown> }> = [];
  rows.forEach((row, i) => {
    if (rt.members.has(row.seq) || toAdd.some((entry) => entry.row.seq === row.seq)) {
      alreadyMember.push(row.id);
      return;
    }
    const label = `item '${row.id}'`;
    const item: IncomingItem = {
      label,
      id: row.id,
      text: row.text,
      metadata: JSON.parse(row.metadata) as Metadata,
    };
    const prepared = prepareFor(ctx, rt, item, true);
    let payload = 'skip' in prepared ? undefined : prepared.payload;
    const given = vectors?.[i];
    if (given !== undefined && rt.handle.acceptVector) {
      payload = rt.handle.acceptVector(given, label);
    }
    toAdd.push({ row, pending: { label, text: row.text, payload } });
  });
  return { toAdd, alreadyMember };
}
