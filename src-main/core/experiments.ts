import { join } from 'node:path';
import type {
  ActiveRun,
  ApiEvent,
  ApiOutput,
  ApiParsedInput,
  ExperimentEstimate,
  MemoryPresetInfo,
} from '../../src-shared/api';
import type { DatasetLoadResult } from '../../src-shared/dataset';
import { parseOrThrow } from '../../src-shared/errors';
import type { PackResults } from '../../src-shared/reproduce';
import type { RunIdentity } from '../../src-shared/runs';
import {
  DEFAULT_MEMORY_PRESET,
  ExperimentConfigSchema,
  type ExperimentConfigInput,
  type ProgressEvent,
} from '../../src-shared/experiment';
import { reduceProgress, type RunProgress } from '../../src-shared/liveProgress';
import { ApiKeySource } from './keys';
import { recordedUserFiles, type OpenDataset } from './datasets';
import { handlersVia, unlessRunning, type DomainHandlers } from './handlers';
import type { JsonBytes, SerializedHandlers } from './dispatch';
import {
  memoryConfigProblems,
  memoryPresetLlmStage,
  memoryPresetRequiresLlm,
  memoryPresetTakesEmbedder,
  memoryPresetNames,
} from './memory/registry';
import { loadMemoryPresets } from './pipeline/loadPresets';
import {
  launchCallChoices,
  launchRun,
  resumeRun,
  type LaunchSurface,
  type StatedCallChoices,
} from './launch/launch';
import type { ExperimentHandle } from './pipeline/runner';
import { READ_METHODS, runQueries, type ReadMethod, type RunQueries } from './runs/queries';
import { DEFAULT_READ_WORKERS, RunReadWorkers } from './runs/readWorkers';
import { runWrites, type RunWrites } from './runs/handlers';
import { labelsHandlers } from './runs/labelHandlers';
import { RunStore } from './runs/store';
import { reproduceResults } from './reproduce/service';
import { planRun } from './pipeline/plan';
import { isLocalUser, type CallerTrust } from './trust';

/** Ended runs 'experiments.live' still lists; older ones are in the Runs view. */
const MAX_ENDED_LIVE_RUNS = 20;

/**
 * A dataset file as the UI opened it: its parsed copy, or none for a file streamed (a LongMemEval
 * file over the whole-file limit); `sha256`: its bytes when opened.
 */
export interface OpenedFile {
  sha256: string;
  loaded: DatasetLoadResult | null;
}

/**
 * The API's view of the experiment engine: starts, cancels and resumes runs in worker threads,
 * relays their progress as events, and serves the runs database's read views (in a read worker).
 */
export class ExperimentManager {
  private store: RunStore | undefined;
  private readers: RunReadWorkers | undefined;
  private inlineQueries: RunQueries | undefined;
  private readonly active = new Map<
    string,
    { handle: ExperimentHandle; last: ProgressEvent | null }
  >();
  /**
   * Every run of this session folded from its events, in start order: what 'experiments.live'
   * answers, so a reloaded page shows the true counts rather than what its own events saw.
   */
  private readonly live = new Map<string, RunProgress>();

  constructor(
    private readonly dataDir: string,
    private readonly emit: (event: ApiEvent) => void,
    private readonly apiKeys: ApiKeySource = new ApiKeySource(),
    /** Read worker threads; 0 runs reads on this thread (the old behaviour, for comparison). */
    private readonly readWorkerCount: number = DEFAULT_READ_WORKERS,
    /**
     * Who the API's caller is (core/trust.ts). The desktop app's user typed the config, so an
     * external service's command may run; a browser page may not, and names sockets only inside
     * the server's folders. Default: the browser's, with no folders.
     */
    private readonly trust: CallerTrust = { mayStartProcesses: false, allowedDirs: [] },
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
      requiresLlm: memoryPresetRequiresLlm(name),
      embedder: memoryPresetTakesEmbedder(name),
    }));
  }

  async checkConfig(
    preset: string,
    config: Record<string, unknown>,
  ): Promise<{ problems: Array<{ path: string; message: string }> }> {
    await loadMemoryPresets();
    return { problems: memoryConfigProblems(preset, config) };
  }

  /** The planner's estimate for a run of this config (what `cli experiment --dry-run` prints). */
  async estimate(config: ExperimentConfigInput, opened?: OpenedFile): Promise<ExperimentEstimate> {
    return planRun(
      parseOrThrow(ExperimentConfigSchema, config, 'experiment config'),
      opened?.loaded ?? undefined,
    );
  }

  /**
   * `opened`: the file as the caller opened it; the run uses its parsed copy, or streams the file
   * when there is none, and either way refuses a file whose bytes changed since. Preflight, cache
   * and estimate as from every surface (launch/launch.ts).
   */
  async start(
    config: ExperimentConfigInput,
    opened?: OpenedFile,
    identity?: RunIdentity,
    calls: StatedCallChoices = {},
  ): Promise<{ runId: string }> {
    await loadMemoryPresets();
    const dataset = opened?.loaded ?? undefined;
    const handle = await launchRun(
      {
        config,
        ...(dataset ? { dataset } : opened ? { datasetSha256: opened.sha256 } : {}),
        ...(identity ? { identity } : {}),
        ...launchCallChoices(calls),
      },
      this.surface(),
    );
    this.track(handle);
    return { runId: handle.runId };
  }

  async resume(runId: string, calls: StatedCallChoices = {}): Promise<{ runId: string }> {
    await loadMemoryPresets();
    const handle = await resumeRun({ runId, ...launchCallChoices(calls) }, this.surface());
    this.track(handle);
    return { runId: handle.runId };
  }

  cancel(runId: string): boolean {
    const run = this.active.get(runId);
    run?.handle.cancel('cancelled by the user');
    return run !== undefined;
  }

  activeRuns(): ActiveRun[] {
    return [...this.active.entries()].map(([runId, { last }]) => ({ runId, last }));
  }

  /** This session's runs, newest first (running ones always, ended ones up to a bound). */
  liveRuns(): RunProgress[] {
    return [...this.live.values()].reverse();
  }

  /**
   * A read view of the runs DB (runs.get, runs.answers, exports, comparisons): in the read
   * worker, so the main thread keeps serving while a full run is read.
   */
  async read<K extends ReadMethod>(method: K, input: ApiParsedInput<K>): Promise<ApiOutput<K>> {
    // The writer creates and migrates the file before any reader opens it.
    const store = this.runs();
    if (this.readWorkerCount === 0) {
      this.inlineQueries ??= runQueries(store);
      return (this.inlineQueries[method] as (input: ApiParsedInput<K>) => ApiOutput<K>)(input);
    }
    return this.readPool(store.file).call(method, input);
  }

  /**
   * Opens the runs DB and starts its read worker now, so the first read (the Runs list, a new
   * run's card) does not wait for a cold thread. A file that cannot open is left to that first
   * read to report, with its coded error.
   */
  warmReads(): void {
    if (this.readWorkerCount === 0) return;
    try {
      this.readPool(this.runs().file).warm();
    } catch {
      // Reported by the first read, which opens the file again.
    }
  }

  /**
   * A reproduce pack's stored results (`reproduce.results`): in the read worker, since it reads
   * every final answer of the pack's runs (seconds for a full-size pack); with no read worker, on
   * this thread by the same function.
   */
  async packResults(packId: string): Promise<PackResults> {
    const store = this.runs();
    if (this.readWorkerCount === 0)
      return reproduceResults(packId, store, recordedUserFiles(this.dataDir));
    return this.readPool(store.file).call('reproduce.results', { packId });
  }

  /** The same view as its output's JSON bytes, serialised in the read worker (HTTP sends them). */
  async readJson<K extends ReadMethod>(
    method: K,
    input: ApiParsedInput<K>,
  ): Promise<JsonBytes<ApiOutput<K>>> {
    const store = this.runs();
    if (this.readWorkerCount === 0) {
      return new TextEncoder().encode(JSON.stringify(await this.read(method, input)));
    }
    return this.readPool(store.file).callJson(method, input);
  }

  /**
   * The experiments and memory domains: runs started, estimated, cancelled and resumed on the
   * dataset `openDataset` finds by id, their live state, and the memory presets.
   */
  experimentHandlers(
    openDataset: (datasetId: string) => Promise<OpenDataset>,
  ): DomainHandlers<'experiments' | 'memory'> {
    const opened = async (datasetId: string) => {
      const { summary, loaded } = await openDataset(datasetId);
      return { datasetPath: summary.path, file: { sha256: summary.sha256, loaded } };
    };
    return {
      'memory.presets': () => this.presets(),
      'memory.checkConfig': ({ preset, config }) => this.checkConfig(preset, config),
      'experiments.start': async ({ datasetId, identity, preflight, responseCache, ...config }) => {
        const { datasetPath, file } = await opened(datasetId);
        return this.start({ ...config, datasetPath }, file, identity, { preflight, responseCache });
      },
      'experiments.estimate': async ({
        datasetId,
        identity: _identity,
        preflight: _preflight,
        responseCache: _responseCache,
        ...config
      }) => {
        const { datasetPath, file } = await opened(datasetId);
        return this.estimate({ ...config, datasetPath }, file);
      },
      'experiments.cancel': async ({ runId }) => ({ cancelled: this.cancel(runId) }),
      'experiments.resume': this.unlessRunning(
        (runId) => `run ${runId} is already running`,
        ({ runId, ...calls }) => this.resume(runId, calls),
      ),
      'experiments.active': async () => this.activeRuns(),
      'experiments.live': async () => this.liveRuns(),
    };
  }

  /**
   * The runs and sweeps domains: the read views (runs/queries.ts READ_METHODS) served by the read
   * pool (`read`), never on this thread; the writes on this thread, the runs DB's only writer,
   * each behind the guard it needs: a run's name, tags and notes may change while it runs (they
   * are not its config); a running run is neither deleted nor rescored.
   */
  runsHandlers(): DomainHandlers<'runs' | 'sweeps'> {
    const reads = handlersVia(READ_METHODS, (method, input) => this.read(method, input));
    const writes = (): RunWrites =>
      runWrites(this.runs(), this.apiKeys, { quoteReplies: isLocalUser(this.trust) });
    return {
      ...reads,
      'runs.setIdentity': (input) => writes()['runs.setIdentity'](input),
      'runs.delete': this.unlessRunning(
        (runId) => `run ${runId} is running; cancel it before deleting`,
        (input) => writes()['runs.delete'](input),
      ),
      // Yields between samples (core/runs/rescore.ts).
      'runs.rescore': this.unlessRunning(
        (runId) => `run ${runId} is running; rescore it when it ends`,
        (input) => writes()['runs.rescore'](input),
      ),
    };
  }

  /** Human labels of runs' answers, written on this thread (the runs DB's writer). */
  labelsHandlers(): DomainHandlers<'labels'> {
    return labelsHandlers(() => this.runs());
  }

  /** The read views again, as JSON bytes serialised where they were computed (`readJson`). */
  serializedReadHandlers(): SerializedHandlers {
    const handler =
      <K extends ReadMethod>(method: K) =>
      (input: ApiParsedInput<K>) =>
        this.readJson(method, input);
    return Object.fromEntries(READ_METHODS.map((m) => [m, handler(m)])) as SerializedHandlers;
  }

  /** Cancels every run and closes the database (app quit, server stop). */
  async close(): Promise<void> {
    const running = [...this.active.values()];
    for (const { handle } of running) handle.cancel('the engine stopped (app quit or server stop)');
    await Promise.all(running.map(({ handle }) => handle.done));
    await this.readers?.close();
    this.readers = undefined;
    this.store?.close();
    this.store = undefined;
  }

  /** What a reproduce pack's runs write with: this manager's runs DB (its one writer) and keys. */
  packRunOptions(): { store: RunStore; dataDir: string; apiKeys: ApiKeySource } {
    return { store: this.runs(), dataDir: this.dataDir, apiKeys: this.apiKeys };
  }

  /** `handler`, refused with CONFLICT while the run its input names is running on this manager. */
  private unlessRunning<I extends { runId: string }, O>(
    refusal: (runId: string) => string,
    handler: (input: I) => Promise<O>,
  ): (input: I) => Promise<O> {
    return unlessRunning((runId) => this.active.has(runId), refusal, handler);
  }

  private readPool(file: string): RunReadWorkers {
    this.readers ??= new RunReadWorkers({
      file,
      dataDir: this.dataDir,
      size: this.readWorkerCount,
    });
    return this.readers;
  }

  private surface(): LaunchSurface {
    return {
      store: this.runs(),
      dataDir: this.dataDir,
      apiKeys: this.apiKeys,
      mayStartProcesses: this.trust.mayStartProcesses,
      ...(this.trust.allowedDirs !== undefined ? { allowedDirs: this.trust.allowedDirs } : {}),
      onProgress: (event: ProgressEvent) => {
        const run = this.active.get(event.runId);
        if (run) run.last = event;
        const seq = this.fold(event);
        this.emit({ type: 'progress', event, seq });
      },
    };
  }

  /** Folds the event into the run's live state and returns its sequence number in the run. */
  private fold(event: ProgressEvent): number {
    const before = this.live.get(event.runId);
    const seq = (before?.seq ?? 0) + 1;
    const after = reduceProgress(before ? { [event.runId]: before } : {}, {
      type: 'event',
      event,
      seq,
    })[event.runId];
    // Re-inserted so the map stays in order of the latest start (a resume moves to the end).
    if (event.type === 'run-started') this.live.delete(event.runId);
    if (after) this.live.set(event.runId, after);
    return seq;
  }

  private forgetOldEnded(): void {
    let ended = 0;
    for (const [runId] of [...this.live].reverse()) {
      if (this.active.has(runId)) continue;
      if (++ended > MAX_ENDED_LIVE_RUNS) this.live.delete(runId);
    }
  }

  private track(handle: ExperimentHandle): void {
    this.active.set(handle.runId, { handle, last: null });
    void handle.done.then(() => {
      this.active.delete(handle.runId);
      this.forgetOldEnded();
    });
  }
}
