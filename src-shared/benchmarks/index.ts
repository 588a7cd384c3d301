import { WorkbenchError } from '../errors';
import { BEAM_PROFILE } from './beam';
import { LOCOMO_PROFILE } from './locomo';
import { LONGMEMEVAL_PROFILE, currentDateQuestion } from './longmemeval';
import type { BenchmarkCategory, BenchmarkProfile, ReportFormat, SchemeId } from './types';

/**
 * The benchmark profiles, by id. A dataset loader's `format` id names its profile (the LoCoMo
 * loader reads `locomo`), so a run's manifest says which profile scores and names its categories.
 */

export type {
  BenchmarkCategory,
  BenchmarkProfile,
  BenchmarkScheme,
  BenchmarkOverallNames,
  OverallName,
  CategoryId,
  ReportFormat,
  ReportLayout,
  SchemeId,
} from './types';
export { LOCOMO_PROFILE } from './locomo';
export { LONGMEMEVAL_PROFILE } from './longmemeval';
export { BEAM_PROFILE } from './beam';

/** The scheme a view shows before the user picks one: every profile's first is `official`. */
export const DEFAULT_SCHEME: SchemeId = 'official';

/**
 * The rules every profile obeys, checked when it is registered (built-ins at load), so a profile
 * that breaks one fails with its name and the rule instead of misnaming categories somewhere
 * downstream: its first scheme is `official` (views open on DEFAULT_SCHEME before they know the
 * dataset), every category is named in every scheme and numbered once, and it lays out at least
 * one report, each in a scheme it declares, naming only its own categories and overalls, with an
 * id no other profile's report uses (`--format` takes it before it knows the run).
 */
export function validateBenchmarkProfile(
  profile: BenchmarkProfile,
  others: readonly BenchmarkProfile[] = [],
): void {
  const fail = (rule: string): never => {
    throw new WorkbenchError('INVALID_INPUT', `benchmark profile "${profile.id}": ${rule}`, {
      where: `benchmark profile ${profile.id}`,
    });
  };
  if (profile.id.trim() === '' || profile.label.trim() === '') fail('needs an id and a label');
  const first = profile.schemes[0]?.id;
  if (first !== DEFAULT_SCHEME) {
    fail(
      `its first naming scheme must be "${DEFAULT_SCHEME}" (got ${first ? `"${first}"` : 'none'})`,
    );
  }
  if (profile.categories.length === 0) fail('declares no category');
  const seen = new Set<number>();
  for (const category of profile.categories) {
    if (!isCategoryNumber(category.id)) fail(`category ${category.id} is not a positive integer`);
    if (seen.has(category.id)) fail(`category ${category.id} is declared twice`);
    seen.add(category.id);
    for (const scheme of profile.schemes) {
      if (!category.names[scheme.id]?.trim()) {
        fail(`category ${category.id} has no name in scheme "${scheme.id}"`);
      }
    }
  }
  const { all, answerable } = profile.overallNames;
  if ([all, ...(answerable ? [answerable] : [])].some((o) => !o.label.trim() || !o.note.trim())) {
    fail('names an overall (overallNames) without a label or a note');
  }
  if (profile.reportFormats.length === 0) {
    fail("lays out no report format (reportFormats is empty): give it its paper's table");
  }
  const taken = new Map(others.flatMap((p) => p.reportFormats.map((f) => [f.id, p.id] as const)));
  for (const format of profile.reportFormats) {
    const where = `report format "${format.id}"`;
    if (format.id.trim() === '' || format.label.trim() === '' || format.help.trim() === '') {
      fail(`${where} needs an id, a label and a help line`);
    }
    const owner = taken.get(format.id);
    if (owner !== undefined) fail(`${where} is already benchmark "${owner}"'s`);
    taken.set(format.id, profile.id);
    const { layout } = format;
    if (!profile.schemes.some((s) => s.id === layout.scheme)) {
      fail(
        `${where} names categories in scheme "${layout.scheme}", which the profile does not declare`,
      );
    }
    const names = new Set(
      profile.categories.map((c) => categoryLabel(profile, c.id, layout.scheme)),
    );
    for (const group of layout.groups) {
      if (group !== null && !names.has(group) && layout.overalls?.[group] === undefined) {
        fail(`${where} has a column "${group}" that is no category in scheme "${layout.scheme}"`);
      }
    }
    if (layout.metrics.length === 0) fail(`${where} shows no metric`);
    if (layout.sampleMeans === true && profile.sampleAveraged !== true) {
      fail(`${where} reads per-sample means, which the profile does not ask for (sampleAveraged)`);
    }
  }
}

const profiles = new Map<string, BenchmarkProfile>();

/**
 * Adds a profile (a dataset format another build or a test brings); returns its removal. A
 * profile whose id is taken is refused, so a built-in can never be replaced by accident, and so
 * is one that breaks a rule of `validateBenchmarkProfile`.
 */
export function registerBenchmarkProfile(profile: BenchmarkProfile): () => void {
  if (profiles.has(profile.id)) {
    throw new WorkbenchError('CONFLICT', `benchmark profile "${profile.id}" is already registered`);
  }
  validateBenchmarkProfile(profile, [...profiles.values()]);
  profiles.set(profile.id, profile);
  return () => {
    profiles.delete(profile.id);
  };
}

/** The built-in profiles, in the order views list them (LoCoMo first). Add a benchmark here. */
const BUILTIN_PROFILES: readonly BenchmarkProfile[] = [
  LOCOMO_PROFILE,
  LONGMEMEVAL_PROFILE,
  BEAM_PROFILE,
];
for (const profile of BUILTIN_PROFILES) registerBenchmarkProfile(profile);

/** The registered profiles, built-ins first. */
export function benchmarkProfiles(): BenchmarkProfile[] {
  return [...profiles.values()];
}

/**
 * Every category number any registered profile declares, ascending: what a view's category filter
 * keeps in its URL state before it knows whose dataset it shows (LoCoMo's 1-5 are its first five).
 */
export function allCategoryIds(): number[] {
  const ids = new Set<number>();
  for (const profile of profiles.values()) for (const c of profile.categories) ids.add(c.id);
  return [...ids].sort((a, b) => a - b);
}

/** Every naming-scheme id any registered profile declares, in registration order ("official, mem0"). */
export function allSchemeIds(): SchemeId[] {
  const ids = new Set<SchemeId>();
  for (const profile of profiles.values()) for (const s of profile.schemes) ids.add(s.id);
  return [...ids];
}

/**
 * Whether any registered profile declares that naming scheme: what a view's URL state and the
 * CLI's `--scheme` accept before they know whose dataset they show.
 */
export function isSchemeId(value: unknown): value is SchemeId {
  return typeof value === 'string' && allSchemeIds().includes(value);
}

/** A profile's naming schemes as a toggle's choices; a single one means there is nothing to toggle. */
export function schemeOptions(
  profile: BenchmarkProfile,
): Array<{ value: SchemeId; label: string }> {
  return profile.schemes.map((s) => ({ value: s.id, label: s.label }));
}

/** Every registered profile's report formats, in registration order: what `--format` accepts. */
export function allReportFormats(): ReportFormat[] {
  return [...profiles.values()].flatMap((p) => [...p.reportFormats]);
}

/** Whether a number can be a stored category: a positive integer (what it means is the profile's). */
export function isCategoryNumber(value: number): boolean {
  return Number.isInteger(value) && value >= 1;
}

/** The profile of a dataset format (a run's `manifest.dataset.format`). */
export function benchmarkProfile(id: string): BenchmarkProfile {
  const profile = profiles.get(id);
  if (!profile) {
    throw new WorkbenchError(
      'NOT_FOUND',
      `no benchmark profile "${id}" (known: ${[...profiles.keys()].join(', ')})`,
    );
  }
  return profile;
}

/** A category of the profile; a number the profile does not declare is an input error. */
export function benchmarkCategory(profile: BenchmarkProfile, id: number): BenchmarkCategory {
  const category = profile.categories.find((c) => c.id === id);
  if (!category) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `benchmark ${profile.id}: no category ${id} (it has ${profile.categories.map((c) => c.id).join(', ')})`,
    );
  }
  return category;
}

export function isAdversarial(profile: BenchmarkProfile, id: number): boolean {
  return profile.categories.find((c) => c.id === id)?.adversarial ?? false;
}

/** The profile's scheme of that id, else its first: a LongMemEval run asked for "mem0" names keeps its own. */
export function schemeOf(profile: BenchmarkProfile, scheme?: string): string {
  const own = profile.schemes.find((s) => s.id === scheme);
  return own?.id ?? profile.schemes[0]?.id ?? '';
}

/** How charts and tables name the scheme a profile's categories are shown in ("LongMemEval paper"). */
export function schemeLabelOf(profile: BenchmarkProfile, scheme?: string): string {
  const id = schemeOf(profile, scheme);
  return profile.schemes.find((s) => s.id === id)?.label ?? id;
}

/** What the profile calls a category under a naming scheme (the first scheme by default). */
export function categoryLabel(profile: BenchmarkProfile, id: number, scheme?: string): string {
  const category = profile.categories.find((c) => c.id === id);
  return category?.names[schemeOf(profile, scheme)] ?? `category ${id}`;
}

/** Whether the benchmark's reader asks this category's questions with LoCoMo's date hint. */
export function wantsDateHint(profile: BenchmarkProfile, id: number): boolean {
  return profile.categories.find((c) => c.id === id)?.dateHint ?? false;
}

/**
 * The question as the benchmark's reader asks it: with the date it is asked where the profile
 * says so (LongMemEval) and the dataset gives one, else as the dataset writes it.
 */
export function readerQuestion(
  profile: BenchmarkProfile,
  question: string,
  questionDateText: string | null | undefined,
): string {
  if (profile.readerDate !== true || !questionDateText) return question;
  return currentDateQuestion(question, questionDateText);
}

/**
 * The judge protocol a run of the benchmark uses: the one named, else the benchmark's own. A
 * named built-in that is another benchmark's own judge comes with a warning (Mem0's judge on
 * LongMemEval asks the wrong question of abstention answers); a custom protocol is the user's.
 */
export function judgeProtocolFor<P>(
  profile: BenchmarkProfile,
  named: P | undefined,
): { protocol: P | string; warning: string | null } {
  if (named === undefined) return { protocol: profile.defaultJudgeProtocol, warning: null };
  const own = profile.defaultJudgeProtocol;
  const otherOwner = [...profiles.values()].find(
    (p) => p.id !== profile.id && p.defaultJudgeProtocol === named && named !== own,
  );
  return {
    protocol: named,
    warning: otherOwner
      ? `judge protocol "${String(named)}" is ${otherOwner.label}'s judge; this is a ${profile.label} run, whose own is "${own}"`
      : null,
  };
}
