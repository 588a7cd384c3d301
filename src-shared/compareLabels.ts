import {
  categoryLabel as profileCategoryLabel,
  type BenchmarkProfile,
  type CategoryId,
  type SchemeId,
} from './benchmarks';

/**
 * What the comparison tables share, in one place below both of them (compareTable.ts for the
 * terminal and Markdown, columnLatex.ts for a paper's column): how a row is named, when a number
 * is a number, and when a cluster interval is too rough.
 */

/** JSON carries NaN as null, so the engine's "no pairs" result arrives with nulls in it. */
export function finite(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

export function categoryLabel(
  category: CategoryId | null,
  scheme: SchemeId,
  profile: BenchmarkProfile,
): string {
  return category === null
    ? 'All'
    : `${category} ${profileCategoryLabel(profile, category, scheme)}`;
}

/** Fewer conversations than this make a cluster interval too rough to hold its coverage. */
export const FEW_CONVERSATIONS = 5;
