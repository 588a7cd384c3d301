import { arch, availableParallelism, platform } from 'node:os';
import type { Sample } from '../../../src-shared/dataset';
import type { ExperimentConfig, judgeConfigFor } from '../../../src-shared/experiment';
import type { LlmCallRecord, SkippedSample } from '../../../src-shared/runs';
import { judgeProtocolOf } from '../answer/judge-protocols';
import { appVersion, gitCommit } from '../provenance';
import { configHash, redactSecrets } from '../runs/manifest';
import { usageOf } from '../runs/usage';
import { installPunktModel } from '../scoring/punktModel';
import { answererProvenance } from './answerers';
import { embeddersOf } from './runTally';
import type { RunCoverage } from '../../../src-shared/coverage';
import { WorkbenchError } from '../../../src-shared/errors';
import type { RunManifest } from '../runs/manifest';
import type { RunStore } from '../runs/store';
import type { RunDataset, SampleEntry } from './runDataset';

/** What start and resume record about a run besides its answers: coverage, errata, the ledger. */

/** What a new run's manifest is made of, decided by startExperiment before the run exists. */
export interface NewRun {
  runId: string;
  config: ExperimentConfig;
  dataset: RunDataset;
  samples: ReadonlyArray<Pick<SampleEntry, 'sampleId'>>;
  planned: ReadonlyArray<Pick<SampleEntry, 'questions' | 'otherCategories' | 'plan'>>;
  /** The external memory service's hello, when the preset is one. */
  service: RunManifest['memory']['service'] | null | undefined;
  judged: ReturnType<typeof judgeConfigFor> | null;
  parallel: number;
  startedAt: number;
  skipped: SkippedSample[];
  errata: RunManifest['errata'] | null;
  options: { sweep?: RunManifest['sweep']; estimate?: RunManifest['estimate'] };
}

/** A new run's manifest: its config (secrets removed), dataset, provenance and plan's coverage. */
export function newRunManifest(run: NewRun): RunManifest {
  const { runId, config, dataset, samples, planned, service, judged, parallel, startedAt } = run;
  const { skipped, errata, options } = run;
  const stored = redactSecrets(config);
  return {
    manifestVersion: 1,
    runId,
    config: stored,
    configHash: configHash(stored),
    dataset: {
      path: config.datasetPath,
      sha256: dataset.info.sha256,
      bytes: dataset.info.bytes,
      format: dataset.info.format,
    },
    samples: samples.map((s) => s.sampleId),
    app: { version: appVersion(), gitCommit: gitCommit() },
    memory: { preset: config.memory.preset, notes: [], ...(service ? { service } : {}) },
    embedder: embeddersOf(config)[0]?.name ?? null,
    answerer: answererProvenance(config.answerer),
    judge: judged
      ? {
          model: judged.config.model,
          repeats: judged.config.repeats,
          prompt: judgeProtocolOf(judged.config.protocol).record,
        }
      : null,
    usage: usageOf(config, [], null),
    seed: config.seed,
    parallel,
    host: {
      platform: platform(),
      arch: arch(),
      node: process.version,
      cores: availableParallelism(),
    },
    startedAt: new Date(startedAt).toISOString(),
    endedAt: null,
    errors: { insert: 0, answer: 0 },
    scoring: { punktModelSha256: installPunktModel().sha256 },
    ...(skipped.length > 0 ? { skippedSamples: skipped } : {}),
    ...(options.sweep ? { sweep: options.sweep } : {}),
    ...(errata ? { errata } : {}),
    ...(options.estimate ? { estimate: options.estimate } : {}),
    ...(judged?.warning ? { warnings: [judged.warning] } : {}),
    coverage: coverageOf(dataset.entries, planned),
  };
}

/** The counts behind the headline's n: the file's questions, and those the config leaves out. */
export function coverageOf(
  all: readonly SampleEntry[],
  planned: ReadonlyArray<Pick<SampleEntry, 'questions' | 'otherCategories' | 'plan'>>,
): RunCoverage {
  const datasetQuestions = all.reduce((n, s) => n + s.questions, 0);
  const selected = planned.reduce((n, p) => n + p.questions, 0);
  const otherCategories = planned.reduce((n, p) => n + p.otherCategories, 0);
  return {
    datasetQuestions,
    notSelected: datasetQuestions - selected,
    noEvidenceExcluded: notAskedOf(planned) - otherCategories,
    ...(otherCategories > 0 ? { categoriesNotAsked: otherCategories } : {}),
  };
}

/** Questions the plans leave out (no usable evidence, unless the config includes them). */
export function notAskedOf(plans: ReadonlyArray<Pick<SampleEntry, 'questions' | 'plan'>>): number {
  return plans.reduce((n, p) => n + p.questions - p.plan.totalQuestions, 0);
}

/** Errata name samples and questions of a file loaded whole; a streamed file has none in memory. */
export function errataSamples(dataset: RunDataset): Sample[] {
  if (dataset.samples === null) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `${dataset.info.source}: errata need a dataset file loaded whole, and this one is streamed (over the whole-file limit)`,
      { where: dataset.info.source },
    );
  }
  return dataset.samples;
}

/**
 * A run from before the call ledger (runs-DB schema 4) has its totals only in its manifest, and
 * one from before the ledger kept cache hits (schema 13) its cache counters: file them in the
 * ledger once, so a resume adds to them instead of starting from zero.
 */
export function seedLedger(store: RunStore, runId: string, manifest: RunManifest): void {
  const ledger = store.callLedger(runId);
  const seeds = ledger.length === 0 ? totalsSeeds(manifest) : [];
  const cacheFiled = ledger.some((r) => (r.cacheHits ?? 0) + (r.cacheMisses ?? 0) > 0);
  for (const seed of [...seeds, ...(cacheFiled ? [] : cacheSeeds(manifest))]) {
    store.recordCalls(runId, seed);
  }
}

const NOTHING = { calls: 0, failures: 0, promptTokens: 0, completionTokens: 0 };

function answerModelOf(config: ExperimentConfig): string {
  return config.answerer.kind === 'llm' ? config.answerer.model : config.answerer.kind;
}

function embedModelOf(manifest: RunManifest): string {
  const first = manifest.embedding?.embedders[0];
  return first?.model ?? first?.name ?? manifest.embedder ?? '';
}

function totalsSeeds(manifest: RunManifest): LlmCallRecord[] {
  const { config, usage } = manifest;
  const roles = [
    { role: 'answer' as const, model: answerModelOf(config), totals: usage?.answer },
    { role: 'judge' as const, model: manifest.judge?.model ?? '', totals: usage?.judge },
    { role: 'memory' as const, model: config.memory.llm?.model ?? '', totals: usage?.memory },
    {
      role: 'embedder' as const,
      model: embedModelOf(manifest),
      totals: { ...NOTHING, calls: manifest.embedding?.requests ?? 0 },
    },
  ];
  return roles.flatMap(({ role, model, totals }) =>
    !totals || totals.calls === 0
      ? []
      : [
          {
            role,
            model,
            calls: totals.calls,
            failures: totals.failures ?? 0,
            promptTokens: totals.promptTokens,
            completionTokens: totals.completionTokens,
          },
        ],
  );
}

function cacheSeeds(manifest: RunManifest): LlmCallRecord[] {
  const { config } = manifest;
  const counters = [
    { role: 'answer' as const, model: answerModelOf(config), ...manifest.answerCache },
    { role: 'memory' as const, model: config.memory.llm?.model ?? '', ...manifest.memoryCache },
    {
      role: 'embedder' as const,
      model: embedModelOf(manifest),
      hits: manifest.embedding?.cacheHits,
      misses: manifest.embedding?.cacheMisses,
    },
    { role: 'judge' as const, model: manifest.judge?.model ?? '', hits: manifest.judge?.cacheHits },
  ];
  return counters.flatMap(({ role, model, hits, misses }) =>
    (hits ?? 0) + (misses ?? 0) === 0
      ? []
      : [{ role, model, ...NOTHING, cacheHits: hits ?? 0, cacheMisses: misses ?? 0 }],
  );
}
