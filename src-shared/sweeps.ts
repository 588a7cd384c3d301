import { z } from 'zod';
import { WorkbenchError, formatPath, zodError } from './errors';
import { ExperimentConfigSchema, type ExperimentConfig, type RunStatus } from './experiment';
import type { BenchmarkProfile } from './benchmarks';
import type { MetricId } from './metrics';

/**
 * Sweeps: a base experiment config plus axes, expanded to a grid of cells (the cartesian product
 * of the axes, each `repeats` times). Every cell is an ordinary run tagged with the sweep. Pure:
 * the file reading and YAML parsing live in src-main/core/sweeps.
 */

/** A dotted path into ExperimentConfig: `memory.preset`, `retrieval.topK`, `seed`. */
const AXIS_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

export const MAX_SWEEP_CELLS = 10_000;

const axisValue = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.array(z.unknown()),
  z.record(z.string(), z.unknown()),
]);

export const SweepSpecSchema = z
  .object({
    /** Names the sweep; with the spec's content it makes the sweep id (rerunning resumes). */
    name: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, ".", "_" and "-" only (1-64)'),
    /** Any ExperimentConfig fields; each cell overrides the axes' paths. */
    base: z.record(z.string(), z.unknown()),
    /** Dotted config path -> the values it takes, in order. Axes vary in declaration order. */
    axes: z
      .record(
        z.string().regex(AXIS_PATH, 'must be a dotted config path such as retrieval.topK'),
        z.array(axisValue).min(1, 'an axis needs at least one value'),
      )
      .default({}),
    /** Every cell this many times (independent runs: J ± std over repeats). */
    repeats: z.number().int().min(1).max(100).default(1),
  })
  .strict();

export type SweepSpecInput = z.input<typeof SweepSpecSchema>;
export type SweepSpec = z.output<typeof SweepSpecSchema>;

export type AxisValue = z.output<typeof axisValue>;

/** What a run of a sweep records about its place in the grid (in its manifest). */
export interface SweepTag {
  sweepId: string;
  name: string;
  /** Stable across reruns of the same spec: the axis values and the repeat. */
  cellKey: string;
  cellIndex: number;
  /** Axis path -> this cell's value. */
  values: Record<string, AxisValue>;
  repeat: number;
  /**
   * The reproduce pack row this run plays (a pack row's repeat group), so the Reproduce view finds
   * the row's stored results whichever surface ran it. Absent on other sweeps and on pack runs made
   * before the tag: those carry the row only in the group's name, `<packId>.<rowId>`.
   */
  pack?: PackTag;
}

/** A pack row's tag: which row of which pack, and how many complete runs were asked for it. */
export interface PackTag {
  packId: string;
  rowId: string;
  repeats: number;
}

export const PackTagSchema = z
  .object({
    packId: z.string().min(1).max(64),
    rowId: z.string().min(1).max(64),
    repeats: z.number().int().min(1),
  })
  .loose() satisfies z.ZodType<PackTag>;

/**
 * The cache scope of a run's LLM replies and judge verdicts: repeat r > 0 of a sweep or repeat
 * group is an independent run of the same config (measuring variance), so it reads and writes its
 * own entries instead of replaying repeat 0's; repeat 0 and a run of no sweep share the unscoped
 * ones (an identical request). Undefined: unscoped.
 */
export function repeatCacheScope(tag: Pick<SweepTag, 'repeat'> | undefined): string | undefined {
  const repeat = tag?.repeat ?? 0;
  return repeat > 0 ? `repeat ${repeat}` : undefined;
}

/** The tag as a stored manifest carries it (checked when a run is read back). */
export const SweepTagSchema = z
  .object({
    sweepId: z.string().min(1),
    name: z.string(),
    cellKey: z.string(),
    cellIndex: z.number().int().nonnegative(),
    values: z.record(z.string(), axisValue),
    repeat: z.number().int().nonnegative(),
    pack: PackTagSchema.optional(),
  })
  .loose() satisfies z.ZodType<SweepTag>;

export interface SweepCell {
  index: number;
  key: string;
  values: Record<string, AxisValue>;
  repeat: number;
  config: ExperimentConfig;
}

/** How a value is shown in cell keys and tables. */
export function axisValueLabel(value: AxisValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function cellKeyOf(values: Record<string, AxisValue>, repeat: number): string {
  const parts = Object.entries(values).map(([path, v]) => `${path}=${axisValueLabel(v)}`);
  return `${parts.join(',')}${parts.length > 0 ? ' ' : ''}#${repeat}`;
}

/** A deep copy of `base` with `value` at `path`, creating plain objects on the way. */
function setPath(
  base: Record<string, unknown>,
  path: readonly string[],
  value: unknown,
): Record<string, unknown> {
  const [head, ...rest] = path;
  if (head === undefined) return base;
  const current = base[head];
  if (rest.length === 0) return { ...base, [head]: value };
  const child =
    current !== null && typeof current === 'object' && !Array.isArray(current)
      ? (current as Record<string, unknown>)
      : {};
  return { ...base, [head]: setPath(child, rest, value) };
}

/**
 * Every cell of the grid, each validated as an ExperimentConfig before anything runs. A bad cell
 * fails the whole sweep, naming the cell's axis values and the config field.
 */
export function expandSweep(spec: SweepSpec, what = 'sweep'): SweepCell[] {
  const axes = Object.entries(spec.axes);
  const total = axes.reduce((n, [, values]) => n * values.length, spec.repeats);
  if (total > MAX_SWEEP_CELLS) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `${what}: ${total} cells; at most ${MAX_SWEEP_CELLS} (fewer axis values or repeats)`,
      { path: ['axes'], where: what },
    );
  }
  const cells: SweepCell[] = [];
  const combos: Array<Record<string, AxisValue>> = [{}];
  for (const [path, values] of axes) {
    const next: Array<Record<string, AxisValue>> = [];
    for (const combo of combos) for (const v of values) next.push({ ...combo, [path]: v });
    combos.splice(0, combos.length, ...next);
  }
  for (const values of combos) {
    let input: Record<string, unknown> = spec.base;
    for (const [path, v] of Object.entries(values)) input = setPath(input, path.split('.'), v);
    for (let repeat = 0; repeat < spec.repeats; repeat++) {
      const key = cellKeyOf(values, repeat);
      const parsed = ExperimentConfigSchema.safeParse(input);
      if (!parsed.success) {
        const base = zodError(parsed.error, `${what}: cell ${key}`);
        const path = base.path ?? [];
        // Unknown keys are reported on their parent object: name the keys themselves.
        const issue = parsed.error.issues[0];
        const fields =
          issue?.code === 'unrecognized_keys'
            ? issue.keys.map((k) => formatPath([...path, k]))
            : [formatPath(path)];
        // Point at the axis that set the bad field when one did, else at the base config.
        const axis = Object.keys(values).find((p) =>
          fields.some((f) => f === p || f.startsWith(`${p}.`) || f.startsWith(`${p}[`)),
        );
        throw new WorkbenchError('INVALID_INPUT', base.message, {
          path: axis ? ['axes', axis] : ['base', ...path],
          where: what,
        });
      }
      cells.push({ index: cells.length, key, values, repeat, config: parsed.data });
    }
  }
  return cells;
}

// ---------------------------------------------------------------------------------------------
// Results: what the Sweep view shows

/** Metrics a sweep cell is ranked by: every registered metric's overall mean (src-shared/metrics). */
export type SweepMetric = MetricId;

/** A run of a sweep as the runs DB lists it (newest first). */
export interface SweepRunRow {
  runId: string;
  status: RunStatus;
  tag: SweepTag;
}

export interface SweepListItem {
  sweepId: string;
  name: string;
  /** Runs recorded for the sweep (cells started so far). */
  runs: number;
  completed: number;
  /** The first run's creation time. */
  createdAt: string;
}

export interface SweepCellRow {
  runId: string;
  status: string;
  cellKey: string;
  cellIndex: number;
  values: Record<string, AxisValue>;
  repeat: number;
  /** Overall mean per metric over every question (null until the run has answers for it). */
  metrics: Record<SweepMetric, number | null>;
  /** Per category (keyed by the stored number): official F1 means. */
  byCategory: Record<string, number | null>;
  questions: number;
}

export interface SweepDetail {
  sweepId: string;
  name: string;
  /** Axis paths in declaration order. */
  axes: string[];
  cells: SweepCellRow[];
  /** The benchmark of the sweep's dataset: which categories `byCategory` has and their names. */
  benchmark: BenchmarkProfile;
}

export interface HeatCell {
  x: string;
  y: string;
  /** Mean over the runs that fall in this cell (other axes and repeats pooled). */
  mean: number | null;
  /** Runs with a value. */
  n: number;
  /** Normal-approximation 95% interval of the mean over runs; null with fewer than 2. */
  ci: [number, number] | null;
  runIds: string[];
}

export interface Heatmap {
  xs: string[];
  ys: string[];
  cells: HeatCell[];
}

/** Distinct labels of an axis in first-seen order (the spec's order, since cells come in it). */
function labelsOf(rows: readonly SweepCellRow[], axis: string | null): string[] {
  if (axis === null) return ['all'];
  const seen = new Set<string>();
  for (const r of rows) {
    const v = r.values[axis];
    if (v !== undefined) seen.add(axisValueLabel(v));
  }
  return [...seen];
}

/** Axis × axis, the chosen metric per cell; `null` axes pool everything into one row/column. */
export function heatmapOf(
  rows: readonly SweepCellRow[],
  xAxis: string | null,
  yAxis: string | null,
  metric: SweepMetric,
): Heatmap {
  const xs = labelsOf(rows, xAxis);
  const ys = labelsOf(rows, yAxis);
  const label = (r: SweepCellRow, axis: string | null): string => {
    if (axis === null) return 'all';
    const v = r.values[axis];
    return v === undefined ? '' : axisValueLabel(v);
  };
  const cells: HeatCell[] = [];
  for (const y of ys) {
    for (const x of xs) {
      const inCell = rows.filter((r) => label(r, xAxis) === x && label(r, yAxis) === y);
      const values = inCell.map((r) => r.metrics[metric]).filter((v): v is number => v !== null);
      const n = values.length;
      const mean = n === 0 ? null : values.reduce((s, v) => s + v, 0) / n;
      let ci: [number, number] | null = null;
      if (mean !== null && n >= 2) {
        const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1));
        const half = (1.96 * sd) / Math.sqrt(n);
        ci = [mean - half, mean + half];
      }
      cells.push({ x, y, mean, n, ci, runIds: inCell.map((r) => r.runId) });
    }
  }
  return { xs, ys, cells };
}

/**
 * What a heatmap's colours span: the metric's declared range (`metric`, the default: a 0.301 and
 * a 0.304 cell look alike, as they are) or the cells' own range (`data`, chosen: it spreads the
 * colours over a narrow sweep, making a tiny difference look large).
 */
export const HEAT_SCALE_BASES = ['metric', 'data'] as const;
export type HeatScaleBasis = (typeof HEAT_SCALE_BASES)[number];

export interface HeatScale {
  basis: HeatScaleBasis;
  lo: number;
  hi: number;
}

/** The scale of `basis` for this heatmap; `range` is the metric's (its registry `range`). */
export function heatScale(
  heatmap: Pick<Heatmap, 'cells'>,
  basis: HeatScaleBasis,
  range: readonly [number, number],
): HeatScale {
  if (basis === 'metric') return { basis, lo: range[0], hi: range[1] };
  const means = heatmap.cells.flatMap((c) => (c.mean === null ? [] : [c.mean]));
  return means.length > 0
    ? { basis, lo: Math.min(...means), hi: Math.max(...means) }
    : { basis, lo: range[0], hi: range[1] };
}

/** Where `value` falls on the scale, 0 to 1 (clamped); the middle when the scale has no width. */
export function heatPosition(scale: HeatScale, value: number): number {
  if (!(scale.hi > scale.lo)) return 0.5;
  return Math.max(0, Math.min(1, (value - scale.lo) / (scale.hi - scale.lo)));
}

/** A scale end as the colour bar labels it: the cells' three decimals on a data-range scale. */
export function heatScaleEnd(scale: HeatScale, value: number): string {
  return value.toFixed(scale.basis === 'data' ? 3 : 2);
}

/** Which scale the colours use, in a sentence: the on-screen note and the figure's caption. */
export function heatScaleSentence(scale: HeatScale): string {
  const span = `${heatScaleEnd(scale, scale.lo)}–${heatScaleEnd(scale, scale.hi)}`;
  return scale.basis === 'metric'
    ? `The colour scale spans the metric's full range, ${span}.`
    : `The colour scale spans only the cells' range, ${span}, so a small difference looks large.`;
}
