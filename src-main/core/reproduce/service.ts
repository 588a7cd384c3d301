import type { ApiInput } from '../../../src-shared/api';
import type { PackListItem, PackRun } from '../../../src-shared/reproduce';
import type { DomainHandlers } from '../handlers';
import { loadMemoryPresets } from '../pipeline/loadPresets';
import type { SweepRunOptions } from '../sweeps/run';
import { listPacks, loadPack, type PackRunSettings } from './packs';
import { packGroups, planPack, runPack, settingOf } from './run';

/**
 * The Reproduce view's handlers. The view plans a pack in the paper's setting (no call is made:
 * the endpoint is only named) and runs it offline with the extractive answerer; a run with real
 * LLMs is `cli reproduce <pack> --base-url …`, where the keys and the cost are the user's.
 */

type Input = ApiInput<'reproduce.plan'>;

/** Stands in for the paper's endpoint in a plan: planning counts calls and never sends one. */
const PLAN_ENDPOINT = 'http://127.0.0.1/v1';

export async function reproducePacks(): Promise<PackListItem[]> {
  await loadMemoryPresets();
  return listPacks();
}

function settingsOf(input: Input, datasetPath: string, offline: boolean): PackRunSettings {
  return {
    datasetPath,
    ...(input.samples ? { samples: input.samples } : {}),
    ...(offline ? {} : { endpoints: { baseUrl: PLAN_ENDPOINT } }),
  };
}

export async function reproducePlan(input: Input, datasetPath: string): Promise<PackRun> {
  await loadMemoryPresets();
  const pack = loadPack(input.packId);
  const repeats = input.repeats ?? pack.repeats;
  const settings = settingsOf(input, datasetPath, false);
  return {
    packId: pack.id,
    offline: false,
    setting: `the paper's setting: ${settingOf(pack, settings)}`,
    repeats,
    plan: await planPack(pack, settings, repeats, input.prices),
  };
}

export async function reproduceRun(
  input: Input,
  datasetPath: string,
  options: Pick<SweepRunOptions, 'store' | 'dataDir' | 'apiKeys'>,
): Promise<PackRun> {
  await loadMemoryPresets();
  const pack = loadPack(input.packId);
  const repeats = input.repeats ?? pack.repeats;
  const settings = settingsOf(input, datasetPath, true);
  const groups = packGroups(pack, settings, repeats);
  const plan = await planPack(pack, settings, repeats);
  const result = await runPack(pack, groups, { ...options, mayStartProcesses: false });
  return {
    packId: pack.id,
    offline: true,
    setting: settingOf(pack, settings),
    repeats,
    plan,
    ...result,
  };
}

/**
 * The Reproduce view's handlers. `datasetPath`: the file of an opened dataset, by id;
 * `runOptions`: the runs DB and keys a pack's runs write with (the service's one writer).
 */
export function reproduceHandlers(
  datasetPath: (datasetId: string) => Promise<string>,
  runOptions: () => Pick<SweepRunOptions, 'store' | 'dataDir' | 'apiKeys'>,
): DomainHandlers<'reproduce'> {
  return {
    'reproduce.packs': () => reproducePacks(),
    'reproduce.plan': async (input) => reproducePlan(input, await datasetPath(input.datasetId)),
    'reproduce.run': async (input) =>
      reproduceRun(input, await datasetPath(input.datasetId), runOptions()),
  };
}
