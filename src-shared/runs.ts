import { z } from 'zod';
import type { EmbedderRecord } from './embedders';
import { WorkbenchError } from './errors';
import {
  ExperimentConfigSchema,
  type ExperimentConfig,
  type RunStatus,
  type RunSummary,
  type SampleStatus,
} from './experiment';
import { SweepTagSchema, axisValueLabel, type SweepTag } from './sweeps';
import { ErrataRecordSchema, type ErrataRecord } from './errata';

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

/**
 * Who made an LLM (or embeddings) call of a run; `preflight` is the launch's one test request per
 * endpoint (pipeline/preflight.ts), counted so the ledger matches what the endpoints received.
 */
export const LLM_CALL_ROLES = ['answer', 'judge', 'memory', 'embedder', 'preflight'] as const;
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
  /** Requests answered from a cache instead of sent (absent: none; 0 in ledgers before schema 13). */
  cacheHits?: number;
  /** Requests the cache did not hold, so they were sent (absent: none or no cache). */
  cacheMisses?: number;
  /** The shapes of the requests built (what `wireShapeOf` keeps of a body), each once per batch. */
  shapes?: WireShape[];
}

/**
 * One kind of request a role sent, as serialised on the wire: a protocol step (`answer`, `notes`,
 * `judge`, ...) and the body's fields other than its content (`messages` or `input`), so the
 * model, max_tokens, temperature, seed (absent when none was sent) and response_format are the
 * bytes that went out, not the config's.
 */
export interface WireShape {
  step: string;
  params: Record<string, unknown>;
}

/** A wire shape filed for a role in the run's ledger (`llm_request_shapes`). */
export interface RoleWireShape extends WireShape {
  role: LlmCallRole;
}

/** A request body's fields besides its content, keys sorted so equal shapes serialise equally. */
export function wireShapeOf(step: string, body: Record<string, unknown>): WireShape {
  const params: Record<string, unknown> = {};
  for (const key of Object.keys(body).sort()) {
    if (key !== 'messages' && key !== 'input') params[key] = body[key];
  }
  return { step, params };
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

/** The question counts a run started with (src-shared/coverage.ts says why n differs). */
export interface RunCoverage {
  /** Questions in the file's valid samples. */
  datasetQuestions: number;
  /** Questions of samples the config did not select. */
  notSelected: number;
  /** Questions without usable evidence left out by the opt-out (`includeNoEvidence: false`). */
  noEvidenceExcluded: number;
  /** Questions of categories the config does not ask (`questionCategories`); absent: none. */
  categoriesNotAsked?: number;
}

/** A sample the run left out because the file holds it in a form that cannot be run. */
export interface SkippedSample {
  /** Position in the file (0-based). */
  sampleIndex: number;
  sampleId: string | null;
  /** The loader's messages, naming the JSON path of each problem. */
  problems: string[];
}

/**
 * The manifest layout this build writes and the newest it reads. A stored manifest from a newer
 * build is refused (like MiniSearch's loadJSON), never half-read; one without a version predates
 * the field and is version 1.
 */
export const MANIFEST_VERSION = 1;

export interface RunManifest {
  manifestVersion: typeof MANIFEST_VERSION;
  runId: string;
  /** The full config with secrets replaced by "[redacted]". */
  config: ExperimentConfig;
  /** sha256 of the canonical JSON of `config`. */
  configHash: string;
  dataset: { path: string; sha256: string | null; bytes: number | null; format: string };
  samples: string[];
  app: { version: string; gitCommit: string | null };
  memory: {
    preset: string;
    notes: string[];
    /**
     * An external memory service (preset `external`): where it was reached, the `hello` it sent
     * at the start of the run, and the sha256 of that hello's canonical JSON (equal hashes: the
     * service said the same name, version and capabilities). Absent for built-in presets.
     */
    service?: { where: string; hello: unknown; sha256: string };
  };
  /** The embedder the preset uses, when its config names one. */
  embedder: string | null;
  /**
   * Every embedder the memory's vector indexes use (name, model, endpoint), and over the run's
   * samples the embedding requests sent and the persistent cache's hits and misses (a rerun of
   * the same texts is all hits, no requests). Absent in runs made before it was recorded.
   */
  /**
   * The answerer's LLM response cache: `on` or `only` (offline replay), and how many answer
   * requests it served (hits) or had to send (misses). Absent when the cache was off.
   */
  answerCache?: { mode: 'on' | 'only'; hits: number; misses: number };
  /**
   * The memory LLM's requests answered from the response cache beside those sent (`usage.memory`
   * counts only the sent ones), summed over launches; absent without a memory LLM or cache.
   */
  memoryCache?: { hits: number; misses: number };
  /**
   * Per role, each kind of request the run built and sent (step and body parameters), filed by
   * the clients as they serialise requests, over every launch. Absent in runs made before it.
   */
  requestParams?: RoleWireShape[];
  /** What the plan said the run would ask of its endpoints before it started (`usage` is actual). */
  estimate?: RunEstimate;
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
  /**
   * The LLM judge, when the run has one. `prompt.style` names the judge protocol and
   * `prompt.sha256` hashes its bytes; `unparseable` counts the labels of the last pass that are
   * WRONG only because the reply could not be read (absent in older runs).
   */
  judge?: {
    model: string;
    repeats: number;
    prompt: PromptRecord;
    responseFormat?: 'json_object' | null;
    unparseable?: number;
    /** Verdicts read from the judge cache instead of asked, over every pass (the ledger's). */
    cacheHits?: number;
  } | null;
  /**
   * Token totals and cost; absent in runs made before LLM answerers. `memory`: the memory
   * service's own LLM stages (absent before they existed, null without a memory LLM).
   * `preflight`: the launches' test requests, one per endpoint (absent when none were made).
   */
  usage?: {
    answer: TokenTotals;
    judge: TokenTotals | null;
    memory?: TokenTotals | null;
    preflight?: TokenTotals;
  };
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
  /** Invalid samples of the file left out (`skipInvalid`); absent when none were. */
  skippedSamples?: SkippedSample[];
  /**
   * What BLEU-1 tokenised with: the sha256 of NLTK's English Punkt model (punkt_tab) or null when
   * none was installed (sentences split with no abbreviation list). Absent on older runs.
   */
  scoring?: { punktModelSha256: string | null };
  /** The sweep this run is a cell of (absent for runs started on their own). */
  sweep?: SweepTag;
  /** Dataset errata the run applies (`--errata`): file, its sha256 and each resolved entry. */
  errata?: ErrataRecord;
  /** The question counts the run started with; absent in runs made before they were recorded. */
  coverage?: RunCoverage;
}

const count = z.number().int().nonnegative();

const TokenTotalsSchema = z
  .object({
    calls: count,
    promptTokens: count,
    completionTokens: count,
    cost: z.number().nullable(),
  })
  .loose() satisfies z.ZodType<TokenTotals>;

const PromptRecordSchema = z
  .object({ style: z.string(), sha256: z.string(), templates: z.record(z.string(), z.string()) })
  .loose() satisfies z.ZodType<PromptRecord>;

/**
 * A stored manifest as this build reads it. Objects are loose: a field written by a build of the
 * same manifest version that this one does not know is kept when the manifest is rewritten.
 */
/** A planned run's LLM calls, tokens (completions at their cap) and cost; null: no prices. */
export interface RunEstimate {
  answerCalls: number;
  judgeCalls: number;
  promptTokens: number;
  completionTokens: number;
  cost: number | null;
}

/** A planned run (pipeline/plan.ts): its size, LLM calls, tokens (completions at their cap), cost. */
export interface ExperimentEstimate extends RunEstimate {
  samples: number;
  tests: number;
  /** Answers the run records: each visible question at each test. */
  questions: number;
}

export const RunManifestSchema = z
  .object({
    manifestVersion: z.literal(MANIFEST_VERSION),
    runId: z.string().min(1),
    config: ExperimentConfigSchema,
    configHash: z.string(),
    dataset: z
      .object({
        path: z.string(),
        sha256: z.string().nullable(),
        bytes: count.nullable(),
        format: z.string(),
      })
      .loose(),
    samples: z.array(z.string()),
    app: z.object({ version: z.string(), gitCommit: z.string().nullable() }).loose(),
    memory: z.object({ preset: z.string(), notes: z.array(z.string()) }).loose(),
    embedder: z.string().nullable(),
    embedding: z
      .object({
        embedders: z.array(
          z
            .object({
              name: z.string(),
              model: z.string().nullable(),
              baseUrl: z.string().nullable(),
            })
            .loose(),
        ),
        requests: count,
        cacheHits: count,
        cacheMisses: count,
      })
      .loose()
      .optional(),
    answerer: z
      .object({
        kind: z.string(),
        name: z.string(),
        model: z.string().nullable().optional(),
        prompts: PromptRecordSchema.nullable().optional(),
      })
      .loose(),
    judge: z
      .object({ model: z.string(), repeats: count, prompt: PromptRecordSchema })
      .loose()
      .nullable()
      .optional(),
    usage: z
      .object({
        answer: TokenTotalsSchema,
        judge: TokenTotalsSchema.nullable(),
        memory: TokenTotalsSchema.nullable().optional(),
        preflight: TokenTotalsSchema.optional(),
      })
      .loose()
      .optional(),
    seed: z.number().int(),
    parallel: count,
    host: z
      .object({ platform: z.string(), arch: z.string(), node: z.string(), cores: count })
      .loose(),
    startedAt: z.string(),
    endedAt: z.string().nullable(),
    errors: z.object({ insert: count, answer: count }).loose(),
    scoring: z.object({ punktModelSha256: z.string().nullable() }).loose().optional(),
    skippedSamples: z
      .array(
        z.object({
          sampleIndex: count,
          sampleId: z.string().nullable(),
          problems: z.array(z.string()),
        }),
      )
      .optional(),
    warnings: z.array(z.string()).optional(),
    memoryCache: z.object({ hits: count, misses: count }).loose().optional(),
    requestParams: z
      .array(
        z.object({
          role: z.enum(LLM_CALL_ROLES),
          step: z.string(),
          params: z.record(z.string(), z.unknown()),
        }),
      )
      .optional(),
    answerCache: z
      .object({ mode: z.enum(['on', 'only']), hits: count, misses: count })
      .loose()
      .optional(),
    estimate: z
      .object({
        answerCalls: count,
        judgeCalls: count,
        promptTokens: count,
        completionTokens: count,
        cost: z.number().nonnegative().nullable(),
      })
      .loose()
      .optional(),
    sweep: SweepTagSchema.optional(),
    errata: ErrataRecordSchema.optional(),
    coverage: z
      .object({
        datasetQuestions: count,
        notSelected: count,
        noEvidenceExcluded: count,
        categoriesNotAsked: count.optional(),
      })
      .loose()
      .optional(),
  })
  .loose() satisfies z.ZodType<RunManifest>;

/**
 * Just what the runs list needs from a manifest, so one unreadable manifest cannot hide the list:
 * the settings the tables show are read where present and left null where a field is odd.
 */
export const ManifestListViewSchema = z
  .object({
    manifestVersion: z.number().int().positive().optional(),
    dataset: z.object({ path: z.string() }).loose(),
    config: z
      .object({
        retrieval: z.object({ topK: z.number().int() }).loose().optional().catch(undefined),
      })
      .loose()
      .optional()
      .catch(undefined),
    seed: z.number().int().optional().catch(undefined),
    answerer: z
      .object({ name: z.string(), model: z.string().nullable().optional() })
      .loose()
      .optional()
      .catch(undefined),
    judge: z
      .object({ prompt: z.object({ style: z.string() }).loose() })
      .loose()
      .nullable()
      .optional()
      .catch(undefined),
    // A tag this build cannot read leaves the run unnamed by its sweep, not unlisted.
    sweep: SweepTagSchema.optional().catch(undefined),
  })
  .loose();

/** A run's name, tags and notes: set at launch, editable later; not part of its config or hash. */
export const MAX_RUN_NAME = 120;
export const MAX_RUN_TAGS = 20;
export const MAX_RUN_NOTES = 10_000;
/**
 * Control characters (C0, DEL, C1) and the bidirectional overrides: in a name printed to a
 * terminal they move the cursor, recolour, or forge a line of the output around them.
 */
export const CONTROL_CHARACTERS = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const NO_CONTROL_CHARACTERS = new RegExp(`^(?:(?!${CONTROL_CHARACTERS.source}).)*$`, 'su');
export const runTagSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(40)
  .regex(/^[^,]+$/, 'must not contain a comma')
  .regex(NO_CONTROL_CHARACTERS, 'must not contain control characters');
export const RunIdentitySchema = z
  .object({
    name: z
      .string()
      .trim()
      .max(MAX_RUN_NAME)
      .regex(NO_CONTROL_CHARACTERS, 'must not contain control characters')
      .default(''),
    tags: z
      .array(runTagSchema)
      .max(MAX_RUN_TAGS)
      .default([])
      // One tag once, in the order given.
      .transform((tags) => [...new Set(tags)]),
    notes: z.string().max(MAX_RUN_NOTES).default(''),
  })
  .strict();
export type RunIdentity = z.output<typeof RunIdentitySchema>;

type NamedRun = Pick<RunListItem, 'id' | 'name' | 'preset'> & Partial<Pick<RunListItem, 'sweep'>>;

/**
 * The name a run goes by: the user's, else a sweep cell's, derived from its sweep and grid point
 * (`grid · memory.preset=hybrid,retrieval.topK=10`, ` #r` for a repeat after the first) and never
 * stored, so renaming nothing keeps one owner; '' for an unnamed run of no sweep.
 */
export function runName(run: Pick<NamedRun, 'name' | 'sweep'>): string {
  if (run.name) return run.name;
  const sweep = run.sweep;
  if (!sweep) return '';
  const point = Object.entries(sweep.values)
    .map(([path, value]) => `${path}=${axisValueLabel(value)}`)
    .join(',');
  const repeat = sweep.repeat > 0 ? ` #${sweep.repeat}` : '';
  return `${sweep.name} · ${point || `cell ${sweep.cellIndex}`}${repeat}`;
}

/**
 * A run where it stands beside others (Compare, a report): its name (runName), else its preset,
 * then its id after " · ", which Compare's short labels cut at.
 */
export function runLabel(run: NamedRun): string {
  return `${runName(run) || run.preset} · ${run.id}`;
}

/** A run as a table's row calls it: its name (runName) alone, or "preset · id" when it has none. */
export function runTitle(run: NamedRun): string {
  return runName(run) || `${run.preset} · ${run.id}`;
}

/** Tags as typed in one field: comma-separated, trimmed, empty parts dropped. */
export function parseTagList(text: string): string[] {
  return text
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/**
 * The stored manifest's version: absent means 1 (manifests written before the field existed).
 * Throws RUNS_DB for a version this build cannot read.
 */
export function checkManifestVersion(value: unknown, where: string): number {
  const raw =
    value !== null && typeof value === 'object' && 'manifestVersion' in value
      ? value.manifestVersion
      : undefined;
  const version = raw === undefined ? 1 : raw;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new WorkbenchError(
      'RUNS_DB',
      `${where}: manifestVersion ${JSON.stringify(raw)} is not a version`,
      {
        where,
      },
    );
  }
  if (version > MANIFEST_VERSION) {
    throw new WorkbenchError(
      'RUNS_DB',
      `${where}: manifest version ${version} is newer than this build reads (${MANIFEST_VERSION}); use a newer Memory Workbench`,
      { where },
    );
  }
  return version;
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
  /** The user's name for the run ('' when none was given); runName derives one for sweep cells. */
  name: string;
  tags: string[];
  /** The sweep this run is a cell of, as its manifest records it; absent for a run of its own. */
  sweep?: SweepTag;
  /** The samples it ran, in its order: what makes two runs' scores comparable. */
  sampleIds: string[];
  notes: string;
  status: RunStatus;
  preset: string;
  /** From the manifest; null where an older or odd manifest lacks it. */
  topK: number | null;
  seed: number | null;
  /** The answerer's name, with its chat model for LLM answerers. */
  answerer: string | null;
  /** The judge protocol (`mem0`, …); null without a judge. */
  judgeProtocol: string | null;
  /** Questions the run planned to ask, over its samples. */
  questions: number;
  datasetPath: string;
  /** The dataset file's sha256 as the run recorded it (null for runs that predate it). */
  datasetSha256: string | null;
  samples: number;
  createdAt: string;
  endedAt: string | null;
  insertErrors: number;
  answerErrors: number;
  resumes: number;
  /**
   * The headline summary stored when the run stopped or was rescored; null while it runs, or
   * after a change to its scores until the next write (fetch `runs.summary` then).
   */
  summary: RunSummary | null;
  /**
   * What of the run's stored row cannot be read (`manifest: not valid JSON …`, `summary: …`);
   * absent when nothing is damaged. `runs repair` lists these runs; `rescore` rebuilds a summary.
   */
  damaged?: string;
}

export interface RunInfo extends RunListItem {
  manifest: RunManifest;
  pid: number | null;
  error: string | null;
  sampleInfo: RunSampleInfo[];
}
