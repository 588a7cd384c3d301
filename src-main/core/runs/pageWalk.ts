import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';

/**
 * The keys a damaged SQLite b-tree still holds, read page by page from the file's bytes (the
 * file format: https://www.sqlite.org/fileformat2.html), for `runs repair` (./repair.ts).
 *
 * SQLite's own scan follows one cursor: a garbage key on a damaged page sends it past every row
 * after it. This walk visits every page reachable from a table's root, parses each cell on its
 * own (a bad cell costs that cell, a bad page that page's subtree) and hands back every key it
 * found, so the repair can ask SQLite for each row by its key. Keys from garbage are harmless: a
 * lookup of a key that is not there finds nothing. Pages in the -wal file win over the file's own.
 */

export type KeyValue = string | number | bigint | Buffer | null;

/** A key range whose page could not be read: keys strictly after `after`, up to `upTo`. */
export interface UnreadableRange<K> {
  after: K | null;
  upTo: K | null;
}

export interface BtreeKeys<K> {
  keys: K[];
  unreadable: Array<UnreadableRange<K>>;
}

const TABLE_INTERIOR = 0x05;
const TABLE_LEAF = 0x0d;
const INDEX_INTERIOR = 0x02;
const INDEX_LEAF = 0x0a;

/** The pages of one database file as SQLite would read them (WAL frames over the main file). */
export class PageSource {
  readonly usable: number;
  private readonly wal = new Map<number, Buffer>();
  private lastPage: number;

  private constructor(
    private readonly fd: number,
    readonly pageSize: number,
    reserved: number,
  ) {
    this.usable = pageSize - reserved;
    this.lastPage = Math.floor(fstatSync(fd).size / pageSize);
  }

  static open(file: string, pageSize: number): PageSource {
    const fd = openSync(file, 'r');
    const header = Buffer.alloc(100);
    readSync(fd, header, 0, 100, 0);
    const source = new PageSource(fd, pageSize, header[20] ?? 0);
    source.readWal(`${file}-wal`);
    for (const page of source.wal.keys()) source.lastPage = Math.max(source.lastPage, page);
    return source;
  }

  close(): void {
    closeSync(this.fd);
  }

  page(n: number): Buffer | null {
    if (!Number.isInteger(n) || n < 1 || n > this.lastPage) return null;
    const fromWal = this.wal.get(n);
    if (fromWal) return fromWal;
    const bytes = Buffer.alloc(this.pageSize);
    const read = readSync(this.fd, bytes, 0, this.pageSize, (n - 1) * this.pageSize);
    return read === this.pageSize ? bytes : null;
  }

  /** Committed frames of a WAL whose salts match its header, the last frame of a page winning. */
  private readWal(file: string): void {
    if (!existsSync(file)) return;
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const header = Buffer.alloc(32);
      if (size < 32 || readSync(fd, header, 0, 32, 0) < 32) return;
      if ((header.readUInt32BE(0) & 0xfffffffe) !== 0x377f0682) return;
      if (header.readUInt32BE(8) !== this.pageSize) return;
      const salts = header.subarray(16, 24);
      const pending = new Map<number, Buffer>();
      const frame = Buffer.alloc(24);
      for (let at = 32; at + 24 + this.pageSize <= size; at += 24 + this.pageSize) {
        readSync(fd, frame, 0, 24, at);
        if (!frame.subarray(8, 16).equals(salts)) break;
        const page = Buffer.alloc(this.pageSize);
        readSync(fd, page, 0, this.pageSize, at + 24);
        pending.set(frame.readUInt32BE(0), page);
        if (frame.readUInt32BE(4) !== 0) {
          for (const [n, bytes] of pending) this.wal.set(n, bytes);
          pending.clear();
        }
      }
    } finally {
      closeSync(fd);
    }
  }
}

/** A varint at `at`: its value and length, or null when it runs off the end. */
function varint(buf: Buffer, at: number): { value: bigint; length: number } | null {
  let value = 0n;
  for (let i = 0; i < 9; i++) {
    const byte = buf[at + i];
    if (byte === undefined) return null;
    if (i === 8) return { value: BigInt.asIntN(64, (value << 8n) | BigInt(byte)), length: 9 };
    value = (value << 7n) | BigInt(byte & 0x7f);
    if (byte < 0x80) return { value: BigInt.asIntN(64, value), length: i + 1 };
  }
  return null;
}

const asNumber = (n: bigint): number | bigint =>
  n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;

/**
 * Up to `count` leading values of a record, as many as lie in `payload` (the rest may be on
 * overflow pages), or null when fewer than `least` do.
 */
function recordPrefix(payload: Buffer, least: number, count: number): KeyValue[] | null {
  const headerSize = varint(payload, 0);
  if (headerSize === null) return null;
  const types: number[] = [];
  let at = headerSize.length;
  while (types.length < count && at < Number(headerSize.value)) {
    const type = varint(payload, at);
    if (type === null) return null;
    types.push(Number(type.value));
    at += type.length;
  }
  if (types.length < least) return null;
  let body = Number(headerSize.value);
  const values: KeyValue[] = [];
  for (const type of types) {
    const width = [0, 1, 2, 3, 4, 6, 8, 8, 0, 0][type] ?? (type >= 12 ? (type - 12) >> 1 : -1);
    if (width < 0 || body + width > payload.length) break;
    const bytes = payload.subarray(body, body + width);
    body += width;
    if (type === 0) values.push(null);
    else if (type === 8 || type === 9) values.push(type - 8);
    else if (type === 7) values.push(bytes.readDoubleBE(0));
    else if (type < 7) values.push(asNumber(BigInt.asIntN(width * 8, bytesToBig(bytes))));
    else if (type % 2 === 1) values.push(bytes.toString('utf8'));
    else values.push(Buffer.from(bytes));
  }
  return values.length < least ? null : values;
}

function bytesToBig(bytes: Buffer): bigint {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value;
}

/** How much of a payload of `size` bytes lies on the b-tree page itself. */
function localBytes(size: number, usable: number, leafTable: boolean): number {
  const most = leafTable ? usable - 35 : Math.floor(((usable - 12) * 64) / 255) - 23;
  if (size <= most) return size;
  const least = Math.floor(((usable - 12) * 32) / 255) - 23;
  const local = least + ((size - least) % (usable - 4));
  return local <= most ? local : least;
}

interface Cell<K> {
  child: number | null;
  key: K;
}

/** A WITHOUT ROWID table's entries: its key columns, then the rest (`columns` in all). */
export interface IndexShape {
  keyColumns: number;
  columns: number;
}

/**
 * Walks the b-tree rooted at `root`: a table b-tree (`index` null) gives rowids; an index b-tree
 * (a WITHOUT ROWID table) each entry's values, at least its key columns, all of them when the
 * entry lies on its page. Unreadable ranges are bounded by keys (rowids, or key-column prefixes).
 */
export function btreeKeys<K extends number | bigint | KeyValue[]>(
  pages: PageSource,
  root: number,
  index: IndexShape | null,
): BtreeKeys<K> {
  const found: BtreeKeys<K> = { keys: [], unreadable: [] };
  const seen = new Set<number>();
  const table = index === null;
  const bound = (key: K): K =>
    Array.isArray(key) && index !== null ? (key.slice(0, index.keyColumns) as K) : key;
  const visit = (n: number, after: K | null, upTo: K | null, depth: number): void => {
    const bytes = seen.has(n) || depth > 20 ? null : pages.page(n);
    seen.add(n);
    const start = n === 1 ? 100 : 0;
    const type = bytes?.[start];
    const interior = type === (table ? TABLE_INTERIOR : INDEX_INTERIOR);
    if (bytes === null || (!interior && type !== (table ? TABLE_LEAF : INDEX_LEAF))) {
      found.unreadable.push({ after, upTo });
      return;
    }
    const cells = bytes.readUInt16BE(start + 3);
    const pointers = start + (interior ? 12 : 8);
    let lower = after;
    let damaged = pointers + 2 * cells > pages.usable;
    for (let i = 0; i < cells && pointers + 2 * i + 2 <= pages.usable; i++) {
      const cell = parseCell<K>(bytes, bytes.readUInt16BE(pointers + 2 * i), pages, {
        interior,
        index,
      });
      if (cell === null) {
        damaged = true;
        continue;
      }
      if (cell.child !== null) visit(cell.child, lower, bound(cell.key), depth + 1);
      // An index b-tree keeps entries on its interior pages too; a table b-tree only keys.
      if (!interior || !table) found.keys.push(cell.key);
      lower = bound(cell.key);
    }
    if (interior) visit(bytes.readUInt32BE(start + 8), lower, upTo, depth + 1);
    else if (damaged) found.unreadable.push({ after, upTo });
  };
  visit(root, null, null, 0);
  return found;
}

function parseCell<K>(
  page: Buffer,
  at: number,
  pages: PageSource,
  shape: { interior: boolean; index: IndexShape | null },
): Cell<K> | null {
  const table = shape.index === null;
  if (at < 8 || at >= pages.usable) return null;
  let pos = at;
  let child: number | null = null;
  if (shape.interior) {
    if (pos + 4 > pages.usable) return null;
    child = page.readUInt32BE(pos);
    pos += 4;
  }
  if (table && shape.interior) {
    const rowid = varint(page, pos);
    return rowid === null ? null : { child, key: asNumber(rowid.value) as K };
  }
  const size = varint(page, pos);
  if (size === null) return null;
  pos += size.length;
  if (table) {
    const rowid = varint(page, pos);
    return rowid === null ? null : { child, key: asNumber(rowid.value) as K };
  }
  const local = localBytes(Number(size.value), pages.usable, false);
  if (pos + local > pages.usable) return null;
  const { keyColumns, columns } = shape.index ?? { keyColumns: 0, columns: 0 };
  const key = recordPrefix(page.subarray(pos, pos + local), keyColumns, columns);
  return key === null ? null : { child, key: key as K };
}
