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
import { memo, useRef } from 'react';
import { SERIES_COLORS } from '../../components/charts/CategoryChart';
import { SaveFigure } from '../../components/charts/SaveFigure';
import { useDrawnLater } from '../../components/charts/drawLater';
import { lineStyle } from '../../components/charts/lineStyles';
import { METRIC_LABELS, formatScore, type ChartMetric } from '../../components/charts/categoryRows';
import type { CurveLinePoint, CurveView } from './shape';

const metricName = (metric: ChartMetric): string => `mean ${METRIC_LABELS[metric]}`;

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
          ? `${line.label}${view.metrics.length > 1 ? ` · ${metricName(metric)}` : ''}`
          : metricName(metric),
      metric,
      points: line.points,
      // One colour per metric for a single line; a colour and a dash per sample when there
      // are several (ten samples stay ten distinguishable lines).
      ...(view.lines.length > 1
        ? lineStyle(i)
        : {
            color: metric === 'evidenceRecall' ? SERIES_COLORS[2] : SERIES_COLORS[0],
            dash: undefined,
          }),
    })),
  );
  const plot = useRef<HTMLDivElement>(null);
  const drawn = useDrawnLater();
  return (
    <figure className="curve-chart" aria-label="Accuracy as the conversation grows">
      <div ref={plot} className="curve-plot" aria-hidden="true">
        {drawn ? (
          <ResponsiveContainer width="100%" height="100%">
            {/* aria-hidden above, so no Tab stop either (recharts' keyboard layer is on by default). */}
            <LineChart
              margin={{ top: 8, right: 16, bottom: 18, left: 0 }}
              accessibilityLayer={false}
            >
              <CartesianGrid strokeDasharray="3 3" stroke={CHART_COLORS.grid} />
              <XAxis
                type="number"
                dataKey="x"
                domain={['dataMin', 'dataMax']}
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
              <YAxis {...SCORE_AXIS} />
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
                  stroke={l.color}
                  strokeWidth={2}
                  strokeDasharray={l.dash}
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
      <SaveFigure plot={plot} name="Accuracy as the conversation grows" />
    </figure>
  );
});
