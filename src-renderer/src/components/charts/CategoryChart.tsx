import { CHART_COLORS, SCORE_AXIS, legendText } from './chartColors';
import { useDrawnLater } from './drawLater';
import {
  Bar,
  BarChart,
  CartesianGrid,
  ErrorBar,
  LabelList,
  Legend,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { memo, useCallback } from 'react';
import { SERIES_COLORS as PALETTE, seriesStyle } from '@shared/palette';
import {
  categoryTickLabel,
  formatScore,
  valueLabelLift,
  type CategoryChartRow,
} from './categoryRows';
import { SaveFigure } from './SaveFigure';
import {
  barFigure,
  bootstrapSentence,
  joinSentences,
  nSentence,
  type FigureOptions,
  type Scene,
} from './figure';
import type { BootstrapInterval } from './figure/caption';

export type { CategoryChartRow } from './categoryRows';

/** One bar per row and series; Compare passes one series per run, Runs passes one. */
export interface CategoryChartSeries {
  key: string;
  label: string;
  /** Defaults to the palette colour at the series' position. */
  color?: string;
}

export interface CategoryChartProps {
  rows: CategoryChartRow[];
  series: CategoryChartSeries[];
  /** What the bars measure, e.g. "Official F1" (METRIC_LABELS). */
  metricLabel: string;
  /** Which naming scheme the category names come from, e.g. "official LoCoMo". */
  schemeLabel: string;
  /** Which answers the means are over: "final answers" for a finished run, "answers so far" live. */
  subject?: string;
  height?: number;
  /** Accessible name of the figure; defaults to "<metric> per category". */
  title?: string;
  /** The whiskers' bootstrap (resamples, seed), said in a saved figure's caption. */
  bootstrap?: BootstrapInterval | undefined;
  /** True while the whiskers are still being computed: the figure cannot be saved yet. */
  intervalsPending?: boolean;
}

/** The figures' colour-blind-safe series colours (src-shared/palette.ts owns them). */
export const SERIES_COLORS = PALETTE;

export function seriesColor(series: CategoryChartSeries, index: number): string {
  return series.color ?? SERIES_COLORS[index % SERIES_COLORS.length] ?? SERIES_COLORS[0];
}

/** The chart as a print figure: axis titles, legend, whiskers, value labels clear of the caps. */
export function categoryFigure(
  props: Pick<
    CategoryChartProps,
    'rows' | 'series' | 'metricLabel' | 'schemeLabel' | 'subject' | 'bootstrap'
  > & { title: string },
  options: FigureOptions,
): Scene {
  const { rows, series, metricLabel, schemeLabel, subject = 'final answers', bootstrap } = props;
  const whiskers = rows.some((r) => r.intervals);
  const caption = joinSentences(
    `${metricLabel} per category, mean over ${subject}; categories named by the ${schemeLabel} scheme.`,
    series.length > 1
      ? `Series: ${series.map((s) => s.label).join('; ')}.`
      : `Series: ${series[0]?.label ?? ''}.`,
    nSentence(
      'category',
      rows.map((r) => r.n),
    ),
    rows.some((r) => new Set(series.map((s) => r.ns[s.key] ?? 0)).size > 1)
      ? "n is the first series'; the runs answered different numbers of questions in some categories."
      : '',
    whiskers && bootstrap ? bootstrapSentence(bootstrap) : '',
  );
  return barFigure(
    {
      title: props.title,
      caption,
      yTitle: metricLabel,
      xTitle: `Category (${schemeLabel} names)`,
      series: series.map((s, i) => ({
        label: s.label,
        style: { ...seriesStyle(i), color: seriesColor(s, i) },
      })),
      groups: rows.map((r) => ({
        label: `${r.category} ${r.label}`,
        note: `n=${r.n}`,
        values: series.map((s) => ({
          value: r.values[s.key] ?? null,
          interval: r.intervals?.[s.key],
        })),
      })),
    },
    options,
  ).scene;
}

/**
 * The same chart: every prop the same, the series compared by what they draw (callers pass a
 * fresh array literal). A sort or filter of the answers below re-renders the run view, and
 * redrawing an unchanged chart took most of that render.
 */
function sameChart(a: CategoryChartProps, b: CategoryChartProps): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)] as Array<keyof CategoryChartProps>);
  return [...keys].every((key) =>
    key === 'series'
      ? a.series.length === b.series.length &&
        a.series.every(
          (s, i) =>
            s.key === b.series[i]?.key &&
            s.label === b.series[i]?.label &&
            s.color === b.series[i]?.color,
        )
      : Object.is(a[key], b[key]),
  );
}

/**
 * Per-category bar chart. It says what it shows (DESIGN §4, STYLE "Charts say what they show"):
 * the metric, the naming scheme and the answers in a caption, and n under every category name.
 * A visually hidden table carries the same numbers for screen readers.
 */
export const CategoryChart = memo(function CategoryChart({
  rows,
  series,
  metricLabel,
  schemeLabel,
  subject = 'final answers',
  height = 280,
  title,
  bootstrap,
  intervalsPending = false,
}: CategoryChartProps) {
  const name = title ?? `${metricLabel} per category`;
  const byTick = new Map(rows.map((r) => [categoryTickLabel(r), r]));
  const multi = series.length > 1;
  const drawn = useDrawnLater();
  const figure = useCallback(
    (options: FigureOptions) =>
      categoryFigure(
        { rows, series, metricLabel, schemeLabel, subject, bootstrap, title: name },
        options,
      ),
    [rows, series, metricLabel, schemeLabel, subject, bootstrap, name],
  );
  return (
    <figure className="category-chart" aria-label={name}>
      <div className="category-chart-plot" style={{ height }} aria-hidden="true">
        {drawn ? (
          <ResponsiveContainer width="100%" height="100%">
            {/* No keyboard layer: the plot is aria-hidden (the table below speaks for it), so it
              must not take a Tab stop either. */}
            <BarChart
              data={rows}
              margin={{ top: 22, right: 12, bottom: 8, left: 0 }}
              barGap={2}
              accessibilityLayer={false}
            >
              <CartesianGrid strokeDasharray="3 3" vertical={false} stroke={CHART_COLORS.grid} />
              <XAxis
                dataKey={(row: CategoryChartRow) => categoryTickLabel(row)}
                interval={0}
                height={44}
                tickLine={false}
                tick={CategoryTick}
              />
              <YAxis
                {...SCORE_AXIS}
                width={SCORE_AXIS.width + 16}
                axisLine={false}
                tickLine={false}
                label={{
                  value: metricLabel,
                  angle: -90,
                  position: 'insideLeft',
                  style: { textAnchor: 'middle', fontSize: 12, fill: CHART_COLORS.ink },
                }}
              />
              <Tooltip
                cursor={{ fill: 'rgb(47 111 222 / 6%)' }}
                content={(props) => (
                  <CategoryTooltip
                    row={
                      props.active && typeof props.label === 'string'
                        ? byTick.get(props.label)
                        : undefined
                    }
                    series={series}
                    metricLabel={metricLabel}
                  />
                )}
              />
              {multi ? (
                <Legend verticalAlign="top" height={28} iconType="square" formatter={legendText} />
              ) : null}
              {series.map((s, i) => (
                <Bar
                  key={s.key}
                  name={s.label}
                  dataKey={(row: CategoryChartRow) => row.values[s.key] ?? null}
                  fill={seriesColor(s, i)}
                  radius={[3, 3, 0, 0]}
                  maxBarSize={multi ? 36 : 64}
                  isAnimationActive={false}
                >
                  {/* The 95% interval as a whisker; the gap to the mean on each side, as recharts wants. */}
                  <ErrorBar
                    dataKey={(row: CategoryChartRow) => {
                      const ci = row.intervals?.[s.key];
                      const mean = row.values[s.key];
                      return ci && typeof mean === 'number' ? [mean - ci[0], ci[1] - mean] : [0, 0];
                    }}
                    width={6}
                    strokeWidth={1.5}
                    stroke={CHART_COLORS.ink}
                    direction="y"
                  />
                  <LabelList
                    content={(props) => (
                      <ValueLabel
                        x={Number(props.x)}
                        y={Number(props.y)}
                        width={Number(props.width)}
                        height={Number(props.height)}
                        value={props.value}
                        interval={
                          typeof props.index === 'number'
                            ? rows[props.index]?.intervals?.[s.key]
                            : undefined
                        }
                      />
                    )}
                  />
                </Bar>
              ))}
            </BarChart>
          </ResponsiveContainer>
        ) : null}
      </div>
      <figcaption className="chart-caption">
        <strong>{metricLabel}</strong> per category, mean over {subject}; categories named by the{' '}
        <strong>{schemeLabel}</strong> scheme; n = questions behind each bar
        {multi ? ' (first series; each series’ n in the tooltip)' : ''}
        {rows.some((r) => r.intervals) ? '; whiskers: 95% bootstrap interval of the mean' : ''}.
      </figcaption>
      <SaveFigure
        name={name}
        figure={figure}
        pending={intervalsPending ? 'Computing the intervals…' : null}
      />
      <table className="sr-only">
        <caption>{name}</caption>
        <thead>
          <tr>
            <th scope="col">Category</th>
            {series.map((s) => (
              <th key={s.key} scope="col">
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.category}>
              <th scope="row">{categoryTickLabel(r)}</th>
              {series.map((s) => (
                <td key={s.key}>{formatScore(r.values[s.key])}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}, sameChart);

interface TickProps {
  x?: number | string;
  y?: number | string;
  payload?: { value?: unknown };
}

/** Two lines: "1 multi-hop" and "(n=282)", so five categories fit a narrow card. */
function CategoryTick({ x = 0, y = 0, payload }: TickProps) {
  const text = typeof payload?.value === 'string' ? payload.value : '';
  const split = text.lastIndexOf(' (');
  const head = split > 0 ? text.slice(0, split) : text;
  const tail = split > 0 ? text.slice(split + 1) : '';
  return (
    <g transform={`translate(${x},${y})`}>
      <text className="category-tick" textAnchor="middle" fontSize={12} fill={CHART_COLORS.ink}>
        <tspan x={0} dy={14}>
          {head}
        </tspan>
        <tspan x={0} dy={15} fill={CHART_COLORS.muted}>
          {tail}
        </tspan>
      </text>
    </g>
  );
}

function CategoryTooltip({
  row,
  series,
  metricLabel,
}: {
  row: CategoryChartRow | undefined;
  series: CategoryChartSeries[];
  metricLabel: string;
}) {
  if (!row) return null;
  return (
    <div className="chart-tooltip">
      <div className="chart-tooltip-title">
        {row.category} {row.label}
      </div>
      {series.map((s, i) => (
        <div key={s.key} className="chart-tooltip-row">
          <span className="swatch" style={{ background: seriesColor(s, i) }} />
          {series.length > 1 ? `${s.label}: ` : `${metricLabel}: `}
          <strong>{formatScore(row.values[s.key])}</strong>
          <span className="muted"> (n={row.ns[s.key] ?? 0})</span>
        </div>
      ))}
    </div>
  );
}

/** A bar's value, drawn past its whisker's cap (valueLabelLift), or not at all if it cannot be. */
function ValueLabel({
  x,
  y,
  width,
  height,
  value,
  interval,
}: {
  x: number;
  y: number;
  width: number;
  height: number;
  value: unknown;
  interval: readonly [number, number] | undefined;
}) {
  if (typeof value !== 'number' || ![x, y, width, height].every(Number.isFinite)) return null;
  const lift = valueLabelLift(value, interval, height);
  if (lift === null) return null;
  return (
    <text
      x={x + width / 2}
      y={y - lift - 5}
      textAnchor="middle"
      fontSize={11}
      fill={CHART_COLORS.ink}
    >
      {value.toFixed(2)}
    </text>
  );
}
