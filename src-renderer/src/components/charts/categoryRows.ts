import type { CompareMetric } from '@shared/compare';
import {
  categoryLabel,
  type BenchmarkProfile,
  type CategoryId,
  type SchemeId,
} from '@shared/benchmarks';
import type { RunSummary } from '@shared/experiment';
import { metricList } from '@shared/metrics';

/**
 * Rows for CategoryChart, built from run summaries. Pure, so the numbers a chart shows are tested
 * under plain Node; the chart component only draws them.
 */

export type ChartMetric = CompareMetric;

/** Each registered metric's title (src-shared/metrics), by id. */
export const METRIC_LABELS: Readonly<Record<ChartMetric, string>> = Object.fromEntries(
  metricList().map((m) => [m.id, m.title]),
);

/** One bar group: a category, named by a scheme, with a value per series. */
export interface CategoryChartRow {
  category: CategoryId;
  /** The category's name in the chosen scheme, e.g. "multi-hop". */
  label: string;
  /** Questions behind the first series' bar (the n every chart must show). */
  n: number;
  /** Series key -> mean; null when the series has no question in this category. */
  values: Record<string, number | null>;
  /** Series key -> n, for tooltips when series differ (runs over different samples). */
  ns: Record<string, number>;
  /** Series key -> 95% interval [low, high] of the mean, drawn as a whisker where given. */
  intervals?: Record<string, readonly [number, number]>;
}

export interface SummarySeries {
  key: string;
  summary: RunSummary;
}

export interface CategoryRowsOptions {
  metric: ChartMetric;
  scheme: SchemeId;
  /** The runs' benchmark profile (from the API): its categories and names. */
  benchmark: BenchmarkProfile;
  /**
   * Leave out categories no series has a question in. Category 5 under the Mem0 scheme is
   * "excluded" but still shown when it has data: hiding numbers is the reader's choice.
   */
  dropEmpty?: boolean;
}

export function categoryChartRows(
  series: readonly SummarySeries[],
  { metric, scheme, benchmark, dropEmpty = false }: CategoryRowsOptions,
): CategoryChartRow[] {
  const rows = benchmark.categories.map(({ id: category }): CategoryChartRow => {
    const values: Record<string, number | null> = {};
    const ns: Record<string, number> = {};
    for (const s of series) {
      const score = s.summary.byCategory[category]?.[metric];
      values[s.key] = score?.mean ?? null;
      ns[s.key] = score?.n ?? 0;
    }
    const first = series[0];
    return {
      category,
      label: categoryLabel(benchmark, category, scheme),
      n: first ? (ns[first.key] ?? 0) : 0,
      values,
      ns,
    };
  });
  return dropEmpty ? rows.filter((r) => Object.values(r.ns).some((n) => n > 0)) : rows;
}

/** "1 multi-hop (n=282)": the number stays visible so the two schemes can be told apart. */
export function categoryTickLabel(row: Pick<CategoryChartRow, 'category' | 'label' | 'n'>): string {
  return `${row.category} ${row.label} (n=${row.n})`;
}

export function formatScore(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : value.toFixed(3);
}

/**
 * Where a bar's value label sits on screen, in pixels above the bar's top: past its whisker's cap,
 * so the number never sits on the whisker. The bar's own height gives the scale (pixels per unit
 * of score); a bar of height zero has none, so a zero mean with a whisker above it gets no label
 * (null) rather than one drawn across the whisker. The tooltip and the table still give it.
 */
export function valueLabelLift(
  mean: number,
  interval: readonly [number, number] | undefined,
  barHeightPx: number,
): number | null {
  const above = interval ? Math.max(0, interval[1] - mean) : 0;
  if (above === 0) return 0;
  if (mean <= 0 || barHeightPx <= 0) return null;
  return (above * barHeightPx) / mean;
}
