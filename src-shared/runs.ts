import type { EmbedderRecord } from './embedders';
import type { ExperimentConfig, RunStatus, SampleStatus } from './experiment';

/** What the runs database says about a run: shared so the API contract and the UI can name it. */

/** Token totals of one model's calls in a run. */
export interface TokenTotals {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** USD from the configured prices per million tokens; null without prices. */
  cost: number | null;
}

/** The prompt templates a run's answerer used, stored whole with their hash. */
export interface PromptRecord {
  style: string;
  /** sha256 of the canonical JSON of `templates`. */
  sha256: string;
  templates: Record<string, string>;
}

export interface RunManifest {
  manifestVersion: 1;
  runId: string;
  /** The full config with secrets replaced by "[redacted]". */
  config: ExperimentConfig;
  /** sha256 of the canonical JSON of `config`. */
  configHash: string;
  dataset: { path: string; sha256: string | null; bytes: number | null; format: string };
  samples: string[];
  app: { version: string; gitCommit: string | null };
  memory: { preset: string; notes: string[] };
  /** The embedder the preset uses, when its config names one. */
  embedder: string | null;
  /**
   * Every embedder the memory's vector indexes use (name, model, endpoint), and over the run's
   * samples the embedding requests sent and the persistent cache's hits and misses (a rerun of
   * the same texts is all hits, no requests). Absent in runs made before it was recorded.
   */
  embedding?: {
    embedders: EmbedderRecord[];
    requests: number;
    cacheHits: number;
    cacheMisses: number;
  };
  answerer: {
    kind: string;
    name: string;
    /** The chat model, for LLM answerers (absent in runs made before LLM answerers). */
    model?: string | null;
    prompts?: PromptRecord | null;
  };
  /** The LLM judge, when the run has one. */
  judge?: { model: string; repeats: number; prompt: PromptRecord } | null;
  /**
   * Token totals and cost; absent in runs made before LLM answerers. `memory`: the memory
   * service's own LLM stages (absent before they existed, null without a memory LLM).
   */
  usage?: { answer: TokenTotals; judge: TokenTotals | null; memory?: TokenTotals | null };
  seed: number;
  /** Workers actually used (the config's value clamped to the cores). */
  parallel: number;
  host: { platform: string; arch: string; node: string; cores: number };
  startedAt: string;
  endedAt: string | null;
  errors: { insert: number; answer: number };
  /**
   * Warnings the samples' memory services and collections logged (an hnsw index rebuilt from the
   * database, an embedding cache that could not be written), each prefixed with its sample; at most
   * MAX_MANIFEST_WARNINGS, then one line saying how many more. Absent in runs made before.
   */
  warnings?: string[];
}

export const MAX_MANIFEST_WARNINGS = 100;

export interface SamplePlanRow {
  sampleId: string;
  totalPackets: number;
  totalQuestions: number;
  threshold: number;
  plannedTests: number;
}

export interface RunSampleInfo extends SamplePlanRow {
  status: SampleStatus;
  testsCommitted: number;
  insertErrors: number;
  insertErrorMessages: string[];
  notes: string[];
  error: string | null;
  startedAt: string | null;
  endedAt: string | null;
}

export interface RunListItem {
  id: string;
  status: RunStatus;
  preset: string;
  datasetPath: string;
  samples: number;
  createdAt: string;
  endedAt: string | null;
  insertErrors: number;
  answerErrors: number;
  resumes: number;
}

export interface RunInfo extends RunListItem {
  manifest: RunManifest;
  pid: number | null;
  error: string | null;
  sampleInfo: RunSampleInfo[];
}
