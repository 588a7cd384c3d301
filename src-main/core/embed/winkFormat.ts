import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, promises as fsp, readSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { z } from 'zod';

/**
 * The compact word-vector cache. Parsing the 307 MB wink JSON takes seconds and about a gigabyte
 * of memory; this file loads with one read and a typed-array view.
 *
 * Layout (little-endian):
 *   0   8 bytes  magic `MWVECTRS`
 *   8   u32      format version
 *   12  u32      header length in bytes
 *   16  header   UTF-8 JSON (`CacheHeader`), padded with spaces so the matrix starts 64-aligned
 *   ... matrix   Float32 [count x dim], row i = vocabulary word i
 *   ... vocab    the words, UTF-8, joined by "\n", row order
 *
 * The vocabulary is in frequency-rank order (the wink file keeps GloVe's order, most frequent
 * first), which is all the word statistics the source has: it ships no counts. A format that
 * gains real frequencies gets a new version number and its own section.
 */

export const CACHE_MAGIC = 'MWVECTRS';
export const CACHE_FORMAT_VERSION = 1;
const PREFIX_BYTES = 16;
const MATRIX_ALIGN = 64;

const section = z.object({
  offset: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
});

export const cacheHeaderSchema = z.object({
  dim: z.number().int().positive(),
  count: z.number().int().positive(),
  order: z.literal('frequency-rank'),
  matrix: section,
  vocab: section,
  /** zlib crc32 of the matrix bytes followed by the vocabulary bytes. */
  crc32: z.number().int().nonnegative(),
  source: z.object({
    package: z.string(),
    version: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    size: z.number().int().nonnegative(),
  }),
  createdAt: z.string(),
});
export type CacheHeader = z.infer<typeof cacheHeaderSchema>;
export type CacheSource = CacheHeader['source'];

/** Why a cache file was refused; the loader rebuilds it and says this in a warning. */
export class CacheInvalidError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CacheInvalidError';
  }
}

export interface CacheContents {
  header: CacheHeader;
  matrix: Float32Array;
  /** The vocabulary section, still encoded. */
  vocab: Buffer;
}

function assertLittleEndian(): void {
  // The matrix is a raw Float32 view; every platform Electron ships on is little-endian.
  if (os.endianness() !== 'LE') throw new CacheInvalidError('big-endian hosts are not supported');
}

function payloadCrc(matrix: Uint8Array, vocab: Uint8Array): number {
  return zlib.crc32(vocab, zlib.crc32(matrix));
}

/**
 * Validates and views a cache file read into memory. The returned matrix is a view on `bytes`
 * (no copy) whenever they are 4-byte aligned, which `readCacheImage` and `fs.readFileSync` buffers
 * of this size are: a matrix over shared memory stays shared.
 */
export function parseCache(
  bytes: Uint8Array,
  options: { verifyChecksum?: boolean } = {},
): CacheContents {
  assertLittleEndian();
  const buf = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < PREFIX_BYTES || buf.toString('latin1', 0, 8) !== CACHE_MAGIC) {
    throw new CacheInvalidError('bad magic (not a word-vector cache)');
  }
  const version = buf.readUInt32LE(8);
  if (version !== CACHE_FORMAT_VERSION) {
    throw new CacheInvalidError(`format version ${version}, expected ${CACHE_FORMAT_VERSION}`);
  }
  const headerBytes = buf.readUInt32LE(12);
  if (PREFIX_BYTES + headerBytes > buf.length) throw new CacheInvalidError('truncated header');
  let header: CacheHeader;
  try {
    const raw: unknown = JSON.parse(buf.toString('utf8', PREFIX_BYTES, PREFIX_BYTES + headerBytes));
    header = cacheHeaderSchema.parse(raw);
  } catch (error) {
    throw new CacheInvalidError(`unreadable header (${(error as Error).message.slice(0, 120)})`);
  }
  const { dim, count, matrix, vocab } = header;
  if (matrix.bytes !== dim * count * 4 || matrix.offset % 4 !== 0) {
    throw new CacheInvalidError(`matrix section does not hold ${count} x ${dim} floats`);
  }
  if (matrix.offset < PREFIX_BYTES + headerBytes || vocab.offset < matrix.offset + matrix.bytes) {
    throw new CacheInvalidError('overlapping sections');
  }
  const expectedSize = vocab.offset + vocab.bytes;
  if (buf.length !== expectedSize) {
    throw new CacheInvalidError(`size ${buf.length} bytes, expected ${expectedSize}`);
  }
  const matrixBytes = buf.subarray(matrix.offset, matrix.offset + matrix.bytes);
  const vocabBytes = buf.subarray(vocab.offset, vocab.offset + vocab.bytes);
  if (options.verifyChecksum !== false && payloadCrc(matrixBytes, vocabBytes) !== header.crc32) {
    throw new CacheInvalidError('checksum mismatch (corrupt file)');
  }
  const view =
    matrixBytes.byteOffset % 4 === 0
      ? new Float32Array(matrixBytes.buffer, matrixBytes.byteOffset, dim * count)
      : new Float32Array(new Uint8Array(matrixBytes).buffer);
  return { header, matrix: view, vocab: vocabBytes };
}

export interface CacheInput {
  dim: number;
  count: number;
  matrix: Float32Array;
  /** UTF-8, words joined by "\n", row order. */
  vocab: Uint8Array;
  source: CacheSource;
}

/**
 * The whole cache file in memory, on a SharedArrayBuffer: what `writeCacheImage` writes and what
 * a process hands its worker threads without a copy.
 */
export function encodeCache(input: CacheInput): { header: CacheHeader; image: Uint8Array } {
  assertLittleEndian();
  const { dim, count, matrix, vocab } = input;
  if (matrix.length !== dim * count) {
    throw new Error(`encodeCache: matrix has ${matrix.length} floats, expected ${dim * count}`);
  }
  const matrixBytes = new Uint8Array(matrix.buffer, matrix.byteOffset, matrix.byteLength);
  const crc32 = payloadCrc(matrixBytes, vocab);

  // Offsets depend on the header length, which depends on the offsets: lay out with a generous
  // fixed header size first, then shrink once.
  const draft = (headerBytes: number): CacheHeader => {
    const matrixOffset = align(PREFIX_BYTES + headerBytes, MATRIX_ALIGN);
    return {
      dim,
      count,
      order: 'frequency-rank',
      matrix: { offset: matrixOffset, bytes: matrixBytes.length },
      vocab: { offset: matrixOffset + matrixBytes.length, bytes: vocab.length },
      crc32,
      source: input.source,
      createdAt: new Date().toISOString(),
    };
  };
  let header = draft(4096);
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  header = draft(json.length + 64);
  const headerJson = Buffer.from(JSON.stringify(header), 'utf8');
  const headerBytes = header.matrix.offset - PREFIX_BYTES;
  if (headerJson.length > headerBytes) throw new Error('encodeCache: header layout overflow');
  const image = new Uint8Array(new SharedArrayBuffer(header.vocab.offset + header.vocab.bytes));
  const head = Buffer.from(image.buffer, 0, header.matrix.offset);
  head.fill(0x20);
  head.write(CACHE_MAGIC, 0, 'latin1');
  head.writeUInt32LE(CACHE_FORMAT_VERSION, 8);
  head.writeUInt32LE(headerBytes, 12);
  headerJson.copy(head, PREFIX_BYTES);
  image.set(matrixBytes, header.matrix.offset);
  image.set(vocab, header.vocab.offset);
  return { header, image };
}

/**
 * Writes a cache file atomically: a uniquely named temp file in the same directory, then rename,
 * so a crash or a second process converting at the same time never leaves a half-written cache
 * under the real name. No fsync: a cache torn by power loss fails its size or checksum check and
 * is rebuilt.
 */
export async function writeCacheImage(file: string, image: Uint8Array): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    // writeFile loops over short writes, which a single FileHandle.write does not.
    await fsp.writeFile(tmp, image);
    await fsp.rename(tmp, file);
  } catch (error) {
    await fsp.rm(tmp, { force: true });
    throw error;
  }
}

export async function writeCacheAtomic(file: string, input: CacheInput): Promise<CacheHeader> {
  const { header, image } = encodeCache(input);
  await writeCacheImage(file, image);
  return header;
}

/** Reads a cache file into shared memory (unchecked: `parseCache` checks it). */
export function readCacheImage(file: string): Uint8Array {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const image = new Uint8Array(new SharedArrayBuffer(size));
    let read = 0;
    while (read < size) {
      const n = readSync(fd, image, read, size - read, read);
      if (n === 0)
        throw new CacheInvalidError(`truncated while reading (${read} of ${size} bytes)`);
      read += n;
    }
    return image;
  } finally {
    closeSync(fd);
  }
}

function align(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}
