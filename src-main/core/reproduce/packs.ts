import type { OpenAIEmbedderChoice } from '../../../src-shared/embedders';
import { WorkbenchError, parseOrThrow } from '../../../src-shared/errors';
import {
  ANSWER_PROTOCOLS,
  ExperimentConfigSchema,
  JUDGE_PROTOCOLS,
  type ExperimentConfig,
} from '../../../src-shared/experiment';
import { metricList } from '../../../src-shared/metrics';
import { REPRODUCE_PACKS } from '../../../src-shared/reproduce-packs';
import {
  ReproducePackSchema,
  type PackListItem,
  type PackRow,
  type ReproducePack,
} from '../../../src-shared/reproduce';
import { memoryConfigProblems, memoryPresetNames } from '../memory/registry';

/**
 * Loading a reproduce pack: the data is schema-checked, then every id it names is looked up in
 * the registries (answer and judge protocols, memory presets, metrics). A pack that names an id
 * no registry has is refused, naming the id and where the pack uses it, so a pack written ahead
 * of its protocols or presets is data until they exist.
 */

export interface PackRegistries {
  answerProtocols: readonly string[];
  judgeProtocols: readonly string[];
  presets: readonly string[];
  metrics: readonly string[];
  /** A registered preset's config problems (path from the experiment config); none: valid. */
  presetConfigProblems: (
    preset: string,
    config: unknown,
  ) => ReadonlyArray<{ path: string; message: string }>;
}

/** What is registered now (the caller has imported the built-in presets). */
export function currentRegistries(): PackRegistries {
  return {
    answerProtocols: ANSWER_PROTOCOLS,
    judgeProtocols: JUDGE_PROTOCOLS,
    presets: memoryPresetNames(),
    metrics: metricList().map((m) => m.id),
    presetConfigProblems: memoryConfigProblems,
  };
}

export function packIds(): string[] {
  return REPRODUCE_PACKS.map((p) => p.id);
}

/** Checks a pack's ids against the registries; throws naming the first missing one. */
export function validatePack(value: unknown, registries: PackRegistries): ReproducePack {
  const pack = parseOrThrow(ReproducePackSchema, value, 'reproduce pack');
  const what = `reproduce pack ${pack.id}`;
  const require = (
    id: string,
    known: readonly string[],
    kind: string,
    path: ReadonlyArray<string | number>,
  ): void => {
    if (known.includes(id)) return;
    throw new WorkbenchError(
      'NOT_FOUND',
      `${what}: ${path.join('.')}: ${kind} "${id}" is not registered (registered: ${known.join(', ') || 'none'}); the pack becomes runnable once it exists`,
      { path: [...path], where: what },
    );
  };
  require(pack.answerer.protocol, registries.answerProtocols, 'answer protocol', [
    'answerer',
    'protocol',
  ]);
  if (pack.judge)
    require(pack.judge.protocol, registries.judgeProtocols, 'judge protocol', [
      'judge',
      'protocol',
    ]);
  pack.metrics.forEach((m, i) => require(m, registries.metrics, 'metric', ['metrics', i]));
  pack.rows.forEach((row, i) => {
    if (row.preset !== null) {
      require(row.preset, registries.presets, 'memory preset', ['rows', i, 'preset']);
      // Checked here, not when the row's run starts: a misnamed option would fail every run of
      // the row at its start, and a long pack would only report it as an incomplete row.
      const problem = registries.presetConfigProblems(row.preset, row.presetConfig ?? {})[0];
      if (problem)
        throw new WorkbenchError(
          'INVALID_INPUT',
          `${what}: rows.${i}.presetConfig: ${problem.path}: ${problem.message} (preset "${row.preset}")`,
          { path: ['rows', i, 'presetConfig'], where: what },
        );
    }
    if (row.protocol !== undefined)
      require(row.protocol, registries.answerProtocols, 'answer protocol', ['rows', i, 'protocol']);
  });
  return pack;
}

export function loadPack(
  id: string,
  registries: PackRegistries = currentRegistries(),
): ReproducePack {
  const data = REPRODUCE_PACKS.find((p) => p.id === id);
  if (!data) {
    throw new WorkbenchError(
      'NOT_FOUND',
      `reproduce pack "${id}" does not exist (packs: ${packIds().join(', ')})`,
      { where: id },
    );
  }
  return validatePack(data, registries);
}

/** The rows a pack runs: those with a workbench preset (the others are the paper's only). */
export function runnableRows(pack: ReproducePack, online = true): PackRow[] {
  return pack.rows.filter((r) => r.preset !== null && (online || r.memoryLlm !== true));
}

/** Where the pack's LLM calls go; absent: offline, with the extractive answerer and no judge. */
export interface PackEndpoints {
  baseUrl: string;
  model?: string;
  apiKeyEnv?: string;
  judgeBaseUrl?: string;
  judgeModel?: string;
  judgeApiKeyEnv?: string;
}

export interface PackRunSettings {
  datasetPath: string;
  samples?: string[];
  seed?: number;
  endpoints?: PackEndpoints;
  /** The embedder of the rows that take one (`takesEmbedder`); absent: the offline embedder. */
  embedder?: OpenAIEmbedderChoice;
}

/**
 * A row's experiment config: the pack's protocol, answerer and judge (the paper's models, the
 * row's own where it names one, unless the endpoints name others), the row's preset, k, context
 * budget and batch size; every question of the table's categories asked once, after the whole
 * conversation (`ingest-all`, the papers' protocol).
 */
export function rowConfig(
  pack: ReproducePack,
  row: PackRow,
  settings: PackRunSettings,
): ExperimentConfig {
  const e = settings.endpoints;
  const input: Record<string, unknown> = {
    datasetPath: settings.datasetPath,
    ...(settings.samples ? { samples: settings.samples } : {}),
    ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
    memory: {
      preset: row.preset,
      config: {
        ...row.presetConfig,
        ...(row.takesEmbedder === true && settings.embedder ? { embedder: settings.embedder } : {}),
      },
      ...(row.memoryLlm === true && e
        ? {
            llm: {
              baseUrl: e.baseUrl,
              model: e.model ?? row.model ?? pack.answerer.model,
              ...(e.apiKeyEnv ? { apiKeyEnv: e.apiKeyEnv } : {}),
            },
          }
        : {}),
    },
    ...(row.topK !== undefined ? { retrieval: { topK: row.topK } } : {}),
    includeNoEvidence: true,
    // Only the table's categories are asked, the paper's question set (Mem0 never asks 5).
    questionCategories: pack.categories,
    // The papers ingest the whole conversation, then ask each question once.
    mode: 'ingest-all',
    answerer: e
      ? {
          kind: 'llm',
          baseUrl: e.baseUrl,
          model: e.model ?? row.model ?? pack.answerer.model,
          answerProtocol: row.protocol ?? pack.answerer.protocol,
          ...(pack.answerer.maxTokens !== undefined ? { maxTokens: pack.answerer.maxTokens } : {}),
          ...(row.contextTokens !== undefined ? { contextTokens: row.contextTokens } : {}),
          ...(row.batchSize !== undefined ? { batchSize: row.batchSize } : {}),
          ...(e.apiKeyEnv ? { apiKeyEnv: e.apiKeyEnv } : {}),
        }
      : { kind: 'extractive' },
    ...(e && pack.judge
      ? {
          judge: {
            baseUrl: e.judgeBaseUrl ?? e.baseUrl,
            model: e.judgeModel ?? pack.judge.model,
            protocol: pack.judge.protocol,
            repeats: pack.judge.repeats,
            ...((e.judgeApiKeyEnv ?? e.apiKeyEnv)
              ? { apiKeyEnv: e.judgeApiKeyEnv ?? e.apiKeyEnv }
              : {}),
          },
        }
      : {}),
  };
  return parseOrThrow(ExperimentConfigSchema, input, `reproduce pack ${pack.id}: row ${row.id}`);
}

/** Every pack with whether it can run now (and, if not, which id is missing). */
export function listPacks(
  registries: PackRegistries = currentRegistries(),
): Array<Omit<PackListItem, 'stored'>> {
  return REPRODUCE_PACKS.map((data) => {
    try {
      return { pack: validatePack(data, registries), runnable: true, reason: null };
    } catch (error) {
      return { pack: data, runnable: false, reason: (error as Error).message };
    }
  });
}
