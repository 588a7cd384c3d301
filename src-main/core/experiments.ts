import { join } from 'node:path';
import type {
  ActiveRun,
  ApiEvent,
  ExportedFile,
  MemoryPresetInfo,
  RunComparisonResult,
  RunDetail,
} from '../../src-shared/api';
import {
  compareRuns,
  configDiff,
  runCost,
  type CompareMetric,
  type RunComparison,
} from '../../src-shared/compare';
import { WorkbenchError } from '../../src-shared/errors';
import {
  DEFAULT_MEMORY_PRESET,
  type ExperimentConfigInput,
  type ProgressEvent,
} from '../../src-shared/experiment';
import { ApiKeySource } from './keys';
import { memoryPresetLlmStage, memoryPresetNames } from './memory/registry';
import { loadMemoryPresets } from './pipeline/presets';
import { resumeExperiment, startExperiment, type ExperimentHandle } from './pipeline/runner';
import { csvField, exportRun } from './runs/export';
import { RunStore } from './runs/store';
import { listSweeps, sweepDetail } from './sweeps/read';

/**
 * The API's view of the experiment engine: starts, cancels and resumes runs in worker threads,
 * relays their progress as events, and reads the runs database for results and comparisons.
 */
export class ExperimentManager {
  private store: RunStore | undefined;
  private readonly active = new Map<
    string,
    { handle: ExperimentHandle; last: ProgressEvent | null }
  >();

  constructor(
    private readonly dataDir: string,
    private readonly emit: (event: ApiEvent) => void,
    private readonly apiKeys: ApiKeySource = new ApiKeySource(),
  ) {}

  private runs(): RunStore {
    this.store ??= RunStore.open(join(this.dataDir, 'runs.db'));
    return this.store;
  }

  async presets(): Promise<MemoryPresetInfo[]> {
    await loadMemoryPresets();
    return memoryPresetNames().map((name) => ({
      name,
      isDefault: name === DEFAULT_MEMORY_PRESET,
      llmStage: memoryPresetLlmStage(name),
    }));
  }

  async start(config: ExperimentConfigInput): Promise<{ runId: string }> {
    await loadMemoryPresets();
    const handle = await startExperiment(config, this.runOptions());
    this.track(handle);
    return { runId: handle.runId };
  }

  async resume(runId: string): Promise<{ runId: string }> {
    if (this.active.has(runId)) {
      throw new WorkbenchError('CONFLICT', `run ${runId} is already running`, { path: ['runId'] });
    }
    await loadMemoryPresets();
    const handle = await resumeExperiment(runId, this.runOptions());
    this.track(handle);
    return { runId: handle.runId };
  }

  cancel(runId: string): boolean {
    const run = this.active.get(runId);
    run?.handle.cancel();
    return run !== undefined;
  }

  activeRuns(): ActiveRun[] {
    return [...this.active.entries()].map(([runId, { last }]) => ({ runId, last }));
  }

  list() {
    return this.runs().listRuns();
  }

  sweeps() {
    return listSweeps(this.runs());
  }

  sweep(sweepId: string) {
    return sweepDetail(this.runs(), sweepId);
  }

  detail(runId: string): RunDetail {
    const store = this.runs();
    return { info: store.getRun(runId), summary: store.summary(runId), curve: store.curve(runId) };
  }

  answers(runId: string) {
    return this.runs().finalAnswers(runId);
  }

  delete(runId: string): boolean {
    if (this.active.has(runId)) {
      throw new WorkbenchError('CONFLICT', `run ${runId} is running; cancel it before deleting`, {
        path: ['runId'],
      });
    }
    return this.runs().deleteRun(runId);
  }

  exportRun(runId: string, format: 'json' | 'csv'): ExportedFile {
    return {
      filename: `run-${runId}.${format}`,
      mimeType: format === 'json' ? 'application/json' : 'text/csv',
      content: exportRun(this.runs(), runId, format),
    };
  }

  compare(
    runIds: string[],
    baselineRunId: string,
    metric: CompareMetric,
    seed: number,
  ): RunComparisonResult {
    const baselineIndex = runIds.indexOf(baselineRunId);
    if (baselineIndex < 0) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `compare: the baseline ${baselineRunId} is not among the runs`,
        {
          path: ['baselineRunId'],
        },
      );
    }
    const store = this.runs();
    const infos = runIds.map((id) => store.getRun(id));
    const answers = infos.map((info) => store.finalAnswers(info.id));
    const comparison = compareRuns(
      infos.map((info, i) => ({
        runId: info.id,
        label: `${info.preset} · ${info.id}`,
        answers: answers[i] ?? [],
      })),
      { metric, baselineIndex, seed },
    );
    return {
      comparison,
      configDiff: configDiff(infos.map((info) => info.manifest.config)),
      costs: infos.map((info, i) => runCost(info.id, info.manifest.usage, answers[i] ?? [])),
    };
  }

  compareExport(
    runIds: string[],
    baselineRunId: string,
    metric: CompareMetric,
    format: 'json' | 'csv',
  ): ExportedFile {
    const result = this.compare(runIds, baselineRunId, metric, 0);
    const stem = `compare-${runIds.join('-vs-')}`;
    if (format === 'json') {
      return {
        filename: `${stem}.json`,
        mimeType: 'application/json',
        content: JSON.stringify(result, null, 2),
      };
    }
    return {
      filename: `${stem}.csv`,
      mimeType: 'text/csv',
      content: comparisonCsv(result.comparison),
    };
  }

  /** Cancels every run and closes the database (app quit, server stop). */
  async close(): Promise<void> {
    const running = [...this.active.values()];
    for (const { handle } of running) handle.cancel();
    await Promise.all(running.map(({ handle }) => handle.done));
    this.store?.close();
    this.store = undefined;
  }

  private runOptions() {
    return {
      store: this.runs(),
      dataDir: this.dataDir,
      apiKeys: this.apiKeys,
      onProgress: (event: ProgressEvent) => {
        const run = this.active.get(event.runId);
        if (run) run.last = event;
        this.emit({ type: 'progress', event });
      },
    };
  }

  private track(handle: ExperimentHandle): void {
    this.active.set(handle.runId, { handle, last: null });
    void handle.done.then(() => this.active.delete(handle.runId));
  }
}

/** One row per question: each run's prediction, score and flip against the baseline. */
export function comparisonCsv(comparison: RunComparison): string {
  const header = ['sampleId', 'questionIndex', 'category', 'question', 'gold'];
  comparison.runs.forEach((run, i) => {
    header.push(`prediction[${run.runId}]`, `${comparison.metric}[${run.runId}]`);
    if (i !== comparison.baselineIndex) header.push(`flip[${run.runId}]`);
  });
  const lines = [header.map(csvField).join(',')];
  for (const row of comparison.rows) {
    const fields: Array<string | number | null> = [
      row.sampleId,
      row.questionIndex,
      row.category,
      row.question,
      row.gold,
    ];
    row.cells.forEach((cell, i) => {
      fields.push(cell?.prediction ?? null, cell?.score ?? null);
      if (i !== comparison.baselineIndex) fields.push(row.flips[i] ?? null);
    });
    lines.push(fields.map(csvField).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
