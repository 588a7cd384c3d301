/**
 * `mem0`: Mem0 itself, the released library (`mem0ai/oss`, pinned to MEM0_LIBRARY_VERSION), not a
 * re-implementation. Per sample, one Mem0 `Memory` whose vector store (`memory` provider, SQLite)
 * and history database live in the sample's own folder.
 *
 * Fed as Mem0's evaluation feeds it (mem0ai/mem0 `evaluation/src/memzero/add.py`): each speaker
 * is a user, `<speaker>_<sample id>`; a packet (two turns of a session, add.py's `batch_size` 2)
 * becomes one `add` per speaker, the speaker's own turns as `user` and the other's as `assistant`
 * messages, each `<speaker>: <text>` (the file's text, without image captions, as add.py reads
 * it), with `metadata: { timestamp: <the session's date as the file writes it> }`; the two
 * speakers' adds run side by side, as add.py's two threads do. The evaluation's
 * `custom_instructions` (a project setting on Mem0's platform) are the library's
 * `customInstructions`. Searched as `evaluation/src/memzero/search.py` searches: once per speaker
 * with `filters: { user_id }`, top_k = the run's top-k for EACH speaker (so up to 2k memories),
 * speaker A's first; the `mem0` answer protocol renders both lists as Mem0's ANSWER_PROMPT does.
 *
 * Every call the library makes goes through the workbench's clients via a loopback endpoint the
 * service owns (mem0-loopback.ts): the run's memory LLM and the config's embedder, so the call
 * ledger, the response cache (`--cache-only` replays), rate limits and retries cover them.
 *
 * The library reads `MEM0_TELEMETRY` when its module loads and would otherwise send events to
 * PostHog: it is loaded only here, only in a process whose environment says
 * `MEM0_TELEMETRY=false` (the experiment worker's own environment, MEM0_WORKER_ENV), and refused
 * anywhere else. Its telemetry id is fixed so it never writes `~/.mem0/config.json`.
 *
 * What is not Mem0's published protocol (docs/protocols.md): the library's 3.x algorithm (one
 * ADD-only extraction call per add, entity boosts in search) is not the paper's two-phase
 * ADD/UPDATE/DELETE/NOOP pipeline on Mem0's platform; its extraction prompt carries today's date
 * ("Observation Date", "Current Date"), so a replay on another day asks different requests.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { Packet, Sample } from '../../../../src-shared/dataset';
import { EmbedderChoiceSchema, WINK_EMBEDDER } from '../../../../src-shared/embedders';
import { MEM0_LIBRARY_VERSION } from '../../../../src-shared/mem0Library';
import { WorkbenchError } from '../../../../src-shared/errors';
import type { Embedder } from '../../embed';
import type { MemoryHit } from '../request';
import {
  type MemoryPresetDefinition,
  type MemoryPresetPrepare,
  type MemoryServiceFactory,
  type MemoryServiceRecord,
} from '../registry';
import { embedderCounters, openServiceEmbedder } from '../retrieval/embedder';
import type { MemoryLlm, MemoryService, MemoryServiceContext } from '../types';
import { LOOPBACK_API_KEY, Mem0Loopback, sha256 } from './mem0-loopback';
import { parsePresetConfig } from './shared';

export const MEM0_PRESET = 'mem0';
/** The stat counting the memories the library's adds stored (the preset's health measure). */
const MEM0_MEMORIES_STAT = 'mem0.memories';
/** The one mem0ai release this preset runs: package.json's pin. */
export { MEM0_LIBRARY_VERSION };
/**
 * The experiment worker's environment on top of the app's: the library reads it once, when its
 * module loads, so it must be in the worker's own environment before anything imports it.
 */
export const MEM0_WORKER_ENV: Readonly<Record<string, string>> = { MEM0_TELEMETRY: 'false' };
/** The telemetry id the service gives the library, so it never looks for (or writes) one. */
const OFFLINE_TELEMETRY_ID = 'memory-workbench-offline';

/** mem0ai/mem0 evaluation/src/memzero/add.py `custom_instructions`, verbatim. */
export const MEM0_EVAL_CUSTOM_INSTRUCTIONS = `
Generate personal memories that follow these guidelines:

1. Each memory should be self-contained with complete context, including:
   - The person's name, do not use "user" while creating memories
   - Personal details (career aspirations, hobbies, life circumstances)
   - Emotional states and reactions
   - Ongoing journeys or future plans
   - Specific dates when events occurred

2. Include meaningful personal narratives focusing on:
   - Identity and self-acceptance journeys
   - Family planning and parenting
   - Creative outlets and hobbies
   - Mental health and self-care activities
   - Career aspirations and education goals
   - Important life events and milestones

3. Make each memory rich with specific details rather than general statements
   - Include timeframes (exact dates when possible)
   - Name specific activities (e.g., "charity race for mental health" rather than just "exercise")
   - Include emotional context and personal growth elements

4. Extract memories only from user messages, not incorporating assistant responses

5. Format each memory as a paragraph with a clear narrative structure that captures the person's experience, challenges, and aspirations
`;

export const mem0PresetConfigSchema = z.strictObject({
  /** The embedder behind Mem0's vector store (Mem0's evaluation: text-embedding-3-small). */
  embedder: EmbedderChoiceSchema.default(WINK_EMBEDDER),
  /** The library's `customInstructions`; null: none. Default: the evaluation's (add.py). */
  customInstructions: z.string().max(20_000).nullable().default(MEM0_EVAL_CUSTOM_INSTRUCTIONS),
  /** Search score floor (the library's `threshold`; its default 0.1, which search.py kept). */
  threshold: z.number().min(0).max(1).default(0.1),
});
export type Mem0PresetConfig = z.output<typeof mem0PresetConfigSchema>;

/** The installed library: its version and the sha256 of the ESM bundle that holds its prompts. */
export interface Mem0Library {
  version: string;
  bundle: string;
  bundleSha256: string;
}

/** Reads the installed mem0ai from disk without loading it (loading it is the worker's). */
export function installedMem0Library(): Mem0Library {
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve('mem0ai/oss');
  } catch {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `memory preset "${MEM0_PRESET}": the mem0ai package is not installed (npm install mem0ai@${MEM0_LIBRARY_VERSION} --save-exact)`,
      { path: ['memory', 'preset'] },
    );
  }
  const root = dirname(dirname(dirname(entry)));
  const pkg = z
    .object({ name: z.literal('mem0ai'), version: z.string() })
    .parse(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')));
  const bundle = join(root, 'dist', 'oss', 'index.mjs');
  const bundleSha256 = existsSync(bundle) ? sha256(readFileSync(bundle, 'utf8')) : 'missing';
  return { version: pkg.version, bundle, bundleSha256 };
}

/** What the manifest records: the library, its bundle's sha256, and the protocol it is run with. */
export function mem0Record(config: Mem0PresetConfig, library: Mem0Library): MemoryServiceRecord {
  return {
    where: `mem0ai@${library.version} (mem0ai/oss, in the experiment worker)`,
    hello: {
      library: 'mem0ai/oss',
      version: library.version,
      bundleSha256: library.bundleSha256,
      config: {
        version: 'v1.1',
        llm: { provider: 'openai', baseURL: 'loopback to memory.llm' },
        embedder: { provider: 'openai', baseURL: 'loopback to memory.config.embedder' },
        vectorStore: { provider: 'memory', collectionName: 'memories' },
        historyStore: { provider: 'sqlite' },
        customInstructionsSha256:
          config.customInstructions === null ? null : sha256(config.customInstructions),
        threshold: config.threshold,
      },
      feed: 'evaluation/src/memzero/add.py: per speaker, batch of 2 messages, metadata.timestamp = session date',
      search: 'evaluation/src/memzero/search.py: per speaker, filters.user_id, top_k = run top-k',
    },
    sha256: library.bundleSha256,
  };
}

const prepareMem0: MemoryPresetPrepare = async (config) => {
  const parsed = parsePresetConfig(MEM0_PRESET, mem0PresetConfigSchema, config);
  const library = installedMem0Library();
  if (library.version !== MEM0_LIBRARY_VERSION) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `memory preset "${MEM0_PRESET}": mem0ai ${library.version} is installed, the preset runs ${MEM0_LIBRARY_VERSION} (npm install mem0ai@${MEM0_LIBRARY_VERSION} --save-exact)`,
      { path: ['memory', 'preset'] },
    );
  }
  return mem0Record(parsed, library);
};

/** The part of the library's `Memory` the service uses (mem0ai/oss types it loosely). */
interface Mem0Memory {
  telemetryId: string;
  add(
    messages: Array<{ role: 'user' | 'assistant'; content: string }>,
    options: { userId: string; metadata: Record<string, unknown> },
  ): Promise<unknown>;
  search(
    query: string,
    options: { filters: { user_id: string }; topK: number; threshold: number },
  ): Promise<unknown>;
}

const addReplySchema = z.object({ results: z.array(z.unknown()) });

const searchReplySchema = z.object({
  results: z.array(
    z.object({
      id: z.string(),
      memory: z.string(),
      score: z.number(),
      metadata: z.record(z.string(), z.unknown()).nullish(),
    }),
  ),
});

/** Loads mem0ai/oss, refusing to where its telemetry would be on. */
async function loadMem0(): Promise<new (config: Record<string, unknown>) => Mem0Memory> {
  if (process.env['MEM0_TELEMETRY'] !== 'false') {
    throw new WorkbenchError(
      'INTERNAL',
      `memory preset "${MEM0_PRESET}": refusing to load mem0ai where MEM0_TELEMETRY is not "false" (its telemetry would be on); it runs in an experiment worker started with MEM0_WORKER_ENV`,
    );
  }
  const module = (await import('mem0ai/oss')) as unknown as {
    Memory: new (config: Record<string, unknown>) => Mem0Memory;
  };
  return module.Memory;
}

export class Mem0LibraryMemory implements MemoryService {
  readonly preset = MEM0_PRESET;
  private readonly userIds: readonly [string, string];
  private readonly sessions: Map<number, { text: string; iso: string | null }>;
  private insertSignal: AbortSignal | undefined;
  private readonly counters = { adds: 0, searches: 0, memories: 0 };
  private closed = false;

  get embedderName(): string {
    return this.embedder.name;
  }

  private constructor(
    private readonly config: Mem0PresetConfig,
    private readonly memory: Mem0Memory,
    private readonly loopback: Mem0Loopback,
    private readonly embedder: Embedder,
    private readonly sample: Sample,
  ) {
    const [a, b] = sample.speakers;
    this.userIds = [`${a}_${sample.sampleId}`, `${b}_${sample.sampleId}`];
    this.sessions = new Map(
      sample.sessions.map((s) => [s.index, { text: s.dateTimeText ?? '', iso: s.dateTime }]),
    );
  }

  static async open(
    config: Mem0PresetConfig,
    ctx: MemoryServiceContext,
  ): Promise<Mem0LibraryMemory> {
    const llm: MemoryLlm | null | undefined = ctx.llm;
    if (!llm) throw noMemoryLlm();
    const Memory = await loadMem0();
    const embedder = await openServiceEmbedder(config.embedder, ctx);
    // Replayed packets would be added twice to a store that survived: a resumed sample starts
    // from an empty folder, so a non-empty one is refused.
    const vectorDb = join(ctx.dir, 'mem0-vectors.db');
    if (existsSync(vectorDb)) {
      throw new WorkbenchError(
        'CONFLICT',
        `memory preset "${MEM0_PRESET}": ${ctx.dir} already holds a Mem0 store; it needs an empty folder`,
        { path: ['memory', 'preset'] },
      );
    }
    let service: Mem0LibraryMemory | null = null;
    const loopback = await Mem0Loopback.start({
      llm,
      embedder,
      seed: ctx.seed ?? 0,
      signal: () => service?.insertSignal,
    });
    try {
      const memory = new Memory({
        version: 'v1.1',
        llm: {
          provider: 'openai',
          config: { apiKey: LOOPBACK_API_KEY, baseURL: loopback.url, model: llm.model },
        },
        embedder: {
          provider: 'openai',
          config: { apiKey: LOOPBACK_API_KEY, baseURL: loopback.url, model: embedder.name },
        },
        // The dimension is given, so the library sends no probe before the service is set up.
        vectorStore: {
          provider: 'memory',
          config: { collectionName: 'memories', dimension: embedder.dim, dbPath: vectorDb },
        },
        historyDbPath: join(ctx.dir, 'mem0-history.db'),
        historyStore: {
          provider: 'sqlite',
          config: { historyDbPath: join(ctx.dir, 'mem0-history.db') },
        },
        ...(config.customInstructions !== null
          ? { customInstructions: config.customInstructions }
          : {}),
      });
      // Set before the library's own initialisation asks for an id (it would read or write
      // ~/.mem0/config.json to find one).
      memory.telemetryId = OFFLINE_TELEMETRY_ID;
      service = new Mem0LibraryMemory(config, memory, loopback, embedder, ctx.sample);
      return service;
    } catch (error) {
      await loopback.close();
      throw error;
    }
  }

  async insert(packet: Packet, signal?: AbortSignal): Promise<void> {
    this.assertOpen();
    if (packet.dialogs.length === 0) return;
    const [a, b] = this.sample.speakers;
    const timestamp = this.sessions.get(packet.session_id)?.text ?? '';
    // add.py: speaker A's own turns are `user` in A's memory and `assistant` in B's.
    const forA: Array<{ role: 'user' | 'assistant'; content: string }> = [];
    const forB: Array<{ role: 'user' | 'assistant'; content: string }> = [];
    for (const turn of packet.dialogs) {
      const content = `${turn.speaker}: ${turn.rawText}`;
      if (turn.speaker === a) {
        forA.push({ role: 'user', content });
        forB.push({ role: 'assistant', content });
      } else if (turn.speaker === b) {
        forA.push({ role: 'assistant', content });
        forB.push({ role: 'user', content });
      } else {
        throw new WorkbenchError(
          'DATASET_INVALID',
          `memory preset "${MEM0_PRESET}": turn ${turn.diaId} is by "${turn.speaker}", neither speaker of ${this.sample.sampleId}`,
        );
      }
    }
    this.insertSignal = signal;
    try {
      const metadata = { timestamp, session: packet.session_id };
      // Both settle before the insert ends, so a failed one leaves no add running on beside the
      // next packet's.
      const added = await Promise.allSettled([
        this.memory.add(forA, { userId: this.userIds[0], metadata }),
        this.memory.add(forB, { userId: this.userIds[1], metadata }),
      ]);
      for (const r of added) {
        if (r.status !== 'fulfilled') continue;
        this.counters.adds++;
        // What the add stored: `{ results: [...] }`, one entry per memory written.
        this.counters.memories += addReplySchema.safeParse(r.value).data?.results.length ?? 0;
      }
      for (const r of added) if (r.status === 'rejected') throw r.reason;
    } finally {
      this.insertSignal = undefined;
    }
  }

  async retrieve(question: string, topK: number): Promise<MemoryHit[]> {
    this.assertOpen();
    const hits: MemoryHit[] = [];
    for (const [i, speaker] of this.sample.speakers.entries()) {
      const userId = this.userIds[i] as string;
      const reply = await this.memory.search(question, {
        filters: { user_id: userId },
        topK,
        threshold: this.config.threshold,
      });
      this.counters.searches++;
      const parsed = searchReplySchema.safeParse(reply);
      if (!parsed.success) {
        throw new WorkbenchError(
          'UPSTREAM',
          `memory preset "${MEM0_PRESET}": mem0ai search reply for ${userId}: ${parsed.error.issues[0]?.message ?? 'invalid'} at ${parsed.error.issues[0]?.path.join('.') ?? ''}`,
        );
      }
      for (const r of parsed.data.results) {
        const session = r.metadata?.['session'];
        hits.push({
          id: `${speaker}:${r.id}`,
          diaId: null,
          text: r.memory,
          speaker,
          score: r.score,
          sessionDateTime:
            typeof session === 'number' ? (this.sessions.get(session)?.iso ?? null) : null,
        });
      }
    }
    return hits;
  }

  stats(): Record<string, number> {
    const { counts } = this.loopback;
    return {
      'mem0.adds': this.counters.adds,
      [MEM0_MEMORIES_STAT]: this.counters.memories,
      'mem0.searches': this.counters.searches,
      'mem0.llmRequests': counts.chatRequests,
      'mem0.embeddingRequests': counts.embeddingRequests,
      'mem0.refusedRequests': counts.refused,
      ...embedderCounters([this.embedder]),
    };
  }

  notes(): string[] {
    const prompts = [...this.loopback.systemPrompts].sort();
    return [
      `mem0: mem0ai ${MEM0_LIBRARY_VERSION} (mem0ai/oss), its own prompts; system prompts sent, sha256: ${prompts.join(', ') || 'none yet'}`,
      'mem0: the library writes today\'s date into its extraction prompt ("Observation Date", "Current Date"): a replay on another day asks different requests',
    ];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.loopback.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`memory preset ${MEM0_PRESET}: service is closed`);
  }
}

function noMemoryLlm(): WorkbenchError {
  return new WorkbenchError(
    'INVALID_INPUT',
    `memory preset "${MEM0_PRESET}" runs Mem0's own fact extraction on the run's memory LLM, and there is none: give --memory-base-url and --memory-model (memory.llm); it cannot run offline`,
    { path: ['memory', 'llm'] },
  );
}

const createMem0: MemoryServiceFactory = async (config, ctx) =>
  Mem0LibraryMemory.open(parsePresetConfig(MEM0_PRESET, mem0PresetConfigSchema, config), ctx);

export const mem0PresetDefinition: MemoryPresetDefinition = {
  name: MEM0_PRESET,
  create: createMem0,
  configSchema: mem0PresetConfigSchema,
  llmStage: "Mem0's own fact extraction (mem0ai/oss), every add",
  requiresLlm: noMemoryLlm,
  embedder: true,
  prepare: prepareMem0,
  health: { storedStat: MEM0_MEMORIES_STAT, stored: 'Mem0 memories' },
};
