import type { ExperimentConfig, RunStatus, SampleStatus } from './experiment';
import type { SweepTag } from './sweeps';

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
  /** The sweep this run is a cell of (absent for runs started on their own). */
  sweep?: SweepTag;
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
