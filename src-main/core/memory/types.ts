import type { Packet, Sample } from '../../../src-shared/dataset';
import type { AnswerRequest, MemoryHit } from './request';
import type { CallMeter, LlmClient } from '../answer/llm-client';
import type { CollectionLogger } from '../collection';
import type { ApiKeys } from '../keys';

/**
 * A memory service owns exactly one HybridCollection (in its own directory) and decides what to
 * store from each packet and what to retrieve for a question. The pipeline talks only to this.
 */
export interface MemoryService {
  /** The preset name, e.g. `hybrid`; recorded in run manifests. */
  readonly preset: string;
  /** The embedder behind its vector indexes (recorded in the run manifest); null for none. */
  readonly embedderName: string | null;
  /**
   * Insert one packet (two turns). The sample gives context: speakers, session dates. `signal`
   * fires at the pipeline's insert deadline: slow work (an LLM call) should stop then, so a late
   * insert does not run on beside the next one.
   */
  insert(packet: Packet, signal?: AbortSignal): Promise<void>;
  /**
   * Answer-time retrieval: the memories shown to the answerer, best first. `context` carries the
   * question's own date where the dataset gives one (LongMemEval `question_date`).
   */
  retrieve(question: string, topK: number, context?: RetrieveContext): Promise<MemoryHit[]>;
  /**
   * Present on services that answer questions themselves (an external service with the `answer`
   * capability): the pipeline then asks this instead of the run's answerer. `hits` are the
   * memories the answer was based on (evidence recall is counted on them), best first.
   */
  answer?(
    request: AnswerRequest,
    topK: number,
    signal?: AbortSignal,
  ): Promise<{ answer: string; hits: MemoryHit[] }>;
  /** Counters for progress and manifests (items, per-index counts, migrations…). */
  stats(): Record<string, number>;
  /** Notes the run manifest must carry (e.g. "long-term stage off: no LLM configured"). */
  notes(): string[];
  close(): Promise<void>;
}

/** What the pipeline knows about when a question is asked. */
export interface RetrieveContext {
  /** The reference time for "last week" (zone-less ISO); null: the dataset gives none. */
  questionDate: string | null;
}

/** What a memory service needs of an LLM: one chat completion at a time (LlmClient has it). */
export type MemoryLlm = Pick<LlmClient, 'model' | 'complete'>;

export interface MemoryServiceContext {
  sample: Sample;
  /** Directory the service's collection lives in; created by the caller, owned by the service. */
  dir: string;
  /** The run's memory LLM (`memory.llm`), for presets with LLM stages; absent or null: none. */
  llm?: MemoryLlm | null;
  /** The run's seed, sent with LLM calls so sampling servers can repeat them. */
  seed?: number;
  /**
   * Where the service and its collection send warnings (an hnsw index rebuilt, an embedding cache
   * that cannot be written); a run records them in its manifest. Absent: console.
   */
  logger?: CollectionLogger;
  /** Where caches that outlive a run are kept (`<dataDir>/cache`: embeddings); absent: none. */
  cacheDir?: string;
  /** API keys by variable name, for the OpenAI embedders the config names (see core/keys.ts). */
  apiKeys?: ApiKeys;
  /** Files an embedder's requests in the run's call ledger, by embedding model; absent: none. */
  embedderMeter?: (model: string) => CallMeter;
  /**
   * False when the config came from the network (core/trust.ts `isLocalUser`): error messages
   * then never quote what a remote service replied. Absent: they may.
   */
  quoteReplies?: boolean;
}
