/**
 * LoCoMo question categories. The dataset stores a number; what that number is called depends on
 * whose paper you read, so the number is the identity and the name is a view chosen by the user.
 * Every chart and export must say which scheme it used (DESIGN.md §4).
 */
export const CATEGORY_IDS = [1, 2, 3, 4, 5] as const;
export type CategoryId = (typeof CATEGORY_IDS)[number];

export const CATEGORY_SCHEMES = ['official', 'mem0'] as const;
export type CategoryScheme = (typeof CATEGORY_SCHEMES)[number];

export const DEFAULT_CATEGORY_SCHEME: CategoryScheme = 'official';

/** Official LoCoMo (paper + task_eval code) vs the Mem0 paper's relabelling. */
export const CATEGORY_NAMES: Readonly<
  Record<CategoryScheme, Readonly<Record<CategoryId, string>>>
> = {
  official: {
    1: 'multi-hop',
    2: 'temporal',
    3: 'open-domain',
    4: 'single-hop',
    5: 'adversarial',
  },
  mem0: {
    1: 'single-hop',
    2: 'temporal',
    3: 'multi-hop',
    4: 'open-domain',
    5: 'excluded',
  },
};

export const CATEGORY_SCHEME_LABELS: Readonly<Record<CategoryScheme, string>> = {
  official: 'official LoCoMo',
  mem0: 'Mem0 paper',
};

export function isCategoryId(value: unknown): value is CategoryId {
  return typeof value === 'number' && (CATEGORY_IDS as readonly number[]).includes(value);
}

export function isCategoryScheme(value: unknown): value is CategoryScheme {
  return typeof value === 'string' && (CATEGORY_SCHEMES as readonly string[]).includes(value);
}

export function categoryName(
  category: CategoryId,
  scheme: CategoryScheme = DEFAULT_CATEGORY_SCHEME,
): string {
  return CATEGORY_NAMES[scheme][category];
}
