import type { BenchmarkCategory, BenchmarkProfile } from '../benchmarks/types';
import { WorkbenchError } from '../errors';
import { BUILTIN_METRICS } from './builtin';
import type { MetricDefinition, MetricId, ScoreInput, Scores } from './types';

/**
 * The metrics registry. Everything that scores, stores, summarises, prints or charts a metric
 * iterates `metricList()`, so a metric is defined once, in its own module.
 */

export type {
  AggregateInput,
  MetricDefinition,
  MetricId,
  MetricMean,
  ScoreInput,
  Scores,
} from './types';

const registry = new Map<MetricId, MetricDefinition>(BUILTIN_METRICS.map((m) => [m.id, m]));

/** Read-only view of the registry, by id. */
export const METRICS: ReadonlyMap<MetricId, MetricDefinition> = registry;

/** The metrics in order (built-ins first, then any registered later). */
export function metricList(): MetricDefinition[] {
  return [...registry.values()];
}

export function metricIds(): MetricId[] {
  return [...registry.keys()];
}

export function isMetricId(value: unknown): value is MetricId {
  return typeof value === 'string' && registry.has(value);
}

export function metricOf(id: MetricId): MetricDefinition {
  const metric = registry.get(id);
  if (!metric) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `no metric "${id}" (known: ${metricIds().join(', ')})`,
    );
  }
  return metric;
}

/**
 * A chart's value axis for a metric's means, worded once for every chart and saved figure
 * ("Mean official F1"): the curve and the heatmap said "Mean Official F1" beside Compare's
 * "Mean official F1".
 */
export function meanAxisTitle(id: MetricId): string {
  return `Mean ${metricOf(id).label}`;
}

/**
 * Adds a metric (a plug-in or a test); returns its removal. An id that is taken is refused, so a
 * built-in is never replaced by accident.
 */
export function registerMetric(metric: MetricDefinition): () => void {
  if (registry.has(metric.id)) {
    throw new WorkbenchError('CONFLICT', `metric "${metric.id}" is already registered`);
  }
  registry.set(metric.id, metric);
  return () => {
    registry.delete(metric.id);
  };
}

/**
 * The metrics a benchmark's runs carry: every general one, and a benchmark's own (`declared`)
 * only where its profile names them, so LoCoMo summaries and exports do not grow LongMemEval's.
 */
export function metricsOf(profile: BenchmarkProfile): MetricDefinition[] {
  return metricList().filter(
    (m) =>
      m.categories !== 'declared' ||
      profile.categories.some((c) => c.metrics?.includes(m.id) || c.ownMetrics?.includes(m.id)),
  );
}

/**
 * Whether a metric scores answers of a category: the category's exact list where it has one,
 * else the metric's rule, minus what the category leaves out, plus the benchmark's own metrics
 * it declares.
 */
export function metricScores(metric: MetricDefinition, category: BenchmarkCategory): boolean {
  if (category.metrics) return category.metrics.includes(metric.id);
  if (metric.categories === 'declared') return category.ownMetrics?.includes(metric.id) ?? false;
  if (category.withoutMetrics?.includes(metric.id)) return false;
  return metric.categories === 'all' || !category.adversarial;
}

/**
 * Whether the ranking in `input.ranking` reaches the depth every metric scoring the category reads
 * (`reachesDepth`); true where none reads past the top-k. Null: no such metric scores it.
 */
export function rankingReachesDepth(input: ScoreInput): boolean | null {
  const metrics = metricList().filter((m) => m.reachesDepth && metricScores(m, input.category));
  if (metrics.length === 0) return null;
  return metrics.every((m) => m.reachesDepth?.(input) ?? true);
}

/**
 * Every metric's value for one answer. Metrics that do not score its category are null, and so
 * are those filled in later (the judge).
 */
export function scoreAnswer(input: ScoreInput): Scores {
  const scores: Scores = {};
  for (const metric of registry.values()) {
    const scored = metricScores(metric, input.category);
    // A benchmark's own metric is no key at all elsewhere (LoCoMo answers stay as they were).
    if (metric.categories === 'declared' && !scored) continue;
    scores[metric.id] = metric.score && scored ? metric.score(input) : null;
  }
  return scores;
}
