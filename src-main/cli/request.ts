import { realpathSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import {
  DEFAULT_SCHEME,
  allSchemeIds,
  isCategoryNumber,
  isSchemeId,
  type SchemeId,
} from '../../src-shared/benchmarks';
import { OpenAIEmbedderChoiceSchema, type OpenAIEmbedderChoice } from '../../src-shared/embedders';
import { WorkbenchError, parseOrThrow, zodError } from '../../src-shared/errors';
import {
  ExperimentConfigSchema,
  JudgeConfigSchema,
  type ExperimentConfig,
  type JudgeConfig,
} from '../../src-shared/experiment';
import { MAX_RESCORE_JUDGES } from '../../src-shared/judges';
import { API_KEY_ENV_PATTERN } from '../../src-shared/models';
import { RunIdentitySchema, type RunIdentity } from '../../src-shared/runs';
import { launchCallChoices, type LaunchCallChoices } from '../core/launch/launch';
import { readErrataFile, type LoadedErrata } from '../core/dataset/errata';
import { ApiKeySource, KeyEnvPolicy } from '../core/keys';
import { readJsonFile, readUserFile } from '../core/structured-file';
import { fromSystemError } from '../core/system-errors';
import { UsageError, positiveIntFlag, type FlagValues } from './command';
import type {
  EMBEDDER_OPTIONS,
  EXPERIMENT_OPTIONS,
  JUDGE_OPTIONS,
  LAUNCH_OPTIONS,
} from './options';

/**
 * Flags become a request here, in one place: what each option group of options.ts means, checked
 * with a usage error naming the flag, and the config, judge and launch choices the commands hand
 * to core.
 */

/** `--scheme`: the category naming scheme, official LoCoMo's by default. */
export function parseScheme(value: string | undefined): SchemeId {
  const scheme = value ?? DEFAULT_SCHEME;
  if (!isSchemeId(scheme)) {
    throw new UsageError(`--scheme must be one of ${allSchemeIds().join(', ')} (got "${scheme}")`);
  }
  return scheme;
}

/** Reads a config file; a bad one fails naming the file and the field. */
export function readConfigFile(file: string): Record<string, unknown> {
  const value = readJsonFile(file, 'config file');
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new WorkbenchError('INVALID_INPUT', `config file ${file}: must hold a JSON object`, {
      where: file,
    });
  }
  return value as Record<string, unknown>;
}

/**
 * The key policy for a command: key-like names, plus the ones declared with `--allow-key-env`.
 * `verb` starts the hint in errors ("start serve with --allow-key-env HOME").
 */
export function keyPolicyFromArgs(
  declared: readonly string[] | undefined,
  verb: string,
): KeyEnvPolicy {
  for (const name of declared ?? []) {
    if (!API_KEY_ENV_PATTERN.test(name)) {
      throw new UsageError(
        `--allow-key-env ${JSON.stringify(name)}: must be an environment variable name (A-Z, 0-9 and _)`,
      );
    }
  }
  return new KeyEnvPolicy({
    allow: declared ?? [],
    howToAllow: (name) => `${verb} --allow-key-env ${name}`,
  });
}

/** The API keys a command may read, under its `--allow-key-env` policy. */
export function apiKeysFromFlags(declared: readonly string[] | undefined): ApiKeySource {
  return new ApiKeySource({ policy: keyPolicyFromArgs(declared, 'pass') });
}

/**
 * Each --dataset-dir as its real path, checked now so a typo fails at start, not on first use.
 * `command` starts the messages (`serve: --dataset-dir …`).
 */
export function datasetDirsFromArgs(
  dirs: readonly string[] | undefined,
  command: string,
): string[] {
  return (dirs ?? []).map((dir) => existingFolder(dir, command));
}

function existingFolder(dir: string, command: string): string {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch (error) {
    throw fromSystemError(error, `${command}: --dataset-dir ${dir}`) ?? error;
  }
  if (!statSync(real).isDirectory()) {
    throw new WorkbenchError('INVALID_INPUT', `${command}: --dataset-dir ${dir} is not a folder`);
  }
  return real;
}

/** A config file's object field as a copy flags can change; anything else as none. */
const asObject = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? { ...(v as object) } : {};

type JudgeFlagValues = Partial<Record<keyof typeof JUDGE_OPTIONS, string | undefined>>;

/** `--judge-protocol-file`: the template as a custom protocol named after the file. */
export function readJudgeProtocolFile(file: string): Record<string, unknown> {
  const template = readUserFile(file, 'judge protocol file').toString('utf8');
  const name = basename(file)
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64);
  return { name: name === '' ? 'custom' : name, template };
}

/** `--judge-protocol` or `--judge-protocol-file` as the judge config's `protocol`. */
export function judgeProtocolFlags(
  name: string | undefined,
  file: string | undefined,
): { protocol?: unknown } {
  if (name !== undefined && file !== undefined) {
    throw new UsageError('give --judge-protocol or --judge-protocol-file, not both');
  }
  if (file !== undefined) return { protocol: readJudgeProtocolFile(file) };
  return name !== undefined ? { protocol: name } : {};
}

/**
 * The judge flags over `fromFile` (a config file's `judge`), or undefined when none is given:
 * endpoint, model and key variable, the protocol, and `--judge-repeats` as a positive integer.
 */
export function judgeFlags(
  values: JudgeFlagValues,
  fromFile: unknown,
): Record<string, unknown> | undefined {
  const flags: Array<[keyof JudgeFlagValues, string]> = [
    ['judge-base-url', 'baseUrl'],
    ['judge-model', 'model'],
    ['judge-api-key-env', 'apiKeyEnv'],
  ];
  const given = flags.filter(([flag]) => values[flag] !== undefined);
  const file = values['judge-protocol-file'];
  const protocolGiven = values['judge-protocol'] !== undefined || file !== undefined;
  if (given.length === 0 && values['judge-repeats'] === undefined && !protocolGiven) {
    return undefined;
  }
  const out = asObject(fromFile);
  for (const [flag, field] of given) out[field] = values[flag];
  Object.assign(out, judgeProtocolFlags(values['judge-protocol'], file));
  const repeats = positiveIntFlag('--judge-repeats', values['judge-repeats']);
  if (repeats !== undefined) out['repeats'] = repeats;
  return out;
}

/**
 * `--judge protocol[:model[:repeats]]` (repeatable) as judge configs over `base` (the judge
 * endpoint the run or the flags name), each checked by the judge schema with an error naming the
 * flag. A model may hold colons (`llama3:8b`); a last part of digits, after a model, is repeats.
 */
export function judgesFlag(
  specs: readonly string[] | undefined,
  base: Record<string, unknown> | undefined,
): JudgeConfig[] {
  if (specs === undefined || specs.length === 0) return [];
  if (specs.length > MAX_RESCORE_JUDGES)
    throw new UsageError(`--judge: at most ${MAX_RESCORE_JUDGES} judges (got ${specs.length})`);
  if (base?.['baseUrl'] === undefined || base['model'] === undefined)
    throw new UsageError('--judge needs a judge endpoint: --judge-base-url and --judge-model');
  const seen = new Set<string>();
  return specs.map((spec) => {
    const parts = spec.split(':');
    const [protocol = ''] = parts;
    const last = parts[parts.length - 1] ?? '';
    const repeats = parts.length >= 3 && /^\d+$/.test(last) ? Number(last) : undefined;
    const model = parts.slice(1, repeats === undefined ? undefined : -1).join(':');
    const parsed = JudgeConfigSchema.safeParse({
      ...base,
      protocol,
      ...(model !== '' ? { model } : {}),
      ...(repeats !== undefined ? { repeats } : {}),
    });
    if (!parsed.success) throw new UsageError(zodError(parsed.error, `--judge "${spec}"`).message);
    const key = JSON.stringify([protocol, parsed.data.model, parsed.data.repeats]);
    if (seen.has(key)) throw new UsageError(`--judge "${spec}": the same judge is given twice`);
    seen.add(key);
    return parsed.data;
  });
}

type LaunchFlags = Record<keyof typeof LAUNCH_OPTIONS, boolean | undefined>;

/**
 * `--no-preflight`, `--no-cache` and `--cache-only` as the launch's call choices: only what a flag
 * asks, so what none asks is the launcher's default (launch/launch.ts), as from every surface.
 */
export function launchCallsFromFlags(values: LaunchFlags): LaunchCallChoices {
  const noCache = values['no-cache'] === true;
  const cacheOnly = values['cache-only'] === true;
  if (noCache && cacheOnly)
    throw new UsageError('--no-cache and --cache-only contradict each other');
  return launchCallChoices({
    preflight: values['no-preflight'] === true ? false : undefined,
    responseCache: noCache ? 'off' : cacheOnly ? 'only' : undefined,
  });
}

type LooseFlags = Record<string, string | string[] | boolean | undefined>;

/** `--answerer llm --base-url ... --model ...` over the config file's answerer; the schema checks it. */
function answererFlags(values: LooseFlags, fromFile: unknown): Record<string, unknown> | undefined {
  const flags: Array<[string, string]> = [
    ['base-url', 'baseUrl'],
    ['model', 'model'],
    ['prompt-style', 'promptStyle'],
    ['answer-protocol', 'answerProtocol'],
    ['adversarial-reply-mapping', 'adversarialReplyMapping'],
    ['context-tokens', 'contextTokens'],
    ['batch-size', 'batchSize'],
    ['api-key-env', 'apiKeyEnv'],
  ];
  const kind = values['answerer'];
  const given = flags.filter(([flag]) => values[flag] !== undefined);
  if (kind === undefined && given.length === 0) return undefined;
  const base = asObject(fromFile);
  // Another kind's fields would not validate: a --answerer flag starts from that kind's defaults.
  const out: Record<string, unknown> =
    typeof kind === 'string' && base['kind'] !== kind ? { kind } : { ...base };
  // `--answer-protocol` alone: the offline answerer standing in for that protocol.
  if (out['kind'] === undefined && given.every(([flag]) => flag === 'answer-protocol'))
    out['kind'] = 'extractive';
  if (out['kind'] === undefined) {
    throw new UsageError(
      `${given.map(([f]) => `--${f}`).join(', ')} need${given.length === 1 ? 's' : ''} --answerer llm`,
    );
  }
  for (const [flag, field] of given) out[field] = values[flag];
  const contextTokens = positiveIntFlag(
    '--context-tokens',
    values['context-tokens'] as string | undefined,
  );
  if (contextTokens !== undefined) out['contextTokens'] = contextTokens;
  const batchSize = positiveIntFlag('--batch-size', values['batch-size'] as string | undefined);
  if (batchSize !== undefined) out['batchSize'] = batchSize;
  return out;
}

/**
 * `--memory-base-url/--memory-model/--memory-api-key-env/--memory-llm-max-tokens` over the config
 * file's `memory.llm`.
 */
function memoryLlmFlags(
  values: LooseFlags,
  fromFile: unknown,
): Record<string, unknown> | undefined {
  const flags: Array<[string, string]> = [
    ['memory-base-url', 'baseUrl'],
    ['memory-model', 'model'],
    ['memory-api-key-env', 'apiKeyEnv'],
  ];
  const maxTokens = positiveIntFlag(
    '--memory-llm-max-tokens',
    values['memory-llm-max-tokens'] as string | undefined,
  );
  const given = flags.filter(([flag]) => values[flag] !== undefined);
  if (given.length === 0 && maxTokens === undefined) return undefined;
  const out = asObject(fromFile);
  for (const [flag, field] of given) out[field] = values[flag];
  if (maxTokens !== undefined) out['maxTokens'] = maxTokens;
  return out;
}

/**
 * `--embedder-base-url/--embedder-model/...` become the preset config's `embedder` (vector and
 * hybrid presets); given over a config file's OpenAI embedder, they change its fields.
 */
function embedderFlags(values: LooseFlags, fromFile: unknown): Record<string, unknown> | undefined {
  const flags: Array<[string, string]> = [
    ['embedder-base-url', 'baseUrl'],
    ['embedder-model', 'model'],
    ['embedder-api-key-env', 'apiKeyEnv'],
  ];
  const dimensions = positiveIntFlag(
    '--embedder-dimensions',
    values['embedder-dimensions'] as string | undefined,
  );
  const given = flags.filter(([flag]) => values[flag] !== undefined);
  if (given.length === 0 && dimensions === undefined) return undefined;
  const base = asObject(fromFile);
  const out: Record<string, unknown> = base['kind'] === 'openai' ? base : { kind: 'openai' };
  for (const [flag, field] of given) out[field] = values[flag];
  if (dimensions !== undefined) out['dimensions'] = dimensions;
  return out;
}

/**
 * `reproduce`'s `--embedder-*` flags: the OpenAI-compatible embedder of the pack rows that embed
 * as their paper did; undefined without them (those rows keep the offline embedder).
 */
export function embedderFromFlags(
  values: FlagValues<typeof EMBEDDER_OPTIONS>,
): OpenAIEmbedderChoice | undefined {
  const given = embedderFlags(values, undefined);
  return given === undefined
    ? undefined
    : parseOrThrow(OpenAIEmbedderChoiceSchema, given, '--embedder-* flags');
}

/** `--preset`, its alias `--memory`, and `external` implied by a service flag. */
function presetFlag(values: LooseFlags): string | undefined {
  const named = values['preset'] ?? values['memory'];
  if (
    values['preset'] !== undefined &&
    values['memory'] !== undefined &&
    values['preset'] !== values['memory']
  )
    throw new UsageError('--preset and --memory name the same thing; give one');
  const service = values['memory-url'] !== undefined || values['memory-command'] !== undefined;
  if (!service) return named as string | undefined;
  if (named !== undefined && named !== 'external') {
    throw new UsageError(
      `--memory-url and --memory-command run preset external, not "${String(named)}"`,
    );
  }
  return 'external';
}

/** `--memory-url/--memory-command/--memory-allow-remote` over the config file's external config. */
function externalServiceFlags(
  values: LooseFlags,
  fromFile: unknown,
): Record<string, unknown> | undefined {
  const url = values['memory-url'];
  const command = values['memory-command'];
  if (url !== undefined && command !== undefined)
    throw new UsageError('give --memory-url or --memory-command, not both');
  if (url === undefined && command === undefined) {
    if (values['memory-allow-remote'])
      throw new UsageError('--memory-allow-remote needs --memory-url');
    return undefined;
  }
  const out = asObject(fromFile);
  delete out['url'];
  delete out['command'];
  if (url !== undefined) out['url'] = url;
  if (command !== undefined) out['command'] = command;
  if (values['memory-allow-remote']) out['allowRemote'] = true;
  return out;
}

/** What `experiment`'s flags ask core to launch: the config, the run's name, repeats, errata. */
export interface ExperimentRequest {
  config: ExperimentConfig;
  identity: RunIdentity;
  repeats?: number;
  errata?: LoadedErrata;
}

/**
 * `experiment`'s flags over its `--config` file as a checked ExperimentConfig (a bad one fails
 * naming the file or the flags), the run's name, tags and notes, `--repeats` and `--errata`.
 */
export function experimentRequestFromFlags(
  values: FlagValues<typeof EXPERIMENT_OPTIONS>,
): ExperimentRequest {
  const file = values.config === undefined ? {} : readConfigFile(values.config);
  const data =
    values.data ?? (typeof file['datasetPath'] === 'string' ? file['datasetPath'] : undefined);
  if (data === undefined) throw new UsageError('experiment needs --data <file>');
  const merged: Record<string, unknown> = { ...file, datasetPath: resolve(data) };
  const memory = { ...((file['memory'] as Record<string, unknown> | undefined) ?? {}) };
  const preset = presetFlag(values);
  if (preset !== undefined) {
    // Another preset's config would not validate; a --preset flag starts from that preset's defaults.
    if (memory['preset'] !== preset) delete memory['config'];
    memory['preset'] = preset;
  }
  const service = externalServiceFlags(values, memory['config']);
  if (service !== undefined) memory['config'] = service;
  const memoryLlm = memoryLlmFlags(values, memory['llm']);
  if (memoryLlm !== undefined) memory['llm'] = memoryLlm;
  const presetConfig = asObject(memory['config']);
  const embedder = embedderFlags(values, presetConfig['embedder']);
  if (embedder !== undefined) memory['config'] = { ...presetConfig, embedder };
  merged['memory'] = memory;
  if (values.samples !== undefined)
    merged['samples'] = values.samples
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const parallel = positiveIntFlag('--parallel', values.parallel);
  if (parallel !== undefined) merged['parallel'] = parallel;
  const concurrency = positiveIntFlag('--concurrency', values.concurrency);
  if (concurrency !== undefined) merged['concurrency'] = concurrency;
  const maxFailures = positiveIntFlag(
    '--max-consecutive-failures',
    values['max-consecutive-failures'],
  );
  if (maxFailures !== undefined) merged['maxConsecutiveFailures'] = maxFailures;
  const topK = positiveIntFlag('--top-k', values['top-k']);
  const contextWords = positiveIntFlag('--context-words', values['context-words']);
  if (topK !== undefined || contextWords !== undefined)
    merged['retrieval'] = {
      ...((file['retrieval'] as object | undefined) ?? {}),
      ...(topK !== undefined ? { topK } : {}),
      ...(contextWords !== undefined ? { contextWords } : {}),
    };
  if (values.seed !== undefined) {
    const seed = Number(values.seed);
    if (!Number.isInteger(seed))
      throw new UsageError(`--seed must be an integer (got "${values.seed}")`);
    merged['seed'] = seed;
  }
  if (values['include-no-evidence'] && values['exclude-no-evidence'])
    throw new UsageError('--include-no-evidence and --exclude-no-evidence contradict each other');
  if (values['question-categories'] !== undefined)
    merged['questionCategories'] = values['question-categories'].split(',').map((part) => {
      const category = Number(part.trim());
      if (part.trim() === '' || !isCategoryNumber(category))
        throw new UsageError(
          `--question-categories must be positive category numbers separated by commas (got "${values['question-categories']}")`,
        );
      return category;
    });
  if (values['include-no-evidence']) merged['includeNoEvidence'] = true;
  if (values['exclude-no-evidence']) merged['includeNoEvidence'] = false;
  if (values.mode !== undefined) merged['mode'] = values.mode;
  if (values['max-error-share'] !== undefined) {
    const share = Number(values['max-error-share']);
    if (values['max-error-share'].trim() === '' || !(share >= 0 && share <= 1))
      throw new UsageError(
        `--max-error-share must be a number from 0 to 1 (got "${values['max-error-share']}")`,
      );
    merged['maxErrorShare'] = share;
  }
  if (values['skip-invalid']) merged['skipInvalid'] = true;
  const answerer = answererFlags(values, file['answerer']);
  if (answerer !== undefined) merged['answerer'] = answerer;
  const judge = judgeFlags(values, file['judge']);
  if (judge !== undefined) merged['judge'] = judge;
  const parsed = ExperimentConfigSchema.safeParse(merged);
  if (!parsed.success) {
    throw zodError(
      parsed.error,
      values.config === undefined ? 'experiment config' : `config file ${values.config}`,
    );
  }
  const config = parsed.data;
  // Not config: a run's name and tags do not change what it measures (or its config hash).
  const identity = parseOrThrow(
    RunIdentitySchema,
    {
      ...(values.name !== undefined ? { name: values.name } : {}),
      ...(values.tag !== undefined ? { tags: values.tag } : {}),
      ...(values.notes !== undefined ? { notes: values.notes } : {}),
    },
    '--name/--tag/--notes',
  );
  const repeats = positiveIntFlag('--repeats', values.repeats);
  const errata = values.errata === undefined ? undefined : readErrataFile(values.errata);
  return {
    config,
    identity,
    ...(repeats !== undefined ? { repeats } : {}),
    ...(errata ? { errata } : {}),
  };
}
