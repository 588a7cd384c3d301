import { createHash } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { TokenCounts } from '../../../src-shared/experiment';
import { openCacheDb, type SqliteDatabase } from '../sqlite';
import type { ResponseCacheMode } from '../../../src-shared/experiment';

/**
 * A content-addressed store of chat replies: the key is the sha256 of the request body exactly as
 * it is sent (model, messages, temperature, max_tokens, seed, response_format), so only an
 * identical request is answered from it. One SQLite file (WAL) in the data folder's cache folder,
 * beside the embedding cache and shared the same way by every worker thread and process.
 *
 * Modes: `on` asks the endpoint on a miss and stores the reply; `only` never calls the endpoint (a
 * miss is an error), which replays an earlier run offline with byte-identical answers.
 *
 * A scope (src-shared/sweeps.ts repeatCacheScope: a sweep's repeat r > 0) keys the replies apart
 * from every other scope's, so an independent repeat never replays another repeat's replies and a
 * replay of it replays its own.
 */

export const RESPONSE_CACHE_FILE = 'llm-responses.sqlite';
// Declared in src-shared: the API's experiments.start takes a mode too.
export { RESPONSE_CACHE_MODES, type ResponseCacheMode } from '../../../src-shared/experiment';
const SCHEMA_VERSION = 1;

export interface CachedReply {
  content: string;
  model: string;
  usage: TokenCounts | null;
}

/** The key of a request body, given as the JSON text that is sent, in `scope` (see above). */
export function requestKey(json: string, scope?: string): Buffer {
  const hash = createHash('sha256').update(json, 'utf8');
  // Unscoped keys stay the plain body's hash, so caches filled before scopes still answer.
  if (scope !== undefined) hash.update(`\u0000${JSON.stringify(scope)}`, 'utf8');
  return hash.digest();
}

export class ResponseCache {
  readonly stats = { hits: 0, misses: 0 };
  private readonly select: Statement<
    [Buffer],
    {
      content: string;
      reply_model: string;
      prompt_tokens: number | null;
      completion_tokens: number | null;
    }
  >;
  private readonly insert: Statement<
    [Buffer, string, string, string, number | null, number | null]
  >;
  private closed = false;

  private constructor(
    readonly file: string,
    readonly mode: Exclude<ResponseCacheMode, 'off'>,
    private readonly db: SqliteDatabase,
    readonly scope: string | undefined,
  ) {
    this.select = db.prepare(
      'SELECT content, reply_model, prompt_tokens, completion_tokens FROM responses WHERE key = ?',
    );
    this.insert = db.prepare(
      'INSERT OR IGNORE INTO responses (key, model, content, reply_model, prompt_tokens, completion_tokens) VALUES (?, ?, ?, ?, ?, ?)',
    );
  }

  /** Opens (creating) `<dir>/llm-responses.sqlite`; `scope`: see the file's comment. */
  static open(dir: string, mode: Exclude<ResponseCacheMode, 'off'>, scope?: string): ResponseCache {
    const { db, file } = openCacheDb({
      dir,
      fileName: RESPONSE_CACHE_FILE,
      label: 'LLM response cache',
      schemaVersion: SCHEMA_VERSION,
      ddl: `CREATE TABLE IF NOT EXISTS responses (
        key BLOB PRIMARY KEY,
        model TEXT NOT NULL,
        content TEXT NOT NULL,
        reply_model TEXT NOT NULL,
        prompt_tokens INTEGER,
        completion_tokens INTEGER
      ) WITHOUT ROWID`,
    });
    return new ResponseCache(file, mode, db, scope);
  }

  /** The key of this request body (the JSON text sent) in this cache's scope. */
  keyOf(json: string): Buffer {
    return requestKey(json, this.scope);
  }

  /** Replies being asked for, by key (hex): see `underWay`. */
  private readonly asking = new Map<string, Promise<CachedReply>>();

  /**
   * The reply to an identical request already under way, counted as a hit: a run asks a test's
   * questions while the last test's are still out, and a question whose prompt has not changed
   * shares that request as it would have read its stored reply a moment later. A failure is
   * shared too.
   */
  underWay(key: Buffer): Promise<CachedReply> | undefined {
    const asking = this.asking.get(key.toString('hex'));
    if (asking) this.stats.hits++;
    return asking;
  }

  /** Marks `reply` as the request under way for `key` until it settles. */
  asked(key: Buffer, reply: Promise<CachedReply>): void {
    const hex = key.toString('hex');
    const shared = reply.finally(() => this.asking.delete(hex));
    // The asker handles the failure; a request nobody shares must not be an unhandled one.
    shared.catch(() => undefined);
    this.asking.set(hex, shared);
  }

  /** The stored reply to this exact request body, counted as a hit or a miss. */
  get(key: Buffer): CachedReply | undefined {
    const row = this.select.get(key);
    if (!row) {
      this.stats.misses++;
      return undefined;
    }
    this.stats.hits++;
    return {
      content: row.content,
      model: row.reply_model,
      usage:
        row.prompt_tokens === null || row.completion_tokens === null
          ? null
          : { promptTokens: row.prompt_tokens, completionTokens: row.completion_tokens },
    };
  }

  put(key: Buffer, model: string, reply: CachedReply): void {
    this.insert.run(
      key,
      model,
      reply.content,
      reply.model,
      reply.usage?.promptTokens ?? null,
      reply.usage?.completionTokens ?? null,
    );
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}
