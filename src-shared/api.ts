import type { FairnessWarning } from './fairness';
import { z } from 'zod';
import type { DatasetProblem, Sample } from './dataset/types';
import type { DatasetStats } from './dataset/stats';
import type { BenchmarkProfile } from './benchmarks';
import type { ErrorPayload, Result } from './errors';
import {
  isCompareMetric,
  type ConfigDifference,
  type QuestionSets,
  type RunComparison,
  type ScoreIntervals,
  type RunCost,
} from './compare';
import {
  DEFAULT_TOP_K,
  ExperimentConfigSchema,
  JudgeConfigSchema,
  LlmPricesSchema,
  RESPONSE_CACHE_MODES,
  type AnswerRecord,
  type CurvePoint,
  type ProgressEvent,
  type RunSummary,
} from './experiment';
import type { RunProgress } from './liveProgress';
import type { ProtocolJudgeSummary, RescoreResult } from './rescore';
import { MAX_RESCORE_JUDGES } from './judges';
import type { JudgePanel } from './judgePanel';
import type { RunErrata } from './errata';
import {
  MAX_RUN_TAGS,
  RunIdentitySchema,
  runTagSchema,
  type RunIdentity,
  type RunInfo,
  type ExperimentEstimate,
  type RunListItem,
} from './runs';
import type { SweepDetail, SweepListItem } from './sweeps';
import {
  answerKeySchema,
  humanLabelSchema,
  labelSampleRequestSchema,
  labellerNameSchema,
  type HumanLabelRow,
  type LabelAgreement,
  type LabelImportResult,
  type LabellingSession,
} from './labels';
import type { PackListItem, PackResults, PackRun } from './reproduce';
import type { ComparedJudge } from './compareJudges';
import {
  CollectionDesignSchema,
  DESIGN_BASE_PRESETS,
  MAX_DESIGN_NAME,
  PLAYGROUND_MAX_TOP_K,
  type CollectionDesign,
  type DesignList,
  type PlaygroundResult,
  type SavedDesign,
} from './designs';
import {
  ModelEndpointInputSchema,
  apiKeyEnvSchema,
  endpointIdSchema,
  type KeyStatus,
  type ModelEndpoint,
  type ModelTestResult,
} from './models';

/** A registered metric's id (src-shared/metrics). */
const metricIdSchema = z.string().refine(isCompareMetric, { message: 'not a registered metric' });

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

/** A dataset file inside one of browser mode's `serve --dataset-dir` folders, openable by path. */
export interface DatasetFolderFile {
  /** The path `datasets.open` takes (the folder's real path joined with the name). */
  path: string;
  name: string;
  /** The folder it lies in (its real path). */
  folder: string;
  bytes: number;
}

/** A dataset the engine has opened, as listed in the UI. */
export interface DatasetSummary {
  /** sha256 of the file's bytes: the same file opened twice is one dataset. */
  datasetId: string;
  name: string;
  /** Where the engine reads it from (uploads are copied into the data folder). */
  path: string;
  /**
   * The file the user gave: the path they opened, or an upload's own file name (a browser sends
   * no folder), never the stored copy. Commands shown to the user name this.
   */
  userFile: string;
  format: string;
  bytes: number;
  sha256: string;
  openedAt: string;
  stats: DatasetStats;
  problems: DatasetProblem[];
}

const runId = z.string().min(1).max(100);
const datasetId = z.string().regex(/^[0-9a-f]{64}$/, 'must be a dataset id (sha256 hex)');
const reproduceInput = z
  .object({
    packId: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be a pack id'),
    datasetId,
    samples: z.array(z.string().min(1)).min(1).max(1000).optional(),
    repeats: z.number().int().min(1).max(100).optional(),
    /** Per-million prices for the plan's cost (a saved endpoint's); absent: no cost. */
    prices: LlmPricesSchema.optional(),
  })
  .strict();
/** Uploads carry the whole file; LoCoMo is 2.8 MB, the limit leaves room for larger sets. */
const MAX_UPLOAD_CHARS = 256 * 1024 * 1024;
/** The most answers one `runs.answersPage` call returns. */
export const MAX_ANSWERS_PAGE = 1000;
/**
 * How a start or resume calls its endpoints, as the CLI's `--no-preflight`, `--no-cache` and
 * `--cache-only` say it; absent: the launcher's policy (src-main/core/launch/launch.ts), the same
 * from every surface.
 */
const launchCallFields = {
  /** `false` skips the preflight; a replay (`only`) is never preflighted. */
  preflight: z.boolean().optional(),
  /** The LLM response cache for this run (default `on`). */
  responseCache: z.enum(RESPONSE_CACHE_MODES).optional(),
};
/** A run as the Experiments form sends it: the config with an open dataset instead of a path. */
const experimentInput = ExperimentConfigSchema.omit({ datasetPath: true })
  // The run's name, tags and notes: kept beside the run, not in its config or hash.
  .extend({
    datasetId,
    identity: RunIdentitySchema.optional(),
    ...launchCallFields,
  })
  .strict();
const playgroundId = z.string().regex(/^pg-[0-9a-z-]{1,64}$/, 'must be a playground id');

export const apiMethods = {
  'app.info': method<AppInfo>()(z.object({}).strict()),
  'datasets.list': method<DatasetSummary[]>()(z.object({}).strict()),
  /** Open a file by path: any the desktop app's dialog picked; in browser mode only inside `serve --dataset-dir` folders. */
  'datasets.open': method<DatasetSummary>()(z.object({ path: z.string().min(1) }).strict()),
  /** Browser mode: the .json files in the `serve --dataset-dir` folders (the desktop app has none). */
  'datasets.folderFiles': method<DatasetFolderFile[]>()(z.object({}).strict()),
  /** Open a file's content (browser mode upload, drag-and-drop); stored in the data folder. */
  'datasets.upload': method<DatasetSummary>()(
    z
      .object({
        name: z.string().min(1).max(255),
        content: z.string().max(MAX_UPLOAD_CHARS, 'is larger than 256 MB'),
      })
      .strict(),
  ),
  'datasets.sample': method<Sample>()(
    z.object({ datasetId, sampleId: z.string().min(1) }).strict(),
  ),

  'memory.presets': method<MemoryPresetInfo[]>()(z.object({}).strict()),
  /** Every problem of a preset config under the preset's own schema (empty: it is valid). */
  'memory.checkConfig': method<{ problems: Array<{ path: string; message: string }> }>()(
    z
      .object({ preset: z.string().min(1).max(100), config: z.record(z.string(), z.unknown()) })
      .strict(),
  ),

  /** Starts a run in worker threads and returns at once; progress arrives as events. */
  'experiments.start': method<{ runId: string }>()(experimentInput),
  /**
   * The planner's estimate for the run `experiments.start` would begin with the same input (what
   * `cli experiment --dry-run` prints): LLM calls, tokens, cost. Nothing is called or stored.
   */
  'experiments.estimate': method<ExperimentEstimate>()(experimentInput),
  'experiments.cancel': method<{ cancelled: boolean }>()(z.object({ runId }).strict()),
  'experiments.resume': method<{ runId: string }>()(
    z.object({ runId, ...launchCallFields }).strict(),
  ),
  /** Runs executing in this engine now, with their latest progress event. */
  'experiments.active': method<ActiveRun[]>()(z.object({}).strict()),
  /**
   * The engine's live state of the runs it started or resumed since it launched (running ones
   * and the latest ended ones), newest first: what a reloaded page or a second window shows
   * before the progress events carry on from `seq`.
   */
  'experiments.live': method<RunProgress[]>()(z.object({}).strict()),

  'runs.list': method<RunListItem[]>()(z.object({}).strict()),
  'runs.get': method<RunDetail>()(z.object({ runId }).strict()),
  /**
   * A run's info and summary without its curve: what a live card refetches while the run goes
   * on (the curve of a full run costs seconds of a core, which the run itself needs).
   */
  'runs.summary': method<Omit<RunDetail, 'curve'>>()(z.object({ runId }).strict()),
  /** Each question's final answer (the headline). */
  'runs.answers': method<AnswerRecord[]>()(z.object({ runId }).strict()),
  /**
   * A page of `runs.answers` (same order: sample, question) with the total: a detail view shows
   * its first rows without waiting for a full run's ~2 MB.
   */
  'runs.answersPage': method<{ total: number; offset: number; answers: AnswerRecord[] }>()(
    z
      .object({
        runId,
        offset: z.number().int().nonnegative().max(10_000_000),
        limit: z.number().int().min(1).max(MAX_ANSWERS_PAGE),
      })
      .strict(),
  ),
  'runs.delete': method<{ deleted: boolean }>()(z.object({ runId }).strict()),
  /** Renames, retags or annotates a run; the fields left out stay as they are. */
  'runs.setIdentity': method<RunIdentity>()(
    z
      .object({
        runId,
        name: RunIdentitySchema.shape.name.unwrap().optional(),
        tags: z.array(runTagSchema).max(MAX_RUN_TAGS).optional(),
        notes: RunIdentitySchema.shape.notes.unwrap().optional(),
      })
      .strict(),
  ),
  'runs.export': method<ExportedFile>()(
    z.object({ runId, format: z.enum(['json', 'csv', 'html']) }).strict(),
  ),
  /**
   * Scores the run again under the given metrics (all registered ones by default) from what it
   * stored, writing every answer's values; judge metrics are skipped with the reason.
   */
  'runs.rescore': method<RescoreResult>()(
    z
      .object({
        runId,
        metrics: z.array(metricIdSchema).max(100).optional(),
        /** Also run this judge over the final answers, stored per judge (answers untouched). */
        judge: JudgeConfigSchema.optional(),
        /** More judges, after `judge`: each stored under its identity (src-shared/judges.ts). */
        judges: z.array(JudgeConfigSchema).min(1).max(MAX_RESCORE_JUDGES).optional(),
      })
      .strict(),
  ),
  'runs.compare': method<RunComparisonResult>()(
    z
      .object({
        runIds: z.array(runId).min(2).max(8),
        baselineRunId: runId,
        metric: metricIdSchema.default('officialF1'),
        seed: z.number().int().default(0),
      })
      .strict(),
  ),
  /**
   * One question's final answer in each of the runs (null where a run lacks it), with what is
   * needed to read it: the Compare view's "why did it flip" row.
   */
  'runs.question': method<QuestionAcrossRuns>()(
    z
      .object({
        runIds: z.array(runId).min(1).max(8),
        sampleId: z.string().min(1).max(200),
        questionIndex: z.number().int().nonnegative(),
      })
      .strict(),
  ),
  'runs.compareExport': method<ExportedFile>()(
    z
      .object({
        runIds: z.array(runId).min(2).max(8),
        baselineRunId: runId,
        metric: metricIdSchema.default('officialF1'),
        /** html: the self-contained report (src-shared/htmlReport.ts), as `cli report --html`. */
        format: z.enum(['json', 'csv', 'html']),
      })
      .strict(),
  ),

  // ---- Human labels of a run's answers (src-main/core/runs/labels.ts, src-shared/labels.ts) ----
  /** The run's labelling sample with this labeller's labels so far; null before one is drawn. */
  'labels.session': method<LabellingSession | null>()(
    z.object({ runId, labeller: labellerNameSchema.optional() }).strict(),
  ),
  /** Draws and stores the run's one labelling sample (the same request again returns it). */
  'labels.createSession': method<LabellingSession>()(
    labelSampleRequestSchema.extend({ runId }).strict(),
  ),
  /** Saves one label at once; a labeller's second label of an answer replaces the first. */
  'labels.save': method<HumanLabelRow>()(
    z
      .object({
        runId,
        key: answerKeySchema,
        labeller: labellerNameSchema,
        label: humanLabelSchema,
      })
      .strict(),
  ),
  /** Agreement between labellers and each judge of the run against the labels (judge-vs-human). */
  'labels.agreement': method<LabelAgreement>()(z.object({ runId }).strict()),
  'labels.export': method<ExportedFile>()(z.object({ runId }).strict()),
  /** Imports a labels CSV (all rows or none); an error names the row and column. */
  'labels.import': method<LabelImportResult>()(
    z.object({ content: z.string().max(MAX_UPLOAD_CHARS, 'is larger than 256 MB') }).strict(),
  ),

  // ---- Collections view: collection designs and the playground (src-main/core/designs) ----
  /** Saved designs (<dataDir>/designs.json), and any problem reading that file this session. */
  /** Sweeps recorded in the runs DB (runs tagged by `cli sweep run`). */
  'sweeps.list': method<SweepListItem[]>()(z.object({}).strict()),
  'sweeps.get': method<SweepDetail>()(
    z
      .object({ sweepId: z.string().regex(/^[A-Za-z0-9._-]{1,80}$/, 'must be a sweep id') })
      .strict(),
  ),

  // ---- Reproduce view: papers' tables as packs (src-main/core/reproduce) ----
  'reproduce.packs': method<PackListItem[]>()(z.object({}).strict()),
  /** LLM calls, tokens and cost of a pack in the paper's setting, before anything runs. */
  'reproduce.plan': method<PackRun>()(reproduceInput),
  /** Runs a pack offline (extractive answerer, no judge) on an open dataset; paper vs ours. */
  'reproduce.run': method<PackRun>()(reproduceInput),
  /**
   * A pack's stored results, whichever surface ran them (`cli reproduce`, this view, a sweep):
   * per row the newest complete repeat group, its sample set and status, paper vs ours.
   */
  'reproduce.results': method<PackResults>()(
    z.object({ packId: reproduceInput.shape.packId }).strict(),
  ),

  'designs.list': method<DesignList>()(z.object({}).strict()),
  /** Saves (or replaces, by name) a design; the file is written atomically. */
  'designs.save': method<SavedDesign>()(z.object({ design: CollectionDesignSchema }).strict()),
  'designs.delete': method<{ deleted: boolean }>()(
    z.object({ name: z.string().min(1).max(MAX_DESIGN_NAME) }).strict(),
  ),
  /** A design holding a built-in preset's defaults (not saved). */
  'designs.fromPreset': method<CollectionDesign>()(
    z.object({ preset: z.enum(DESIGN_BASE_PRESETS) }).strict(),
  ),
  /**
   * Builds a temporary collection over every turn of one sample and returns at once; progress
   * arrives as 'playground-progress' events. Only the newest few playgrounds are kept.
   */
  'playground.build': method<{ playgroundId: string; total: number }>()(
    z.object({ datasetId, sampleId: z.string().min(1), design: CollectionDesignSchema }).strict(),
  ),
  /** Per-index hits and the fused, re-ranked list (waits for the build to finish). */
  'playground.query': method<PlaygroundResult>()(
    z
      .object({
        playgroundId,
        query: z.string().trim().min(1, 'must not be empty').max(2000),
        topK: z.number().int().min(1).max(PLAYGROUND_MAX_TOP_K).default(DEFAULT_TOP_K),
        /** The sample's question whose evidence the hits are scored against (recall); absent: none. */
        questionIndex: z.number().int().nonnegative().optional(),
      })
      .strict(),
  ),
  'playground.dispose': method<{ disposed: boolean }>()(z.object({ playgroundId }).strict()),
  // ---- end Collections view ----

  // ---- Models view: saved model endpoints and their API keys (src-main/core/models) ----
  /** Saved endpoints (<dataDir>/models.json; never holds a key). */
  'models.list': method<ModelEndpoint[]>()(z.object({}).strict()),
  /** Adds an endpoint, or replaces the one with `endpoint.id`; the file is written atomically. */
  'models.save': method<ModelEndpoint>()(z.object({ endpoint: ModelEndpointInputSchema }).strict()),
  'models.delete': method<{ deleted: boolean }>()(
    z.object({ endpointId: endpointIdSchema }).strict(),
  ),
  /** One tiny chat completion; a failure is a result (`ok: false`), not a thrown error. */
  'models.test': method<ModelTestResult>()(z.object({ endpointId: endpointIdSchema }).strict()),
  /** Whether each endpoint's key variable is set, and where from. Never the key. */
  'models.keyStatus': method<KeyStatus[]>()(z.object({}).strict()),
  /** Desktop app only: stores the key in the OS keychain and sets it for later runs. */
  'models.setKey': method<{ set: boolean }>()(
    z.object({ apiKeyEnv: apiKeyEnvSchema, key: z.string().trim().min(1).max(4096) }).strict(),
  ),
  'models.clearKey': method<{ cleared: boolean }>()(
    z.object({ apiKeyEnv: apiKeyEnvSchema }).strict(),
  ),
  // ---- end Models view ----
} as const;

export interface MemoryPresetInfo {
  name: string;
  isDefault: boolean;
  /** What it does with a memory LLM (`memory.llm`), e.g. "summaries"; null: it uses none. */
  llmStage: string | null;
  /** It cannot run without a memory LLM (`mem0`: Mem0's own extraction is an LLM call). */
  requiresLlm?: boolean;
  /** Its config takes an `embedder` (wink or an OpenAI-compatible endpoint) for its vector index. */
  embedder: boolean;
}

export type { ExperimentEstimate } from './runs';

export interface ActiveRun {
  runId: string;
  last: ProgressEvent | null;
}

export interface RunDetail {
  info: RunInfo;
  /** The run's benchmark profile: its categories, their names per scheme, which are adversarial. */
  benchmark: BenchmarkProfile;
  summary: RunSummary;
  curve: CurvePoint[];
  /** J under each judge protocol a rescore ran (`rescore --judge`); empty when none. */
  judgeProtocols: ProtocolJudgeSummary[];
  /** Scores against the original and the corrected gold and the ceiling; null without errata. */
  errata: RunErrata | null;
  /** Official F1's 95% bootstrap intervals over final answers (absent from older servers). */
  intervals?: ScoreIntervals;
  /** Every judge's J with its interval and their agreement; null without a judge (absent from older servers). */
  judgePanel?: JudgePanel | null;
}

export interface ExportedFile {
  filename: string;
  mimeType: string;
  content: string;
}

export interface RunComparisonResult {
  comparison: RunComparison;
  configDiff: ConfigDifference[];
  /** Per run, in the comparison's order: tokens, cost and latency. */
  costs: RunCost[];
  /** Where the runs are not compared on equal terms: top_k, context size, question set. */
  fairness: FairnessWarning[];
  /**
   * Questions each run answered and how many all share; the comparison (rows, means, flips) is
   * over the shared ones only.
   */
  questionSets: QuestionSets;
  /** The baseline run's benchmark profile: the categories' names. */
  benchmark: BenchmarkProfile;
  /** J under each judge that scored every compared run (absent in results made before it). */
  judges?: ComparedJudge[];
}

/** One run's side of a question, for the side-by-side "why did it flip" view. */
export interface QuestionRunSide {
  runId: string;
  label: string;
  /** The dataset the run read (sha256), so the UI can find the turns' text and the evidence. */
  datasetSha256: string | null;
  topK: number;
  /** The run's judge protocol (`mem0`, `strict`, …); null without a judge. */
  judgeProtocol: string | null;
  /** The question's answer at the last test that asked it; null: the run lacks the question. */
  answer: AnswerRecord | null;
  /**
   * The judge's reason per repeat, in repeat order, from the runs DB's judge cache; null where
   * the cache holds none (no judge, an errored answer, a verdict given elsewhere).
   */
  judgeReasons: Array<string | null> | null;
}

export interface QuestionAcrossRuns {
  sampleId: string;
  questionIndex: number;
  /** In the order the runs were asked for. */
  runs: QuestionRunSide[];
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
  /** `seq`: the event's number within its run, as counted by the engine ('experiments.live'). */
  | { type: 'progress'; event: ProgressEvent; seq?: number }
  /** The desktop menu opened a dataset; the UI shows it. */
  | { type: 'dataset-opened'; datasetId: string }
  | { type: 'dataset-open-failed'; error: ErrorPayload }
  /** Collections view: a playground build advanced, finished (`done`) or failed (`error`). */
  | {
      type: 'playground-progress';
      playgroundId: string;
      inserted: number;
      total: number;
      done: boolean;
      error?: ErrorPayload;
    };

const eventErrorSchema = z.object({ code: z.string(), message: z.string() }).loose();

/**
 * What the renderer accepts on the event stream (WebSocket or IPC). Events are display data from
 * the engine: each kind's envelope and the fields the UI acts on are checked, progress details
 * are kept as sent (the worker protocol checked them on their way in).
 */
export const apiEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('log'),
    level: z.enum(['info', 'warn', 'error']),
    message: z.string(),
  }),
  z.object({
    type: z.literal('progress'),
    event: z.object({ type: z.string(), runId: z.string(), at: z.number() }).loose(),
    seq: z.number().int().nonnegative().optional(),
  }),
  z.object({ type: z.literal('dataset-opened'), datasetId: z.string().min(1) }),
  z.object({ type: z.literal('dataset-open-failed'), error: eventErrorSchema }),
  z.object({
    type: z.literal('playground-progress'),
    playgroundId: z.string(),
    inserted: z.number(),
    total: z.number(),
    done: z.boolean(),
    error: eventErrorSchema.optional(),
  }),
]);

/** The event, or null for anything that is not one (the caller says so and drops it). */
export function parseApiEvent(raw: unknown): ApiEvent | null {
  const parsed = apiEventSchema.safeParse(raw);
  return parsed.success ? (parsed.data as unknown as ApiEvent) : null;
}

export type ApiResponse<K extends ApiName> = Result<ApiOutput<K>>;

/**
 * What the Electron preload exposes on `window.workbench`, typed by the API map: the preload
 * declares its object `satisfies WorkbenchBridge`, so a renamed method or changed input breaks
 * the build there, not at run time.
 */
export interface WorkbenchBridge {
  call<K extends ApiName>(name: K, input: ApiInput<K>): Promise<ApiResponse<K>>;
  /** Raw event payloads; the client checks them (parseApiEvent). */
  onEvent(listener: (event: unknown) => void): () => void;
}

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
