import { categoryLabel, schemeLabelOf } from './benchmarks';
import type { RunComparisonResult, RunDetail } from './api';
import { scoreOf, table2Columns, type CompareRow, type Table2Columns } from './compare';
import { rankingDepthFootnotes, rankingDepthLabel, type AnswerRecord } from './experiment';
import { metricList, metricOf } from './metrics';
import { runColor, runLetter } from './runPalette';
import { bootstrapMeanCI } from './scoring/stats';
import { judgeColumnNames, judgeLabel } from './judges';
import { formatInterval, measuredErrorText, type JudgePanel } from './judgePanel';
import { TABLE2_HEADER, TABLE2_NOTE, table2Cells } from './table2';

/**
 * One self-contained HTML file of a run (issue 26 item 5): inline CSS, charts as inline SVG, no
 * script and no external URL, so it opens offline in any browser. Every string from a run (its
 * name, predictions, the manifest) is escaped: a report is shared, and a prediction is model text.
 */
export function runReportHtml(
  detail: Pick<RunDetail, 'info' | 'summary' | 'benchmark' | 'curve' | 'judgePanel'>,
  answers: readonly AnswerRecord[],
  scheme: string,
): string {
  const { info, summary, benchmark } = detail;
  const title = info.name === '' ? `${info.preset} · ${info.id}` : `${info.name} (${info.id})`;
  const metrics = metricList().filter(
    (m) => !m.hideWhenEmpty || (summary.overall.all[m.id]?.n ?? 0) > 0,
  );
  const headline = metrics.map((m) => {
    const scores = answers.map((a) => scoreOf(a, m.id)).filter((s): s is number => s !== null);
    // The same percentile bootstrap interval the run view's headline shows (scoreIntervals).
    const ci = bootstrapMeanCI(scores);
    const mean = summary.overall.all[m.id]?.mean ?? null;
    return `<div class="stat"><div class="label">${escapeHtml(rankingDepthLabel(m.label, m, summary))}</div><div class="value">${num(mean)}</div><div class="ci">${ci.n > 0 ? `95% CI ${num(ci.low)}–${num(ci.high)}` : 'no scores'} · n ${ci.n}</div></div>`;
  });
  const rows = benchmark.categories.map((c) => {
    const pair = summary.byCategory[c.id];
    return `<tr><th scope="row">${c.id} ${escapeHtml(categoryLabel(benchmark, c.id, scheme))}</th>${metrics.map((m) => `<td>${num(pair?.[m.id]?.mean ?? null)}</td>`).join('')}<td>${pair?.[metrics[0]?.id ?? '']?.n ?? 0}</td></tr>`;
  });
  // Headline and table marks (≥ lower bound, ? not recorded) explained once, under the table.
  const depthNotes = rankingDepthFootnotes(metrics, summary)
    .map((note) => `<p class="note">${escapeHtml(note)}</p>\n`)
    .join('');
  const firstMetric = metrics[0];
  const bars = firstMetric
    ? barChart(
        benchmark.categories.map((c) => ({
          label: `${c.id} ${categoryLabel(benchmark, c.id, scheme)}`,
          value: summary.byCategory[c.id]?.[firstMetric.id]?.mean ?? null,
        })),
        `${firstMetric.label} per category`,
      )
    : '';
  const curve = firstMetric
    ? curveChart(
        detail.curve.map((p) => p.means[firstMetric.id] ?? null),
        `${firstMetric.label} over the run's tests`,
      )
    : '';
  const wrong = answers
    .filter((a) => firstMetric !== undefined && (scoreOf(a, firstMetric.id) ?? 1) < 0.5)
    .slice(0, 50)
    .map(
      (a) =>
        `<tr><td>${escapeHtml(a.sampleId)} #${a.questionIndex}</td><td>${escapeHtml(a.question)}</td><td>${escapeHtml(a.gold ?? '')}</td><td>${escapeHtml(a.prediction)}</td></tr>`,
    );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>${CSS}</style></head><body>
<h1>${escapeHtml(title)}</h1>
<p class="meta">${escapeHtml(info.preset)} · ${escapeHtml(info.status)} · ${summary.questions} questions · ${summary.errors} errors</p>
<section aria-label="Headline"><h2>Headline</h2><div class="stats">${headline.join('')}</div></section>
${judgePanelHtml(detail.judgePanel)}<section aria-label="Per category"><h2>Per category <small>(${escapeHtml(schemeLabelOf(benchmark, scheme))} category names)</small></h2>
<table><thead><tr><th>category</th>${metrics.map((m) => `<th>${escapeHtml(rankingDepthLabel(m.label, m, summary))}</th>`).join('')}<th>n</th></tr></thead><tbody>${rows.join('')}</tbody></table>
${depthNotes}${bars}</section>
${table2Section([{ label: title, columns: table2Columns(info.manifest.usage?.memory, answers) }])}
<section aria-label="Curve"><h2>Curve</h2>${curve}</section>
<section aria-label="Answers scored below 0.5"><h2>Answers scored below 0.5${firstMetric ? ` (${escapeHtml(firstMetric.label)}, first 50)` : ''}</h2>
<table><thead><tr><th>question</th><th>text</th><th>gold</th><th>prediction</th></tr></thead><tbody>${wrong.join('')}</tbody></table></section>
<section aria-label="Manifest"><h2>Manifest</h2><pre>${escapeHtml(JSON.stringify(info.manifest, null, 2))}</pre></section>
</body></html>
`;
}

/**
 * One self-contained HTML file of a comparison (`runs.compare`): per category each run's mean and
 * the delta to the baseline with its paired bootstrap interval, a bar chart of the means, the
 * questions that flipped with every run's prediction and score, and how the configs differ.
 */
export function compareReportHtml(result: RunComparisonResult): string {
  const { comparison } = result;
  const profile = result.benchmark;
  const metric = metricOf(comparison.metric).label;
  // Lettered as the Compare view letters them, so a bar's "B" names a column of the tables.
  const labels = comparison.runs.map((r, i) => `${runLetter(i)} · ${r.label}`);
  const title = `Comparison: ${labels.join(' vs ')}`;
  const categoryName = (id: number | null): string =>
    id === null ? 'overall' : `${id} ${categoryLabel(profile, id, 'official')}`;
  const rows = comparison.categories.map(
    (c) =>
      `<tr><th scope="row">${escapeHtml(categoryName(c.category))}</th>${c.perRun
        .map((m, i) => {
          const delta = c.deltas[i];
          const ci =
            delta && delta.n > 0
              ? ` <span class="ci">Δ ${signed(delta.meanDiff)} [${signed(delta.low)}, ${signed(delta.high)}]</span>`
              : '';
          return `<td>${num(m.mean)} (n ${m.n})${ci}</td>`;
        })
        .join('')}</tr>`,
  );
  const overall = comparison.categories.find((c) => c.category === null);
  const headline = labels.map((label, i) => {
    const delta = overall?.deltas[i];
    return `<div class="stat"><div class="label">${escapeHtml(label)}</div><div class="value">${num(overall?.perRun[i]?.mean ?? null)}</div><div class="ci">${i === comparison.baselineIndex ? 'baseline' : delta && delta.n > 0 ? `Δ ${signed(delta.meanDiff)}, 95% CI [${signed(delta.low)}, ${signed(delta.high)}]` : 'no shared questions'}</div></div>`;
  });
  const bars = barChart(
    comparison.categories
      .filter((c) => c.category !== null)
      .flatMap((c) =>
        c.perRun.map((m, i) => ({
          label: `${categoryName(c.category)} · ${runLetter(i)}`,
          value: m.mean,
          color: runColor(i),
        })),
      ),
    `${metric} per category and run`,
  );
  const flipped = comparison.rows.filter((r) =>
    r.flips.some((f) => f === 'improved' || f === 'regressed'),
  );
  const flips = flipped.slice(0, 200).map((r) => flipRow(r, labels));
  const diff = result.configDiff.map(
    (d) =>
      `<tr><th scope="row">${escapeHtml(d.path)}</th>${d.values.map((v) => `<td>${escapeHtml(v ?? '–')}</td>`).join('')}</tr>`,
  );
  const runHeads = labels.map((l) => `<th>${escapeHtml(l)}</th>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>${CSS}</style></head><body>
<h1>${escapeHtml(title)}</h1>
<p class="meta">${escapeHtml(metric)} · ${result.questionSets.shared} shared questions · baseline ${escapeHtml(labels[comparison.baselineIndex] ?? '')}</p>
<section aria-label="Headline"><h2>Headline</h2><div class="stats">${headline.join('')}</div></section>
<section aria-label="Per category"><h2>Per category <small>(${escapeHtml(schemeLabelOf(profile, 'official'))} category names)</small></h2>
<table><thead><tr><th>category</th>${runHeads}</tr></thead><tbody>${rows.join('')}</tbody></table>
${bars}</section>
${table2Section(result.costs.map((cost, i) => ({ label: labels[i] ?? cost.runId, columns: cost.table2 })))}
<section aria-label="Flips"><h2>Flips (${flipped.length}${flipped.length > 200 ? ', first 200' : ''})</h2>
<table><thead><tr><th>question</th><th>gold</th>${runHeads}</tr></thead><tbody>${flips.join('')}</tbody></table></section>
<section aria-label="Config differences"><h2>Config differences</h2>
<table><thead><tr><th>key</th>${runHeads}</tr></thead><tbody>${diff.join('')}</tbody></table></section>
</body></html>
`;
}

/** A flipped question: each run's prediction with its score and whether it improved or regressed. */
function flipRow(row: CompareRow, labels: readonly string[]): string {
  const cells = labels
    .map((_, i) => {
      const cell = row.cells[i];
      const flip = row.flips[i];
      const mark = flip === 'improved' || flip === 'regressed' ? ` <b>${flip}</b>` : '';
      return cell === null || cell === undefined
        ? '<td>missing</td>'
        : `<td>${escapeHtml(cell.prediction)} <span class="ci">${num(cell.score)}${mark}${cell.error ? ` · ${escapeHtml(cell.error)}` : ''}</span></td>`;
    })
    .join('');
  return `<tr><td>${escapeHtml(row.sampleId)} #${row.questionIndex}: ${escapeHtml(row.question)}</td><td>${escapeHtml(row.gold ?? '')}</td>${cells}</tr>`;
}

/** Mem0 Table 2's latency and token columns, one row per run. */
function table2Section(runs: ReadonlyArray<{ label: string; columns: Table2Columns }>): string {
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

const signed = (value: number): string => `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;

/** Text made safe for HTML element content and quoted attribute values. */
/** Each judge's J with its interval and measured error, and the judges' agreement (issue 37). */
function judgePanelHtml(panel: JudgePanel | null | undefined): string {
  if (!panel || panel.judges.length < 2) return '';
  const names = judgeColumnNames(panel.judges.map((j) => j.judge));
  const rows = panel.judges.map((j, i) => {
    const note = [measuredErrorText(j.measuredError)].filter((x) => x !== null).join('');
    return `<tr><th scope="row" title="${escapeHtml(judgeLabel(j.judge))}">${escapeHtml(names[i] ?? '')}${j.own ? ' (run)' : ''}</th><td>${formatInterval(j.headline)}</td><td>${j.vsFirst === null ? '–' : formatInterval(j.vsFirst)}</td><td>${j.headline.n}</td><td>${escapeHtml(note)}</td></tr>`;
  });
  const a = panel.agreement;
  const stats = a
    ? [
        ['percent agreement', a.percentAgreement] as const,
        ["Fleiss' κ", a.fleissKappa] as const,
        ["Krippendorff's α", a.krippendorffAlpha] as const,
        ...a.pairs.map(
          (p) => [`Cohen's κ ${names[p.raterA]} × ${names[p.raterB]}`, p.cohenKappa] as const,
        ),
      ].map(
        ([label, x]) =>
          `<tr><th scope="row">${escapeHtml(label)}</th><td>${formatInterval(x)}</td><td>${x.n}</td></tr>`,
      )
    : [];
  return `<section aria-label="Judges"><h2>Judges <small>(J over ${panel.questions} judged final answers, 95% intervals over conversations; Δ paired against the first judge)</small></h2>
<table><thead><tr><th>judge</th><th>J [95%]</th><th>Δ vs first [95%]</th><th>n</th><th>measured error</th></tr></thead><tbody>${rows.join('')}</tbody></table>
<table><thead><tr><th>agreement</th><th>value [95%]</th><th>n</th></tr></thead><tbody>${stats.join('')}</tbody></table></section>
`;
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const num = (value: number | null): string => (value === null ? '–' : value.toFixed(3));

function barChart(
  bars: ReadonlyArray<{ label: string; value: number | null; color?: string }>,
  title: string,
) {
  const rowHeight = 22;
  const height = bars.length * rowHeight + 10;
  const body = bars
    .map((bar, i) => {
      const y = i * rowHeight + 5;
      const width = Math.round((bar.value ?? 0) * 300);
      return `<text x="0" y="${y + 15}">${escapeHtml(bar.label)}</text><rect x="230" y="${y + 3}" width="${width}" height="15" fill="${bar.color ?? '#2f6fdf'}"/><text x="${236 + width}" y="${y + 15}">${num(bar.value)}</text>`;
    })
    .join('');
  return `<figure><svg role="img" aria-label="${escapeHtml(title)}" width="600" height="${height}" font-size="12" font-family="sans-serif">${body}</svg><figcaption>${escapeHtml(title)}</figcaption></figure>`;
}

function curveChart(values: ReadonlyArray<number | null>, title: string) {
  const points = values
    .map((v, i) => (v === null ? null : { x: i, y: v }))
    .filter((p): p is { x: number; y: number } => p !== null);
  if (points.length === 0) return '<p>No curve points.</p>';
  const step = 560 / Math.max(1, values.length - 1);
  const path = points
    .map((p) => `${(20 + p.x * step).toFixed(1)},${(170 - p.y * 150).toFixed(1)}`)
    .join(' ');
  return `<figure><svg role="img" aria-label="${escapeHtml(title)}" width="600" height="190" font-size="11" font-family="sans-serif"><line x1="20" y1="170" x2="580" y2="170" stroke="#999"/><line x1="20" y1="20" x2="20" y2="170" stroke="#999"/><text x="0" y="24">1</text><text x="0" y="174">0</text><polyline points="${path}" fill="none" stroke="#2f6fdf" stroke-width="2"/></svg><figcaption>${escapeHtml(title)}</figcaption></figure>`;
}

const CSS = `body{font-family:system-ui,sans-serif;margin:2rem;color:#1d2330;max-width:1100px}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}.meta{color:#555}
.stats{display:flex;gap:1rem;flex-wrap:wrap}.stat{border:1px solid #d6dae3;border-radius:6px;padding:.6rem 1rem}
.stat .label{color:#555;font-size:.85rem}.stat .value{font-size:1.4rem;font-weight:600}.stat .ci{font-size:.8rem;color:#555}
table{border-collapse:collapse;margin:.5rem 0}th,td{border-bottom:1px solid #e3e6ec;padding:.3rem .6rem;text-align:left;vertical-align:top}
td{font-variant-numeric:tabular-nums}pre{background:#f4f5f8;padding:1rem;overflow:auto;font-size:.8rem}`;
