import type { Sample } from './dataset/types';
import type { CurvePoint } from './experiment';
import type { MetricId } from './metrics';
import { TABLE2_HEADER, TABLE2_NOTE, table2Cells } from './table2';
import type { Table2Columns } from './compare';

/**
 * What both HTML reports are made of. The charts are inline SVG (no script, no font or image to fetch): bars with their
 * 95% interval as a whisker, curves with both axes titled and a legend. A value label sits past
 * the end of its whisker, never on it.
 */

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * The dataset a report read beside the runs DB (core/runs/reportInputs.ts): the samples it needs,
 * or why there are none (moved, changed since the run, unreadable).
 */
export interface ReportDataset {
  samples: ReadonlyMap<string, Sample>;
  note: string | null;
}

/**
 * A question's gold as the dataset has it: the answer, or for an adversarial question (no answer)
 * the tempting wrong one the file gives as `adversarial_answer`, which a correct run declines.
 */
export function goldHtml(
  gold: string | null,
  question: { sampleId: string; questionIndex: number },
  dataset: ReportDataset | null,
): string {
  if (gold !== null) return escapeHtml(gold);
  const qa = dataset?.samples
    .get(question.sampleId)
    ?.qa.find((q) => q.index === question.questionIndex);
  if (qa?.adversarialAnswer)
    return `<span class="adversarial">adversarial_answer: “${escapeHtml(qa.adversarialAnswer)}” <span class="ci">(no answer; correct when the run says it is not mentioned)</span></span>`;
  const why = dataset?.note ? `: ${escapeHtml(dataset.note)}` : '';
  return `<span class="ci">no gold answer (adversarial; the dataset's adversarial_answer is not available${why})</span>`;
}

/** Mem0 Table 2's latency and token columns, one row per run. */
export function table2Section(
  runs: ReadonlyArray<{ label: string; columns: Table2Columns }>,
): string {
  const rows = runs.map(
    (r) =>
      `<tr><th scope="row">${escapeHtml(r.label)}</th>${table2Cells(r.columns)
        .map((c) => `<td>${escapeHtml(c)}</td>`)
        .join('')}</tr>`,
  );
  return `<section aria-label="Mem0 Table 2 columns"><h2>Mem0 Table 2 columns</h2>
<table><thead><tr><th>run</th>${TABLE2_HEADER.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>
<p class="meta">${escapeHtml(TABLE2_NOTE)}</p></section>`;
}

/** LaTeX tables to copy, each in a block of its own. */
export function latexSection(tables: ReadonlyArray<{ title: string; tex: string }>): string {
  const blocks = tables
    .map((t) => `<h3>${escapeHtml(t.title)}</h3><pre class="latex">${escapeHtml(t.tex)}</pre>`)
    .join('');
  return `<section aria-label="LaTeX"><h2>Tables as LaTeX <small>(booktabs; each fits one column)</small></h2>${blocks}</section>`;
}

export const num = (value: number | null | undefined): string =>
  value === null || value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(3);

/** A mean with its 95% interval: "[low, high]" reads as the interval, the mean stands before it. */
export interface MeanInterval {
  mean: number | null;
  low: number | null;
  high: number | null;
  n: number;
}

export interface LegendEntry {
  label: string;
  color: string;
}

export interface BarGroup {
  label: string;
  /** One bar per series (run), in the legend's order. */
  bars: ReadonlyArray<MeanInterval & { color: string }>;
}

const SCORE_TICKS = [0, 0.25, 0.5, 0.75, 1];
const LABEL_WIDTH = 170;
const PLOT_WIDTH = 330;
const BAR_HEIGHT = 13;
const BAR_GAP = 3;
const GROUP_GAP = 10;

const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));

/** The legend under a chart: a swatch and a label per series, one a line, so none is cut. */
const LEGEND_LINE = 16;
function legendSvg(entries: readonly LegendEntry[], y: number, x: number): string {
  return entries
    .map((e, i) => {
      const top = y + i * LEGEND_LINE;
      return `<g class="legend-item"><rect x="${x}" y="${top - 9}" width="10" height="10" fill="${e.color}"/><text x="${x + 14}" y="${top}">${escapeHtml(e.label)}</text></g>`;
    })
    .join('');
}

/** Room for the legend's lines and the longest label (about 6.5 px a character at 11 px). */
const legendHeight = (entries: readonly LegendEntry[]): number => entries.length * LEGEND_LINE;
const legendWidth = (entries: readonly LegendEntry[]): number =>
  Math.max(0, ...entries.map((e) => 24 + e.label.length * 6.5));

/**
 * Horizontal bars per category, one per series, each with its interval as a whisker with caps;
 * the score axis has ticks, a title, and a legend says which colour is which run.
 */
export function barChart(
  groups: readonly BarGroup[],
  options: { title: string; axisTitle: string; legend: readonly LegendEntry[] },
): string {
  const x = (v: number): number => LABEL_WIDTH + clamp01(v) * PLOT_WIDTH;
  let y = 8;
  const body: string[] = [];
  for (const group of groups) {
    const height = group.bars.length * (BAR_HEIGHT + BAR_GAP);
    body.push(
      `<text class="category" x="0" y="${(y + height / 2 + 4).toFixed(1)}">${escapeHtml(group.label)}</text>`,
    );
    for (const bar of group.bars) {
      const top = y;
      const mid = top + BAR_HEIGHT / 2;
      const end = bar.mean === null ? LABEL_WIDTH : x(bar.mean);
      body.push(
        `<rect class="bar" x="${LABEL_WIDTH}" y="${top}" width="${(end - LABEL_WIDTH).toFixed(1)}" height="${BAR_HEIGHT}" fill="${bar.color}"/>`,
      );
      let labelX = end + 4;
      if (bar.low !== null && bar.high !== null && bar.n > 1) {
        const lo = x(bar.low);
        const hi = x(bar.high);
        body.push(
          `<g class="whisker" stroke="#1d2330" stroke-width="1.2"><line x1="${lo.toFixed(1)}" y1="${mid}" x2="${hi.toFixed(1)}" y2="${mid}"/><line x1="${lo.toFixed(1)}" y1="${mid - 4}" x2="${lo.toFixed(1)}" y2="${mid + 4}"/><line x1="${hi.toFixed(1)}" y1="${mid - 4}" x2="${hi.toFixed(1)}" y2="${mid + 4}"/></g>`,
        );
        labelX = Math.max(labelX, hi + 4);
      }
      body.push(
        `<text class="value" x="${labelX.toFixed(1)}" y="${mid + 4}">${num(bar.mean)}</text>`,
      );
      y += BAR_HEIGHT + BAR_GAP;
    }
    y += GROUP_GAP;
  }
  const axisY = y;
  const ticks = SCORE_TICKS.map(
    (t) =>
      `<line x1="${x(t)}" y1="${axisY}" x2="${x(t)}" y2="${axisY + 4}" stroke="#777"/><text class="tick" x="${x(t)}" y="${axisY + 16}" text-anchor="middle">${t}</text>`,
  ).join('');
  const axis = `<line x1="${LABEL_WIDTH}" y1="${axisY}" x2="${LABEL_WIDTH + PLOT_WIDTH}" y2="${axisY}" stroke="#777"/>${ticks}<text class="axis-title" x="${LABEL_WIDTH + PLOT_WIDTH / 2}" y="${axisY + 32}" text-anchor="middle">${escapeHtml(options.axisTitle)}</text><text class="axis-title" x="0" y="${axisY + 32}">category</text>`;
  const legend = legendSvg(options.legend, axisY + 52, LABEL_WIDTH);
  const width = Math.max(LABEL_WIDTH + PLOT_WIDTH + 60, LABEL_WIDTH + legendWidth(options.legend));
  const height = axisY + 48 + legendHeight(options.legend);
  return `<figure><svg role="img" aria-label="${escapeHtml(options.title)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-size="11" font-family="sans-serif">${body.join('')}${axis}${legend}</svg><figcaption>${escapeHtml(options.title)}</figcaption></figure>`;
}

export interface CurveSeries {
  label: string;
  color: string;
  /** y per test index (1-based test number on x). */
  points: ReadonlyArray<{ test: number; value: number }>;
}

/**
 * The per-test mean of one metric over a run's samples, by test index: samples differ in length,
 * so a test index stands for "the k-th tenth of the questions became visible". The Runs view's
 * curve averages samples the same way when it draws one line (views/runs meanCurveByTest).
 */
export function meanByTest(
  curve: readonly CurvePoint[],
  metric: MetricId,
): Array<{ test: number; value: number }> {
  const byTest = new Map<number, number[]>();
  for (const p of curve) {
    const value = p.means[metric];
    if (value === null || value === undefined) continue;
    const list = byTest.get(p.testIndex) ?? [];
    list.push(value);
    byTest.set(p.testIndex, list);
  }
  return [...byTest.entries()]
    .sort(([a], [b]) => a - b)
    .map(([test, values]) => ({
      test: test + 1,
      value: values.reduce((s, v) => s + v, 0) / values.length,
    }));
}

/** Lines over the run's tests: titled axes with ticks and a legend naming each line. */
export function curveChart(
  series: readonly CurveSeries[],
  options: { title: string; xTitle: string; yTitle: string },
): string {
  const drawn = series.filter((s) => s.points.length > 0);
  if (drawn.length === 0) return '<p>No curve points.</p>';
  const left = 56;
  const top = 12;
  const plotW = 480;
  const plotH = 160;
  const maxTest = Math.max(2, ...drawn.flatMap((s) => s.points.map((p) => p.test)));
  const px = (test: number): number => left + ((test - 1) / (maxTest - 1)) * plotW;
  const py = (v: number): number => top + (1 - clamp01(v)) * plotH;
  const yTicks = SCORE_TICKS.map(
    (t) =>
      `<line x1="${left - 4}" y1="${py(t)}" x2="${left + plotW}" y2="${py(t)}" stroke="#e3e6ec"/><text class="tick" x="${left - 7}" y="${py(t) + 4}" text-anchor="end">${t}</text>`,
  ).join('');
  const xTicks = [...new Set([1, Math.ceil(maxTest / 2), maxTest])]
    .map(
      (t) =>
        `<line x1="${px(t)}" y1="${top + plotH}" x2="${px(t)}" y2="${top + plotH + 4}" stroke="#777"/><text class="tick" x="${px(t)}" y="${top + plotH + 16}" text-anchor="middle">${t}</text>`,
    )
    .join('');
  const lines = drawn
    .map((s) => {
      const points = s.points.map((p) => `${px(p.test).toFixed(1)},${py(p.value).toFixed(1)}`);
      const dots = s.points
        .map(
          (p) =>
            `<circle cx="${px(p.test).toFixed(1)}" cy="${py(p.value).toFixed(1)}" r="2.5" fill="${s.color}"/>`,
        )
        .join('');
      return `<g class="series" data-label="${escapeHtml(s.label)}"><polyline points="${points.join(' ')}" fill="none" stroke="${s.color}" stroke-width="2"/>${dots}</g>`;
    })
    .join('');
  const axes = `<line x1="${left}" y1="${top + plotH}" x2="${left + plotW}" y2="${top + plotH}" stroke="#777"/><line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotH}" stroke="#777"/>`;
  const titles = `<text class="axis-title" x="${left + plotW / 2}" y="${top + plotH + 34}" text-anchor="middle">${escapeHtml(options.xTitle)}</text><text class="axis-title" transform="translate(14 ${top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(options.yTitle)}</text>`;
  const legendY = top + plotH + 56;
  const entries = drawn.map((s) => ({ label: s.label, color: s.color }));
  const legend = legendSvg(entries, legendY, left);
  const width = Math.max(left + plotW + 30, left + legendWidth(entries));
  const height = legendY - 6 + legendHeight(entries);
  return `<figure><svg role="img" aria-label="${escapeHtml(options.title)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-size="11" font-family="sans-serif">${yTicks}${axes}${xTicks}${lines}${titles}${legend}</svg><figcaption>${escapeHtml(options.title)}</figcaption></figure>`;
}

export const REPORT_CSS = `body{font-family:system-ui,sans-serif;margin:2rem;color:#1d2330;max-width:1100px}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}h3{font-size:1rem}.meta{color:#555}
.stats{display:flex;gap:1rem;flex-wrap:wrap}.stat{border:1px solid #d6dae3;border-radius:6px;padding:.6rem 1rem}
.stat .label{color:#555;font-size:.85rem}.stat .value{font-size:1.4rem;font-weight:600}.stat .ci{font-size:.8rem;color:#555}
table{border-collapse:collapse;margin:.5rem 0}th,td{border-bottom:1px solid #e3e6ec;padding:.3rem .6rem;text-align:left;vertical-align:top}
td{font-variant-numeric:tabular-nums}pre{background:#f4f5f8;padding:1rem;overflow:auto;font-size:.8rem}
.ci{color:#555;font-size:.85em}.swatch{display:inline-block;width:.8em;height:.8em;border-radius:2px;margin-right:.3em;vertical-align:baseline}
.explain{border:1px solid #e3e6ec;border-radius:6px;padding:.5rem 1rem;margin:.8rem 0}.explain summary{cursor:pointer}
.sides{display:grid;gap:1rem}.side{min-width:0;overflow-wrap:break-word}.missed{color:#a33}.hit{color:#276a2b}
.up{color:#276a2b}.down{color:#a33}ol.retrieved{padding-left:1.6rem;font-size:.85rem}ol.retrieved .evidence{font-weight:600}
.manifest-values td{max-width:28rem;overflow-wrap:anywhere}`;
