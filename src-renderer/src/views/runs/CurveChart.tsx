import { meanAxisTitle } from '@shared/metrics';
import { CHART_COLORS, SCORE_AXIS, legendText } from '../../components/charts/chartColors';
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { memo, useCallback } from 'react';
import { seriesStyle, type SeriesStyle } from '@shared/palette';
import { SaveFigure } from '../../components/charts/SaveFigure';
import {
  curveFigure,
  joinSentences,
  niceTicks,
  type FigureOptions,
} from '../../components/charts/figure';
import { useDrawnLater } from '../../components/charts/drawLater';
import { formatScore } from '../../components/charts/categoryRows';
import type { CurveLinePoint, CurveView } from './shape';

const FIGURE_TITLE = 'Accuracy as the conversation grows';

/** What n is at each point, its range over the drawn points, for a saved figure's caption. */
function nRange(view: CurveView): string {
  const ns = view.lines.flatMap((l) => l.points.map((p) => p.n));
  if (ns.length === 0) return '';
  const [lo, hi] = [Math.min(...ns), Math.max(...ns)];
  const what = view.x === 'dialogs' ? 'questions visible at that test' : 'samples averaged';
  return `n = ${lo === hi ? lo : `${lo}–${hi}`} per point (${what}).`;
}

/**
 * Accuracy as the conversation grows: per-test means (every question visible at that test, not
 * only final answers), so it is a different population from the headline and says so.
 */
// Memoised: the run view re-renders on every sort or filter of its answers; the curve is the same.
export const CurveChart = memo(function CurveChart({ view }: { view: CurveView }) {
  const xLabel = view.x === 'dialogs' ? 'dialogs inserted' : 'test # (samples averaged)';
  const lines = view.lines.flatMap((line, i) =>
    view.metrics.map((metric) => ({
      key: `${line.key}:${metric}`,
      name:
        view.lines.length > 1
          ? `${line.label}${view.metrics.length > 1 ? ` · ${meanAxisTitle(metric)}` : ''}`
          : meanAxisTitle(metric),
      metric,
      points: line.points,
      // One style per metric for a single line; a colour and a dash per sample when there
      // are several (ten samples stay ten distinguishable lines).
      style: (view.lines.length > 1
        ? seriesStyle(i)
        : seriesStyle(view.metrics.indexOf(metric) * 2)) satisfies SeriesStyle,
    })),
  );
  // The saved figure's ticks (niceTicks): 4 to 6 round ones, not recharts' two or three.
  const xs = view.lines.flatMap((line) => line.points.map((p) => p.x));
  const xTicks =
    xs.length > 0 ? niceTicks(Math.min(...xs), Math.max(...xs), { integer: true }) : [];
  const drawn = useDrawnLater();
  const figure = useCallback(
    (options: FigureOptions) =>
      curveFigure(
        {
          title: FIGURE_TITLE,
          caption: joinSentences(
            `${FIGURE_TITLE}: per-test means over every question visible at that test (re-asked each time), by ${xLabel}; not pooled into the headline, which uses final answers only.`,
            nRange(view),
            'No intervals drawn.',
          ),
          yTitle: view.metrics.map(meanAxisTitle).join(' / '),
          xTitle: xLabel,
          lines: lines.map((l) => ({
            label: l.name,
            style: l.style,
            points: l.points.map((p) => [p.x, p[l.metric]] as const),
          })),
        },
        options,
      ),
    [lines, view, xLabel],
  );
  return (
    <figure className="curve-chart" aria-label="Accuracy as the conversation grows">
      <div className="curve-plot" aria-hidden="true">
        {drawn ? (
          <ResponsiveContainer width="100%" height="100%">
            {/* aria-hidden above, so no Tab stop either (recharts' keyboard layer is on by default). */}
            <LineChart
              // Room right of the plot for half the last tick's label, so it is never clipped.
              margin={{ top: 8, right: 24, bottom: 18, left: 0 }}
              accessibilityLayer={false}
            >
              <CartesianGrid strokeDasharray="3 3" stroke={CHART_COLORS.grid} />
              <XAxis
                type="number"
                dataKey="x"
                domain={['dataMin', 'dataMax']}
                ticks={xTicks.length > 0 ? xTicks : undefined}
                allowDecimals={false}
                tick={{ fontSize: 12, fill: CHART_COLORS.muted }}
                label={{
                  value: xLabel,
                  position: 'insideBottom',
                  offset: -10,
                  fontSize: 12,
                  fill: CHART_COLORS.muted,
                }}
              />
              <YAxis
                {...SCORE_AXIS}
                width={SCORE_AXIS.width + 16}
                label={{
                  value: view.metrics.map(meanAxisTitle).join(' / '),
                  angle: -90,
                  position: 'insideLeft',
                  style: { textAnchor: 'middle', fontSize: 12, fill: CHART_COLORS.ink },
                }}
              />
              <Tooltip
                formatter={(value, name) => [
                  typeof value === 'number' ? formatScore(value) : '–',
                  name,
                ]}
                labelFormatter={(label) => `${xLabel}: ${String(label)}`}
              />
              {/* Plain lines, wide enough to show each sample's dash pattern, not just its colour. */}
              <Legend
                verticalAlign="top"
                height={28}
                iconType="plainline"
                iconSize={24}
                formatter={legendText}
              />
              {lines.map((l) => (
                <Line
                  key={l.key}
                  data={l.points}
                  dataKey={(p: CurveLinePoint) => p[l.metric]}
                  name={l.name}
                  stroke={l.style.color}
                  strokeWidth={2}
                  strokeDasharray={l.style.dash}
                  dot={{ r: 3 }}
                  connectNulls
                  isAnimationActive={false}
                />
              ))}
            </LineChart>
          </ResponsiveContainer>
        ) : null}
      </div>
      <figcaption className="chart-caption">
        Per-test means over every question visible at that test (re-asked each time), by{' '}
        {view.x === 'dialogs'
          ? 'dialogs inserted so far'
          : 'test index, averaged across samples (samples differ in length)'}
        . These are not pooled into the headline, which uses final answers only.
      </figcaption>
      <SaveFigure name={FIGURE_TITLE} figure={figure} />
    </figure>
  );
});
