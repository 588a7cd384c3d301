/**
 * `mem0-rag-chunks`: the chunked-RAG baseline of the Mem0 paper (mem0ai/mem0 at 9315e3036^,
 * evaluation/src/rag.py `RAGManager`): the chat history as one document of
 * `timestamp | speaker: text` lines (`clean_chat_history`; the text without image captions, as
 * Mem0's locomo10_rag.json has it), cut every `chunkSize` tokens (`create_chunks`), each chunk
 * embedded; a question retrieves the k chunks of highest cosine similarity (`search`: argmax for
 * k = 1, argsort for more), which the `mem0-rag` answer protocol joins with `\n<->\n`. The run's
 * top-k is Mem0's k (`--num_chunks`, 1 or 2 in the paper); chunk sizes 128…8192 in the paper.
 *
 * What differs from Mem0: tokens are counted by the workbench's estimate, not tiktoken (so chunk
 * boundaries are near, not at, Mem0's), and the embedder is wink SIF by default, offline (Mem0:
 * text-embedding-3-small). In `stream` mode the chunks are those of the history so far: complete
 * chunks never change, the last one grows with each packet.
 */
import { z } from 'zod';
import type { Packet, Sample } from '../../../../src-shared/dataset';
import { EmbedderChoiceSchema, WINK_EMBEDDER } from '../../../../src-shared/embedders';
import type { MemoryHit } from '../request';
import {
  DEFAULT_VECTOR_EF_CONSTRUCTION,
  DEFAULT_VECTOR_M,
  HybridCollection,
} from '../../collection';
import type { Embedder } from '../../embed';
import type { MemoryPresetDefinition, MemoryServiceFactory } from '../registry';
import { embedderCounters, openServiceEmbedder } from '../retrieval/embedder';
import { sessionDates } from '../retrieval/turns';
import type { MemoryService, MemoryServiceContext } from '../types';
import { parsePresetConfig } from './shared';

export const MEM0_RAG_PRESET = 'mem0-rag-chunks';
/** `make run-rag` (chunk size 500); the paper's table has 128…8192. */
export const DEFAULT_MEM0_CHUNK_SIZE = 500;
const VECTOR = 'vector';
/** hnsw's search list floor: above any LoCoMo conversation's chunk count, so search is exhaustive. */
const EXHAUSTIVE_EF = 4096;

export const mem0RagPresetConfigSchema = z.strictObject({
  /** Tokens per chunk (Mem0's `--chunk_size`). */
  chunkSize: z.number().int().min(1).max(1_000_000).default(DEFAULT_MEM0_CHUNK_SIZE),
  embedder: EmbedderChoiceSchema.default(WINK_EMBEDDER),
});
export type Mem0RagPresetConfig = z.output<typeof mem0RagPresetConfigSchema>;

/**
 * Splits text into tokens that concatenate back to it: words, digit runs of up to three and other
 * symbols, each with the whitespace before it (as cl100k tokens carry a leading space).
 */
export type TokenSplitter = (text: string) => string[];
export const estimateTokenSplit: TokenSplitter = (text) =>
  text.match(/\s*(?:\p{L}+|\p{N}{1,3}|[^\p{L}\p{N}\s])|\s+/gu) ?? [];

/** rag.py `create_chunks`: consecutive runs of `size` tokens, decoded back to text. */
export function chunkDocument(document: string, size: number, split: TokenSplitter): string[] {
  const tokens = split(document);
  const chunks: string[] = [];
  for (let i = 0; i < tokens.length; i += size) chunks.push(tokens.slice(i, i + size).join(''));
  return chunks;
}

/** rag.py `clean_chat_history`'s line for one turn. */
export function mem0HistoryLine(dateTimeText: string, speaker: string, text: string): string {
  return `${dateTimeText} | ${speaker}: ${text}\n`;
}

interface Chunk {
  id: string;
  text: string;
  /** Character range in the document, for the turns the chunk overlaps. */
  start: number;
  end: number;
}

export class Mem0RagMemory implements MemoryService {
  readonly preset = MEM0_RAG_PRESET;
  private readonly dates: Map<number, string | null>;
  private readonly dateTexts: Map<number, string>;
  /** Each inserted turn's character range in the document. */
  private readonly turns: Array<{ diaId: string; session: number; start: number; end: number }> =
    [];
  private readonly chunks = new Map<string, Chunk>();
  /** The document after the last complete chunk, and where it starts. */
  private tail = '';
  private tailStart = 0;
  private complete = 0;
  private closed = false;

  get embedderName(): string {
    return this.embedder.name;
  }

  private constructor(
    private readonly config: Mem0RagPresetConfig,
    private readonly collection: HybridCollection,
    private readonly embedder: Embedder,
    sample: Sample,
    private readonly split: TokenSplitter = estimateTokenSplit,
  ) {
    this.dates = sessionDates(sample);
    this.dateTexts = new Map(sample.sessions.map((s) => [s.index, s.dateTimeText ?? '']));
  }

  static async open(
    config: Mem0RagPresetConfig,
    ctx: MemoryServiceContext,
  ): Promise<Mem0RagMemory> {
    const embedder = await openServiceEmbedder(config.embedder, ctx);
    const collection = HybridCollection.open(ctx.dir, {
      name: `${MEM0_RAG_PRESET} ${ctx.sample.sampleId}`,
      ...(ctx.logger ? { logger: ctx.logger } : {}),
    });
    // Chunks depend on everything before them: a reopened collection cannot be continued.
    if (collection.count() > 0) {
      collection.close();
      throw new Error(
        `memory preset ${MEM0_RAG_PRESET}: ${ctx.dir} already holds chunks; it needs an empty directory`,
      );
    }
    collection.createIndex(VECTOR, {
      type: 'vector',
      dim: embedder.dim,
      space: 'cosine',
      M: DEFAULT_VECTOR_M,
      efConstruction: DEFAULT_VECTOR_EF_CONSTRUCTION,
      ef: EXHAUSTIVE_EF,
    });
    return new Mem0RagMemory(config, collection, embedder, ctx.sample);
  }

  async insert(packet: Packet, signal?: AbortSignal): Promise<void> {
    this.assertOpen();
    if (packet.dialogs.length === 0) return;
    let at = this.tailStart + this.tail.length;
    for (const turn of packet.dialogs) {
      const line = mem0HistoryLine(
        this.dateTexts.get(turn.sessionIndex) ?? '',
        turn.speaker,
        turn.rawText,
      );
      this.turns.push({
        diaId: turn.diaId,
        session: turn.sessionIndex,
        start: at,
        end: at + line.length,
      });
      this.tail += line;
      at += line.length;
    }
    // The first chunkSize tokens of the tail are final once a token follows them (the last token
    // may still grow: whitespace joins the next word). The last, partial chunk is replaced.
    const size = this.config.chunkSize;
    const tokens = this.split(this.tail);
    const previousPartial = `C${this.complete}`;
    const updated: Chunk[] = [];
    let used = 0;
    while (tokens.length - used > size) {
      const text = tokens.slice(used, used + size).join('');
      updated.push(this.chunk(text));
      this.complete++;
      this.tailStart += text.length;
      used += size;
    }
    this.tail = tokens.slice(used).join('');
    updated.push(this.chunk(this.tail));
    const vectors = await this.embedder.embed(
      updated.map((c) => c.text),
      signal ? { signal } : {},
    );
    if (this.chunks.delete(previousPartial)) this.collection.delete([previousPartial]);
    await this.collection.insert(
      updated.map((c, i) => ({
        id: c.id,
        text: c.text,
        vectors: { [VECTOR]: vectors[i] as Float32Array },
      })),
    );
    for (const c of updated) this.chunks.set(c.id, c);
  }

  /** The chunk that starts where the tail starts. */
  private chunk(text: string): Chunk {
    return {
      id: `C${this.complete}`,
      text,
      start: this.tailStart,
      end: this.tailStart + text.length,
    };
  }

  async retrieve(question: string, topK: number): Promise<MemoryHit[]> {
    this.assertOpen();
    if (topK <= 0 || this.chunks.size === 0) return [];
    const query = (await this.embedder.embed([question]))[0] as Float32Array;
    const hits = await this.collection.retrieve(VECTOR, query, { topK });
    const out: MemoryHit[] = [];
    for (const hit of hits) {
      const chunk = this.chunks.get(hit.id);
      if (!chunk) continue;
      const covered = this.turns.filter((t) => t.start < chunk.end && t.end > chunk.start);
      const first = covered[0];
      out.push({
        id: chunk.id,
        diaId: null,
        text: chunk.text,
        speaker: null,
        score: hit.score,
        sessionDateTime: first ? (this.dates.get(first.session) ?? null) : null,
        source: {
          kind: 'chunk',
          contextIds: covered.map((t) => t.diaId),
          dateTimeText: first ? (this.dateTexts.get(first.session) ?? '') : '',
        },
      });
    }
    return out;
  }

  stats(): Record<string, number> {
    return { items: this.chunks.size, ...embedderCounters([this.embedder]) };
  }

  notes(): string[] {
    return [
      `${MEM0_RAG_PRESET}: Mem0's chunked RAG (evaluation/src/rag.py), ${this.config.chunkSize}-token chunks ` +
        `(tokens estimated, not tiktoken), top k by cosine over ${this.embedder.name} (Mem0: text-embedding-3-small)`,
    ];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.collection.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`memory preset ${MEM0_RAG_PRESET}: used after close`);
  }
}

export const mem0RagPreset: MemoryServiceFactory = async (config, ctx) =>
  Mem0RagMemory.open(parsePresetConfig(MEM0_RAG_PRESET, mem0RagPresetConfigSchema, config), ctx);

export const mem0RagPresetDefinition: MemoryPresetDefinition = {
  name: MEM0_RAG_PRESET,
  create: mem0RagPreset,
  configSchema: mem0RagPresetConfigSchema,
  embedder: true,
};
