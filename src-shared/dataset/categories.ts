import { LOCOMO_PROFILE } from '../benchmarks/locomo';
import type { CategoryId } from '../benchmarks/types';

/**
 * LoCoMo question categories, read from its benchmark profile (`src-shared/benchmarks/locomo.ts`).
 * The dataset stores a number; what that number is called depends on whose paper you read, so the
 * number is the identity and the name is a view chosen by the user. Every chart and export must
 * say which scheme it used (DESIGN.md §4). Other benchmarks name theirs in their own profile.
 */

export type { CategoryId } from '../benchmarks/types';

export const CATEGORY_IDS: readonly CategoryId[] = LOCOMO_PROFILE.categories.map((c) => c.id);

export const CATEGORY_SCHEMES = ['official', 'mem0'] as const;
export type CategoryScheme = (typeof CATEGORY_SCHEMES)[number];

export const DEFAULT_CATEGORY_SCHEME: CategoryScheme = 'official';

function namesIn(scheme: CategoryScheme): Readonly<Record<CategoryId, string>> {
  return Object.fromEntries(LOCOMO_PROFILE.categories.map((c) => [c.id, c.names[scheme] ?? '']));
}

/** Official LoCoMo (paper + task_eval code) vs the Mem0 paper's relabelling. */
export const CATEGORY_NAMES: Readonly<
  Record<CategoryScheme, Readonly<Record<CategoryId, string>>>
> = { official: namesIn('official'), mem0: namesIn('mem0') };

export const CATEGORY_SCHEME_LABELS: Readonly<Record<CategoryScheme, string>> = {
  official: LOCOMO_PROFILE.schemes.find((s) => s.id === 'official')?.label ?? 'official',
  mem0: LOCOMO_PROFILE.schemes.find((s) => s.id === 'mem0')?.label ?? 'mem0',
};

export function isCategoryId(value: unknown): value is CategoryId {
  return typeof value === 'number' && CATEGORY_IDS.includes(value);
}

export function isCategoryScheme(value: unknown): value is CategoryScheme {
  return typeof value === 'string' && (CATEGORY_SCHEMES as readonly string[]).includes(value);
}

export function categoryName(
  category: CategoryId,
  scheme: CategoryScheme = DEFAULT_CATEGORY_SCHEME,
): string {
  return CATEGORY_NAMES[scheme][category] ?? `category ${category}`;
}
