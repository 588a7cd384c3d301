import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Statement } from 'better-sqlite3';
import type { TokenCounts } from '../../../src-shared/experiment';
import { openCacheDb, type SqliteDatabase } from '../sqlite';
import type { ResponseCacheMode } from '../../../src-shared/experiment';

/**
 * A content-addressed store of chat replies: the key is the sha256 of everything that can change a
 * reply: the endpoint the request goes to (its URL, normalised: `endpointOf`), the wire protocol
 * and this key format's version, and the request body exactly as it is sent (model, messages,
 * temperature, max_tokens, seed, response_format), so only an identical request to the same
 * server is answered from it. One SQLite file (WAL) in the data folder's cache folder, beside the
 * embedding cache and shared the same way by every worker thread and process.
 *
 * Entries written before endpoints were keyed (schema 1: the key was the body's hash alone, so
 * one server's replies answered another's requests under the same model name) are kept, and read
 * only for the endpoint they are attributed to (`endpoint` column; NULL: never read). They are
 * attributed once, when a run first opens the cache after the upgrade (`adoptLegacy`), from the
 * runs database: a model whose every recorded run (answerer or memory LLM) went to one endpoint
 * gets that endpoint; a model seen at two endpoints, or at none, stays unattributed. See
 * src-main/core/answer/README.md, "Response cache keys".
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
const SCHEMA_VERSION = 2;

/** The wire protocol the replies come from: a request to another protocol never shares a key. */
const CHAT_PROTOCOL = 'openai-chat-completions';
/** This key format's version: a change of what the key covers changes it. */
const KEY_FORMAT = 2;

/**
 * The endpoint as the key sees it: scheme and host lower-cased, the default port and any fragment
 * dropped, repeated and trailing slashes of the path removed, the query kept (it can pick the
 * model version, as Azure's `api-version` does).
 */
export function endpointOf(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  parsed.pathname = parsed.pathname.replace(/\/{2,}/g, '/').replace(/\/+$/, '') || '/';
  return parsed.toString();
}

/** A request's keys: `key` (the endpoint's), and the schema-1 body-only key its old entry had. */
export interface CacheKey {
  key: Buffer;
  legacy: Buffer;
  endpoint: string;
}

export interface CachedReply {
  content: string;
  model: string;
  usage: TokenCounts | null;
}

/**
 * The key of a request to `url` whose body is the JSON text `json`, in `scope` (see above): what it
 * covers is listed first (protocol, key format, endpoint, scope), then the body's bytes.
 */
export function requestKey(url: string, json: string, scope?: string): Buffer {
  const covers = JSON.stringify([CHAT_PROTOCOL, KEY_FORMAT, endpointOf(url), scope ?? null]);
  return createHash('sha256').update(`${covers}\u0000${json}`, 'utf8').digest();
}

/** Schema 1's key: the body's hash (and the scope), no endpoint. Read only for attributed rows. */
export function legacyRequestKey(json: string, scope?: string): Buffer {
  const hash = createHash('sha256').update(json, 'utf8');
  if (scope !== undefined) hash.update(`\u0000${JSON.stringify(scope)}`, 'utf8');
  return hash.digest();
}

/** One model and endpoint a recorded run asked (answerer or memory LLM): `adoptLegacy`'s proof. */
export interface RecordedEndpoint {
  model: string;
  baseUrl: string;
}

/** The URL an `LlmClient` for `baseUrl` posts to (llm-client.ts builds it the same way). */
export function chatUrlOf(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
}

export class ResponseCache {
  readonly stats = { hits: 0, misses: 0 };
  private readonly selectLegacy: Statement<
    [Buffer, string],
    {
      content: string;
      reply_model: string;
      prompt_tokens: number | null;
      completion_tokens: number | null;
    }
  >;
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
    [Buffer, string, string, string, number | null, number | null, string]
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
    this.selectLegacy = db.prepare(
      'SELECT content, reply_model, prompt_tokens, completion_tokens FROM responses WHERE key = ? AND endpoint = ?',
    );
    this.insert = db.prepare(
      'INSERT OR IGNORE INTO responses (key, model, content, reply_model, prompt_tokens, completion_tokens, endpoint) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
  }

  /** Opens (creating) `<dir>/llm-responses.sqlite`; `scope`: see the file's comment. */
  static open(dir: string, mode: Exclude<ResponseCacheMode, 'off'>, scope?: string): ResponseCache {
    const { db, file } = ResponseCache.openDb(dir);
    return new ResponseCache(file, mode, db, scope);
  }

  /** The file, created or upgraded to schema 2 (schema 1's rows get `endpoint` NULL). */
  private static openDb(dir: string): { db: SqliteDatabase; file: string } {
    const opened = openCacheDb({
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
        completion_tokens INTEGER,
        endpoint TEXT
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS legacy_adoption (done INTEGER PRIMARY KEY CHECK (done = 1), note TEXT NOT NULL)`,
    });
    const columns = opened.db.prepare('PRAGMA table_info(responses)').all() as Array<{
      name: string;
    }>;
    if (!columns.some((c) => c.name === 'endpoint')) {
      try {
        opened.db.exec('ALTER TABLE responses ADD COLUMN endpoint TEXT');
      } catch (error) {
        // Another process upgraded it a moment ago.
        if (!/duplicate column/i.test((error as Error).message)) {
          opened.db.close();
          throw error;
        }
      }
    }
    return opened;
  }

  /**
   * Attributes schema 1's rows to their endpoint, once per cache file: `recorded()` lists the
   * model and endpoint of every run the runs database holds (null when one cannot be read: then
   * nothing is attributed). A model recorded at exactly one endpoint gets it; any other model's
   * rows stay unattributed (kept, never read). Returns how many rows were attributed; a file that
   * does not exist is not created.
   */
  static adoptLegacy(dir: string, recorded: () => readonly RecordedEndpoint[] | null): number {
    if (!existsSync(join(dir, RESPONSE_CACHE_FILE))) return 0;
    const { db } = ResponseCache.openDb(dir);
    try {
      if (db.prepare('SELECT 1 FROM legacy_adoption').get() !== undefined) return 0;
      const legacy = db.prepare('SELECT 1 FROM responses WHERE endpoint IS NULL LIMIT 1').get();
      const endpoints = new Map<string, Set<string>>();
      const runs = legacy === undefined ? [] : recorded();
      for (const { model, baseUrl } of runs ?? []) {
        const seen = endpoints.get(model) ?? new Set<string>();
        seen.add(endpointOf(chatUrlOf(baseUrl)));
        endpoints.set(model, seen);
      }
      const attribute = db.prepare(
        'UPDATE responses SET endpoint = ? WHERE endpoint IS NULL AND model = ?',
      );
      let attributed = 0;
      db.transaction(() => {
        // Another process may have attributed them meanwhile: the marker is the one truth.
        if (db.prepare('SELECT 1 FROM legacy_adoption').get() !== undefined) return;
        for (const [model, seen] of endpoints) {
          if (seen.size === 1) attributed += attribute.run([...seen][0] as string, model).changes;
        }
        const note =
          runs === null
            ? 'a run of the runs database could not be read: nothing attributed'
            : `${attributed} rows attributed`;
        db.prepare('INSERT INTO legacy_adoption (done, note) VALUES (1, ?)').run(note);
      })();
      return attributed;
    } finally {
      db.close();
    }
  }

  /** The keys of a request to `url` with this body (the JSON text sent) in this cache's scope. */
  keyOf(url: string, json: string): CacheKey {
    return {
      key: requestKey(url, json, this.scope),
      legacy: legacyRequestKey(json, this.scope),
      endpoint: endpointOf(url),
    };
  }

  /** Replies being asked for, by key (hex): see `underWay`. */
  private readonly asking = new Map<string, Promise<CachedReply>>();

  /**
   * The reply to an identical request already under way, counted as a hit: a run asks a test's
   * questions while the last test's are still out, and a question whose prompt has not changed
   * shares that request as it would have read its stored reply a moment later. A failure is
   * shared too.
   */
  underWay({ key }: CacheKey): Promise<CachedReply> | undefined {
    const asking = this.asking.get(key.toString('hex'));
    if (asking) this.stats.hits++;
    return asking;
  }

  /** Marks `reply` as the request under way for `key` until it settles. */
  asked({ key }: CacheKey, reply: Promise<CachedReply>): void {
    const hex = key.toString('hex');
    const shared = reply.finally(() => this.asking.delete(hex));
    // The asker handles the failure; a request nobody shares must not be an unhandled one.
    shared.catch(() => undefined);
    this.asking.set(hex, shared);
  }

  /**
   * The stored reply to this exact request to this endpoint (or schema 1's reply to its body when
   * attributed to this endpoint), counted as a hit or a miss.
   */
  get({ key, legacy, endpoint }: CacheKey): CachedReply | undefined {
    const row = this.select.get(key) ?? this.selectLegacy.get(legacy, endpoint);
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

  put({ key, endpoint }: CacheKey, model: string, reply: CachedReply): void {
    this.insert.run(
      key,
      model,
      reply.content,
      reply.model,
      reply.usage?.promptTokens ?? null,
      reply.usage?.completionTokens ?? null,
      endpoint,
    );
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}
