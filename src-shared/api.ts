import { z } from 'zod';
import type { DatasetProblem, Sample } from './dataset/types';
import type { DatasetStats } from './dataset/stats';
import type { ErrorPayload, Result } from './errors';
import type { ConfigDifference, RunComparison } from './compare';
import {
  ExperimentConfigSchema,
  type AnswerRecord,
  type CurvePoint,
  type ProgressEvent,
  type RunSummary,
} from './experiment';
import type { RunInfo, RunListItem } from './runs';

/**
 * The one API contract. Every method is declared here once with the zod schema of its input and
 * the type of its output; the Electron IPC handlers, the preload bridge, the HTTP server and the
 * renderer client are all derived from this map, so a method cannot exist in one transport only.
 */
export interface MethodSpec<I extends z.ZodType, O> {
  readonly input: I;
  /** Phantom: carries the output type; never set at runtime. */
  readonly output?: O;
}

function method<O>() {
  return <I extends z.ZodType>(input: I): MethodSpec<I, O> => ({ input });
}

export interface AppInfo {
  name: string;
  version: string;
  gitCommit: string | null;
  transport: 'electron' | 'http';
  dataDir: string;
}

/** A dataset the engine has opened, as listed in the UI. */
export interface DatasetSummary {
  /** sha256 of the file's bytes: the same file opened twice is one dataset. */
  datasetId: string;
  name: string;
  /** Where the engine reads it from (uploads are copied into the data folder). */
  path: string;
  format: string;
  bytes: number;
  sha256: string;
  openedAt: string;
  stats: DatasetStats;
  problems: DatasetProblem[];
}

const runId = z.string().min(1).max(100);
const datasetId = z.string().regex(/^[0-9a-f]{64}$/, 'must be a dataset id (sha256 hex)');
/** Uploads carry the whole file; LoCoMo is 2.8 MB, the limit leaves room for larger sets. */
const MAX_UPLOAD_CHARS = 256 * 1024 * 1024;

export const apiMethods = {
  'app.info': method<AppInfo>()(z.object({}).strict()),
  'datasets.list': method<DatasetSummary[]>()(z.object({}).strict()),
  /** Open a file the engine can read by path (desktop app, CLI-started server). */
  'datasets.open': method<DatasetSummary>()(z.object({ path: z.string().min(1) }).strict()),
  /** Open a file's content (browser mode upload, drag-and-drop); stored in the data folder. */
  'datasets.upload': method<DatasetSummary>()(
    z
      .object({
        name: z.string().min(1).max(255),
        content: z.string().max(MAX_UPLOAD_CHARS, 'is larger than 256 MB'),
      })
      .strict(),
  ),
  'datasets.get': method<DatasetSummary>()(z.object({ datasetId }).strict()),
  'datasets.sample': method<Sample>()(
    z.object({ datasetId, sampleId: z.string().min(1) }).strict(),
  ),
  'datasets.close': method<{ closed: boolean }>()(z.object({ datasetId }).strict()),

  'memory.presets': method<MemoryPresetInfo[]>()(z.object({}).strict()),

  /** Starts a run in worker threads and returns at once; progress arrives as events. */
  'experiments.start': method<{ runId: string }>()(
    ExperimentConfigSchema.omit({ datasetPath: true }).extend({ datasetId }).strict(),
  ),
  'experiments.cancel': method<{ cancelled: boolean }>()(z.object({ runId }).strict()),
  'experiments.resume': method<{ runId: string }>()(z.object({ runId }).strict()),
  /** Runs executing in this engine now, with their latest progress event. */
  'experiments.active': method<ActiveRun[]>()(z.object({}).strict()),

  'runs.list': method<RunListItem[]>()(z.object({}).strict()),
  'runs.get': method<RunDetail>()(z.object({ runId }).strict()),
  /** Each question's final answer (the headline). */
  'runs.answers': method<AnswerRecord[]>()(z.object({ runId }).strict()),
  'runs.delete': method<{ deleted: boolean }>()(z.object({ runId }).strict()),
  'runs.export': method<ExportedFile>()(
    z.object({ runId, format: z.enum(['json', 'csv']) }).strict(),
  ),
  'runs.compare': method<RunComparisonResult>()(
    z
      .object({
        runIds: z.array(runId).min(2).max(8),
        baselineRunId: runId,
        metric: z.enum(['officialF1', 'evidenceRecall']).default('officialF1'),
        seed: z.number().int().default(0),
      })
      .strict(),
  ),
  'runs.compareExport': method<ExportedFile>()(
    z
      .object({
        runIds: z.array(runId).min(2).max(8),
        baselineRunId: runId,
        metric: z.enum(['officialF1', 'evidenceRecall']).default('officialF1'),
        format: z.enum(['json', 'csv']),
      })
      .strict(),
  ),
} as const;

export interface MemoryPresetInfo {
  name: string;
  isDefault: boolean;
}

export interface ActiveRun {
  runId: string;
  last: ProgressEvent | null;
}

export interface RunDetail {
  info: RunInfo;
  summary: RunSummary;
  curve: CurvePoint[];
}

export interface ExportedFile {
  filename: string;
  mimeType: string;
  content: string;
}

export interface RunComparisonResult {
  comparison: RunComparison;
  configDiff: ConfigDifference[];
}

export type ApiMethods = typeof apiMethods;
export type ApiName = keyof ApiMethods;
export type ApiInput<K extends ApiName> = z.input<ApiMethods[K]['input']>;
export type ApiParsedInput<K extends ApiName> = z.output<ApiMethods[K]['input']>;
export type ApiOutput<K extends ApiName> =
  ApiMethods[K] extends MethodSpec<z.ZodType, infer O> ? O : never;

/** What the main process implements, once, for both transports. */
export type ApiHandlers = {
  [K in ApiName]: (input: ApiParsedInput<K>) => Promise<ApiOutput<K>>;
};

/** Events pushed from the engine to every connected UI (progress of long work). */
export type ApiEvent =
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string }
  | { type: 'progress'; event: ProgressEvent }
  /** The desktop menu opened a dataset; the UI shows it. */
  | { type: 'dataset-opened'; datasetId: string }
  | { type: 'dataset-open-failed'; error: ErrorPayload };

export type ApiResponse<K extends ApiName> = Result<ApiOutput<K>>;

/** The renderer's view of whichever transport it runs on. */
export interface ApiClient {
  call<K extends ApiName>(name: K, input: ApiInput<K>): Promise<ApiOutput<K>>;
  onEvent(listener: (event: ApiEvent) => void): () => void;
}

export const apiNames = Object.keys(apiMethods) as ApiName[];

export function isApiName(value: unknown): value is ApiName {
  return typeof value === 'string' && Object.hasOwn(apiMethods, value);
}

export type { ErrorPayload };
