import type { ApiInput } from '../../../src-shared/api';
import type {
  PackListItem,
  PackResults,
  PackRun,
  ReproducePack,
} from '../../../src-shared/reproduce';
import type { DomainHandlers } from '../handlers';
import { loadMemoryPresets } from '../pipeline/loadPresets';
import type { RunReader } from '../runs/reader';
import { planSweep } from '../pipeline/plan';
import type { SweepRunOptions } from '../sweeps/run';
import { listPacks, loadPack, type PackEndpoints, type PackRunSettings } from './packs';
import { packResults, packStored, type DatasetFileOf } from './results';
import { packGroups, runPack, settingOf, type PackGroup, type Prices } from './run';

/**
 * Reproduce packs, one orchestration for every surface: `cli reproduce` and the Reproduce view's
 * handlers load a pack (`reproducePack`), plan it (`preparePack`: its repeat groups, the calls,
 * tokens and cost, the setting sentence) and run what was planned (`runPreparedPack`). The view
 * plans a pack in the paper's setting (no call is made: the endpoint is only named) and runs it
 * offline with the extractive answerer; a run with real LLMs is `cli reproduce <pack> --base-url …`,
 * where the keys and the cost are the user's.
 */

type Input = ApiInput<'reproduce.plan'>;

/** Stands in for the paper's endpoint in a plan: planning counts calls and never sends one. */
const PLAN_ENDPOINT = 'http://127.0.0.1/v1';

/** What a pack is run with, from whichever surface. */
export interface PackRequest {
  datasetPath: string;
  samples?: readonly string[] | undefined;
  /** Complete runs per row; absent: the paper's count. */
  repeats?: number | undefined;
  /** Per-million prices for the plan's cost; absent: no cost. */
  prices?: Prices | undefined;
  /** The endpoints the rows call; absent: offline (extractive answerer, no judge). */
  endpoints?: PackEndpoints | undefined;
  /** The embedder of the rows that take one (`takesEmbedder`); absent: the offline embedder. */
  embedder?: PackRunSettings['embedder'] | undefined;
}

/** A pack planned and ready to run: what a surface shows before anything runs. */
export interface PreparedPack {
  pack: ReproducePack;
  repeats: number;
  offline: boolean;
  /** The sentence that says what is run (offline: not the paper's setting). */
  setting: string;
  /** One repeat group per row that has a workbench preset, in the pack's order. */
  groups: PackGroup[];
  plan: PackRun['plan'];
}

/** How a prepared pack's runs are recorded. A pack never starts a process. */
export type PackRunOptions = Omit<Parameters<typeof runPack>[2], 'mayStartProcesses'>;

/** Every pack, with what `reader`'s runs DB holds for it (none read: `stored` null). */
export async function reproducePacks(reader: RunReader | null): Promise<PackListItem[]> {
  await loadMemoryPresets();
  const tagged = reader?.sweepRuns() ?? null;
  return listPacks().map((item) => ({
    ...item,
    stored: tagged === null ? null : packStored(tagged, item.pack),
  }));
}

/** The pack by id, checked against the registered presets and protocols. */
export async function reproducePack(packId: string): Promise<ReproducePack> {
  await loadMemoryPresets();
  return loadPack(packId);
}

export async function preparePack(
  pack: ReproducePack,
  request: PackRequest,
): Promise<PreparedPack> {
  const repeats = request.repeats ?? pack.repeats;
  const settings: PackRunSettings = {
    datasetPath: request.datasetPath,
    ...(request.samples ? { samples: [...request.samples] } : {}),
    ...(request.endpoints ? { endpoints: request.endpoints } : {}),
    ...(request.embedder ? { embedder: request.embedder } : {}),
  };
  const groups = packGroups(pack, settings, repeats, request.prices);
  const plan = (await planSweep(groups.flatMap((g) => g.group.cells))).totals;
  return {
    pack,
    repeats,
    offline: request.endpoints === undefined,
    setting: settingOf(pack, settings),
    groups,
    plan,
  };
}

export async function runPreparedPack(
  prepared: PreparedPack,
  options: PackRunOptions,
): Promise<Required<PackRun>> {
  const { pack, offline, setting, repeats, groups, plan } = prepared;
  const result = await runPack(pack, groups, { ...options, mayStartProcesses: false });
  return { packId: pack.id, offline, setting, repeats, plan, ...result };
}

function requestOf(input: Input, datasetPath: string): PackRequest {
  return { datasetPath, samples: input.samples, repeats: input.repeats, prices: input.prices };
}

export async function reproducePlan(input: Input, datasetPath: string): Promise<PackRun> {
  const prepared = await preparePack(await reproducePack(input.packId), {
    ...requestOf(input, datasetPath),
    endpoints: { baseUrl: PLAN_ENDPOINT },
  });
  const { pack, offline, setting, repeats, plan } = prepared;
  return { packId: pack.id, offline, setting: `the paper's setting: ${setting}`, repeats, plan };
}

export async function reproduceRun(
  input: Input,
  datasetPath: string,
  options: Pick<SweepRunOptions, 'store' | 'dataDir' | 'apiKeys'>,
): Promise<PackRun> {
  // Offline, the run's plan has no cost: its calls are none.
  const { prices: _prices, ...request } = requestOf(input, datasetPath);
  const prepared = await preparePack(await reproducePack(input.packId), request);
  return runPreparedPack(prepared, options);
}

/**
 * A pack's stored results, for every surface (`cli reproduce --show`; the API's, in the runs read
 * worker, since it reads every final answer of the pack's runs). `snapshot`: runs the read, in one
 * transaction where the caller has one.
 */
export async function reproduceResults(
  packId: string,
  reader: RunReader,
  fileOf: DatasetFileOf,
  snapshot: (read: () => PackResults) => PackResults = (read) => read(),
): Promise<PackResults> {
  const pack = await reproducePack(packId);
  return snapshot(() => packResults(reader, pack, fileOf));
}

/**
 * The Reproduce view's handlers. `datasetPath`: the file of an opened dataset, by id;
 * `runOptions`: the runs DB and keys a pack's runs write with (the service's one writer);
 * `results`: a pack's stored results, read off the main thread (ExperimentManager.packResults).
 */
export function reproduceHandlers(
  datasetPath: (datasetId: string) => Promise<string>,
  runOptions: () => Pick<SweepRunOptions, 'store' | 'dataDir' | 'apiKeys'>,
  results: (packId: string) => Promise<PackResults>,
): DomainHandlers<'reproduce'> {
  return {
    'reproduce.packs': () => reproducePacks(runOptions().store),
    'reproduce.plan': async (input) => reproducePlan(input, await datasetPath(input.datasetId)),
    'reproduce.run': async (input) =>
      reproduceRun(input, await datasetPath(input.datasetId), runOptions()),
    'reproduce.results': ({ packId }) => results(packId),
  };
}
