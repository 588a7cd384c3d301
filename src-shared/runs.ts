import type { ExperimentConfig, RunStatus, SampleStatus } from './experiment';

/** What the runs database says about a run: shared so the API contract and the UI can name it. */

/** Token totals of one model's calls in a run. */
export interface TokenTotals {
  /**
   * HTTP requests sent, retries and failed attempts included (runs made before the call ledger,
   * runs-DB schema 4, counted successful calls only).
   */
  calls: number;
  /** Requests that got no usable reply (error status, timeout, bad body); absent in older runs. */
  failures?: number;
  promptTokens: number;
  completionTokens: number;
  /** USD from the configured prices per million tokens; null without prices. */
  cost: number | null;
}

/** Who made an LLM (or embeddings) call of a run. */
export const LLM_CALL_ROLES = ['answer', 'judge', 'memory', 'embedder'] as const;
export type LlmCallRole = (typeof LLM_CALL_ROLES)[number];

/**
 * What one request adds to a run's call ledger: `calls` 1 when it is sent, then `failures` or tokens
 * when it ends, so a request in flight when the process is killed is still counted.
 */
export interface LlmCallDelta {
  calls: number;
  failures: number;
  promptTokens: number;
  completionTokens: number;
}

export interface LlmCallRecord extends LlmCallDelta {
  role: LlmCallRole;
  model: string;
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
}

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
