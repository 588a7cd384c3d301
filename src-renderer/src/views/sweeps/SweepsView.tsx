import { useMemo } from 'react';
import { categoryLabel, schemeLabelOf } from '@shared/benchmarks';
import { isMetricId, meanAxisTitle, metricIds, metricList, metricOf } from '@shared/metrics';
import {
  HEAT_SCALE_BASES,
  axisValueLabel,
  heatPosition,
  heatScale,
  heatScaleEnd,
  heatScaleSentence,
  heatmapOf,
  type HeatCell,
  type HeatScale,
  type HeatScaleBasis,
  type Heatmap,
  type SweepCellRow,
  type SweepMetric,
} from '@shared/sweeps';
import { EmptyState } from '../../components/EmptyState/EmptyState';
import { ErrorView } from '../../components/ErrorView';
import { formatScore } from '../../components/charts/categoryRows';
import { SaveFigure } from '../../components/charts/SaveFigure';
import { heatmapFigure, joinSentences, type FigureOptions } from '../../components/charts/figure';
import { useApi } from '../../hooks/useApi';
import { useRoute } from '../../router';

/** Each registered metric's title (src-shared/metrics), by id. */
const METRIC_LABELS: Readonly<Record<SweepMetric, string>> = Object.fromEntries(
  metricList().map((m) => [m.id, m.title]),
);

/**
 * White to blue by where the value falls on the scale. The deepest blue is 35% accent: the cell's
 * link text keeps 4.6:1 on it in the light theme and 6.0:1 in the dark (at 80%, which the cells'
 * range gives its top cell, it was 2.3:1).
 */
function heatColor(value: number | null, scale: HeatScale): string {
  if (value === null) return 'transparent';
  const t = heatPosition(scale, value);
  return `rgba(47, 111, 222, ${(0.08 + 0.27 * t).toFixed(2)})`;
}

/** The colour scale choice as the picker names it, with its span for this heatmap. */
function scaleOption(scale: HeatScale): string {
  const span = `${heatScaleEnd(scale, scale.lo)}–${heatScaleEnd(scale, scale.hi)}`;
  return scale.basis === 'metric' ? `Metric's range (${span})` : `Cells' range (${span})`;
}

/** The heatmap as a print figure: a grey-safe ramp, axis titles, a colour scale with its title. */
function sweepFigure(
  heatmap: Heatmap,
  axes: {
    x: string | null;
    y: string | null;
    metricLabel: string;
    valueTitle: string;
    sweepName: string;
  },
  scale: HeatScale,
  options: FigureOptions,
) {
  const ns = heatmap.cells.map((c) => c.n);
  const title = `${axes.metricLabel}: ${axes.y ?? 'all'} × ${axes.x ?? 'all'}`;
  return heatmapFigure(
    {
      title,
      caption: joinSentences(
        `${title} (sweep ${axes.sweepName}): mean over every question of each run's final answers; other axes and repeats pooled.`,
        ns.length === 0
          ? ''
          : Math.min(...ns) === Math.max(...ns)
            ? `n = ${ns[0]} run${ns[0] === 1 ? '' : 's'} per cell.`
            : `n = ${Math.min(...ns)}–${Math.max(...ns)} runs per cell.`,
        heatScaleSentence(scale),
      ),
      xTitle: axes.x ?? 'all',
      yTitle: axes.y ?? 'all',
      valueTitle: axes.valueTitle,
      xs: heatmap.xs,
      ys: heatmap.ys,
      cell: (x, y) => heatmap.cells.find((c) => c.x === x && c.y === y),
      scale,
    },
    options,
  );
}

function heatTitle(cell: HeatCell, metric: string): string {
  if (cell.mean === null) return `${metric}: no value yet`;
  const ci = cell.ci ? `, 95% CI ${cell.ci[0].toFixed(3)}–${cell.ci[1].toFixed(3)}` : '';
  return `${metric} ${cell.mean.toFixed(3)} over ${cell.n} run${cell.n === 1 ? '' : 's'}${ci}`;
}

export function SweepsView() {
  const [route, navigate] = useRoute();
  const list = useApi('sweeps.list', {});
  const sweeps = list.data ?? [];
  const wanted = route.params.get('sweep');
  const sweepId = sweeps.some((s) => s.sweepId === wanted) ? wanted : (sweeps[0]?.sweepId ?? null);
  const detail = useApi('sweeps.get', sweepId === null ? null : { sweepId });
  const shown = detail.data && detail.data.sweepId === sweepId ? detail.data : undefined;
  const axes = shown?.axes ?? [];
  // Only the metrics some cell of this sweep has a value for: an offline LoCoMo sweep has no
  // judge or LongMemEval numbers to draw.
  const metrics = useMemo(
    () =>
      metricIds().filter((m) =>
        (shown?.cells ?? []).some((c) => c.metrics[m] !== null && c.metrics[m] !== undefined),
      ),
    [shown],
  );
  const metricParam = route.params.get('metric');
  const metric: SweepMetric =
    isMetricId(metricParam) && metrics.includes(metricParam) ? metricParam : 'officialF1';
  const pick = (name: string, fallback: string | null): string | null => {
    const v = route.params.get(name);
    return v !== null && axes.includes(v) ? v : fallback;
  };
  const xAxis = pick('x', axes[axes.length - 1] ?? null);
  const yAxis = pick('y', axes.length > 1 ? (axes[0] ?? null) : null);

  const setParam = (patch: Record<string, string | null>): void => {
    const next: Record<string, string> = {};
    const merged = {
      sweep: sweepId,
      x: xAxis,
      y: yAxis,
      metric,
      scale: scaleBasis === 'data' ? 'data' : null,
      ...patch,
    };
    for (const [k, v] of Object.entries(merged)) if (v !== null) next[k] = v;
    navigate('sweeps', next);
  };

  const heatmap = useMemo(
    () => (shown ? heatmapOf(shown.cells, xAxis, yAxis, metric) : null),
    [shown, xAxis, yAxis, metric],
  );
  // The metric's full range unless the cells' own range is asked for (`scale=data`).
  const scaleBasis: HeatScaleBasis = route.params.get('scale') === 'data' ? 'data' : 'metric';
  const scaleOf = (basis: HeatScaleBasis): HeatScale | null =>
    heatmap ? heatScale(heatmap, basis, metricOf(metric).range) : null;
  const scale = scaleOf(scaleBasis);
  const base = shown?.cells.find((c) => c.cellIndex === 0) ?? shown?.cells[0];
  const best = useMemo(() => {
    if (!shown) return [];
    return shown.benchmark.categories.map(({ id: c }) => {
      let top: SweepCellRow | null = null;
      for (const cell of shown.cells) {
        const v = cell.byCategory[String(c)];
        if (v === null || v === undefined) continue;
        if (top === null || v > (top.byCategory[String(c)] ?? -1)) top = cell;
      }
      return { category: c, cell: top };
    });
  }, [shown]);

  const openRun = (runId: string): void => navigate('runs', { run: runId });

  return (
    <section className="sweeps-view" aria-labelledby="view-title">
      <header className="view-header">
        <h1 id="view-title">Sweeps</h1>
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </header>
      {list.error ? <ErrorView error={list.error} title="Could not list sweeps" /> : null}
      {detail.error ? <ErrorView error={detail.error} title="Could not read the sweep" /> : null}
      {list.data !== undefined && sweeps.length === 0 ? (
        <EmptyState title="No sweeps yet.">
          Run one from the command line: <code>npm run -s cli -- sweep run spec.yaml</code>
        </EmptyState>
      ) : null}
      {sweeps.length > 0 ? (
        <div className="panel sweep-controls">
          <label>
            Sweep{' '}
            <select
              value={sweepId ?? ''}
              onChange={(e) => setParam({ sweep: e.target.value, x: null, y: null })}
            >
              {sweeps.map((s) => (
                <option key={s.sweepId} value={s.sweepId}>
                  {s.name} ({s.completed}/{s.runs} runs completed) · {s.sweepId}
                </option>
              ))}
            </select>
          </label>{' '}
          <label>
            Metric{' '}
            <select value={metric} onChange={(e) => setParam({ metric: e.target.value })}>
              {(metrics.length > 0 ? metrics : [metric]).map((m) => (
                <option key={m} value={m}>
                  {METRIC_LABELS[m]}
                </option>
              ))}
            </select>
          </label>{' '}
          <label>
            Columns{' '}
            <select value={xAxis ?? ''} onChange={(e) => setParam({ x: e.target.value || null })}>
              <option value="">(all pooled)</option>
              {axes.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          </label>{' '}
          <label>
            Rows{' '}
            <select value={yAxis ?? ''} onChange={(e) => setParam({ y: e.target.value || null })}>
              <option value="">(all pooled)</option>
              {axes.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          </label>
        </div>
      ) : null}

      {shown && heatmap && scale ? (
        <div className="panel">
          <h2>
            {METRIC_LABELS[metric]}: {yAxis ?? 'all'} × {xAxis ?? 'all'}
          </h2>
          <p className="muted">
            Mean over every question of each run's final answers; other axes and repeats pooled
            (hover for n and the 95% interval over runs). Click a cell to open its run.{' '}
            <span role="note">{heatScaleSentence(scale)}</span>
          </p>
          <label>
            Colour scale{' '}
            <select
              value={scaleBasis}
              onChange={(e) => setParam({ scale: e.target.value === 'data' ? 'data' : null })}
            >
              {HEAT_SCALE_BASES.map((basis) => {
                const option = scaleOf(basis);
                return option ? (
                  <option key={basis} value={basis}>
                    {scaleOption(option)}
                  </option>
                ) : null;
              })}
            </select>
          </label>
          <table className="sweep-heatmap" aria-label="Sweep heatmap">
            <thead>
              <tr>
                <th scope="col">{yAxis ?? ''}</th>
                {heatmap.xs.map((x) => (
                  <th key={x} scope="col">
                    {x}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {heatmap.ys.map((y) => (
                <tr key={y}>
                  <th scope="row">{y}</th>
                  {heatmap.xs.map((x) => {
                    const cell = heatmap.cells.find((c) => c.x === x && c.y === y);
                    const runId = cell?.runIds[0];
                    return (
                      <td
                        key={x}
                        title={cell ? heatTitle(cell, METRIC_LABELS[metric]) : undefined}
                        style={{
                          background: heatColor(cell?.mean ?? null, scale),
                          textAlign: 'center',
                        }}
                      >
                        {runId ? (
                          <button
                            type="button"
                            className="link-button"
                            onClick={() => openRun(runId)}
                          >
                            {formatScore(cell?.mean)}
                          </button>
                        ) : (
                          formatScore(cell?.mean)
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
          <SaveFigure
            name={`Sweep heatmap ${METRIC_LABELS[metric]}`}
            figure={(options) =>
              sweepFigure(
                heatmap,
                {
                  x: xAxis,
                  y: yAxis,
                  metricLabel: METRIC_LABELS[metric],
                  valueTitle: meanAxisTitle(metric),
                  sweepName: shown.name,
                },
                scale,
                options,
              )
            }
          />
        </div>
      ) : null}

      {shown ? (
        <div className="panel">
          <h2>Best cell per category (official F1, {schemeLabelOf(shown.benchmark)} names)</h2>
          <ul>
            {best.map(({ category, cell }) => (
              <li key={category}>
                {categoryLabel(shown.benchmark, category)}:{' '}
                {cell ? `${cell.cellKey} (${formatScore(cell.byCategory[String(category)])})` : '–'}
              </li>
            ))}
          </ul>
        </div>
      ) : null}

      {shown ? (
        <div className="panel table-scroll">
          <table className="runs-table" aria-label="Sweep cells">
            <thead>
              <tr>
                <th scope="col">#</th>
                {axes.map((a) => (
                  <th key={a} scope="col">
                    {a}
                  </th>
                ))}
                <th scope="col">repeat</th>
                <th scope="col">status</th>
                <th scope="col">{METRIC_LABELS[metric]}</th>
                <th scope="col">questions</th>
                <th scope="col">run</th>
              </tr>
            </thead>
            <tbody>
              {shown.cells.map((c) => (
                <tr key={c.runId}>
                  <td>{c.cellIndex + 1}</td>
                  {axes.map((a) => (
                    <td key={a}>{c.values[a] === undefined ? '' : axisValueLabel(c.values[a])}</td>
                  ))}
                  <td>{c.repeat}</td>
                  <td>{c.status}</td>
                  <td>{formatScore(c.metrics[metric])}</td>
                  <td>{c.questions}</td>
                  <td>
                    <button type="button" className="link-button" onClick={() => openRun(c.runId)}>
                      Open run
                    </button>
                    {base && base.runId !== c.runId ? (
                      <>
                        {' · '}
                        <button
                          type="button"
                          className="link-button"
                          onClick={() =>
                            navigate('compare', {
                              runs: `${base.runId},${c.runId}`,
                              baseline: base.runId,
                            })
                          }
                        >
                          Compare with cell 1
                        </button>
                      </>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
