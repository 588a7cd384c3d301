import type { QuestionAcrossRuns, RunComparisonResult } from './api';
import { schemeLabelOf, type BenchmarkProfile } from './benchmarks';
import { configDiff, type CompareRow, type RunComparison } from './compare';
import { comparisonColumnLatex, table2ColumnLatex } from './columnLatex';
import { categoryLabel } from './compareLabels';
import type { CurvePoint } from './experiment';
import { flipSides, rankMoveMark, type FlipSide } from './flipExplain';
import {
  REPORT_CSS,
  barChart,
  curveChart,
  escapeHtml,
  goldHtml,
  latexSection,
  meanByTest,
  num,
  table2Section,
  type ReportDataset,
} from './htmlReportParts';
import { metricOf } from './metrics';
import { runColor, runLetter } from './runPalette';
import type { RunManifest } from './runs';
import { bootstrapMeanCI } from './scoring/stats';

/**
 * One self-contained HTML file of a comparison (`runs.compareExport` html, `cli report a b
 * --html`): per category each run's mean with its own 95% interval and the delta to the baseline
 * with its paired interval, bars with whiskers, each run's curve, the flipped questions each with
 * its explanation (the Compare view's flipSides: scores, recall, evidence found or missed, the
 * judge, the retrieved memories and how their ranks moved), both runs' manifests and how their
 * configs differ, and the tables as LaTeX for a column. No script and no external URL.
 */

/** What the report reads beside `runs.compare` (core/runs/reportInputs.ts compareReportExtras). */
export interface CompareReportExtras {
  manifests: readonly RunManifest[];
  curves: ReadonlyArray<readonly CurvePoint[]>;
  /** One per reported flip (`reportedFlips(...).shown`), in that order. */
  explanations: readonly QuestionAcrossRuns[];
  dataset: ReportDataset;
}

/** Flips a report lists (with their explanations) at most: a report is read, not searched. */
export const REPORTED_FLIPS = 200;

/** The questions that flipped (improved or regressed) in any run, and the ones a report shows. */
export function reportedFlips(comparison: RunComparison): {
  all: CompareRow[];
  shown: CompareRow[];
} {
  const all = comparison.rows.filter((r) =>
    r.flips.some((f) => f === 'improved' || f === 'regressed'),
  );
  return { all, shown: all.slice(0, REPORTED_FLIPS) };
}

const signed = (value: number): string => `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;

export function compareReportHtml(
  result: RunComparisonResult,
  extras: CompareReportExtras | null = null,
): string {
  const { comparison } = result;
  const profile = result.benchmark;
  const metric = metricOf(comparison.metric).label;
  // Lettered as the Compare view letters them, so a bar's "B" names a column of the tables.
  const labels = comparison.runs.map((r, i) => `${runLetter(i)} · ${r.label}`);
  const title = `Comparison: ${labels.join(' vs ')}`;
  const categoryName = (id: number | null): string =>
    id === null ? 'overall' : categoryLabel(id, 'official', profile);
  // Each run's own interval per category, over the questions it scored among the compared ones.
  const ownIntervals = comparison.categories.map((c) =>
    comparison.runs.map((_, i) =>
      bootstrapMeanCI(
        comparison.rows
          .filter((r) => c.category === null || r.category === c.category)
          .map((r) => r.cells[i]?.score ?? null)
          .filter((s): s is number => s !== null),
      ),
    ),
  );
  const rows = comparison.categories.map(
    (c, ci) =>
      `<tr><th scope="row">${escapeHtml(categoryName(c.category))}</th>${c.perRun
        .map((m, i) => {
          const own = ownIntervals[ci]?.[i];
          const delta = c.deltas[i];
          const cells = `<td>${num(m.mean)}</td><td class="ci">${own && own.n > 0 ? `[${num(own.low)}, ${num(own.high)}]` : ''}</td><td>${m.n}</td>`;
          // The baseline has no Δ column: it would be blank in every row.
          if (i === comparison.baselineIndex) return cells;
          return `${cells}<td class="ci">${delta && delta.n > 0 ? `Δ ${signed(delta.meanDiff)} [${signed(delta.low)}, ${signed(delta.high)}]` : ''}</td>`;
        })
        .join('')}</tr>`,
  );
  const overall = comparison.categories.find((c) => c.category === null);
  const headline = labels.map((label, i) => {
    const delta = overall?.deltas[i];
    return `<div class="stat"><div class="label"><span class="swatch" style="background:${runColor(i)}"></span>${escapeHtml(label)}</div><div class="value">${num(overall?.perRun[i]?.mean ?? null)}</div><div class="ci">${i === comparison.baselineIndex ? 'baseline' : delta && delta.n > 0 ? `Δ ${signed(delta.meanDiff)}, 95% CI [${signed(delta.low)}, ${signed(delta.high)}]` : 'no shared questions'}</div></div>`;
  });
  const legend = labels.map((label, i) => ({ label, color: runColor(i) }));
  const bars = barChart(
    comparison.categories
      .map((c, ci) => ({ c, ci }))
      .filter(({ c }) => c.category !== null)
      .map(({ c, ci }) => ({
        label: categoryName(c.category),
        bars: c.perRun.map((m, i) => {
          const own = ownIntervals[ci]?.[i];
          return {
            mean: m.mean,
            low: own && own.n > 0 ? own.low : null,
            high: own && own.n > 0 ? own.high : null,
            n: own?.n ?? 0,
            color: runColor(i),
          };
        }),
      })),
    {
      title: `${metric} per category and run: mean with its 95% bootstrap interval (whisker)`,
      axisTitle: `${metric} (mean, 95% CI)`,
      legend,
    },
  );
  const curves = extras
    ? `<section aria-label="Curves"><h2>Curves</h2>${curveChart(
        extras.curves.map((curve, i) => ({
          label: labels[i] ?? '',
          color: runColor(i),
          points: meanByTest(curve, comparison.metric),
        })),
        {
          title: `${metric} at each test of each run (every question visible then, samples averaged)`,
          xTitle: 'test # (samples averaged)',
          yTitle: `mean ${metric}`,
        },
      )}</section>`
    : '';
  const flips = reportedFlips(comparison);
  const flipItems = flips.shown.map((row, i) =>
    flipItem(
      row,
      labels,
      comparison,
      profile,
      extras?.explanations[i] ?? null,
      extras?.dataset ?? null,
    ),
  );
  const runHeads = labels.map((l) => `<th>${escapeHtml(l)}</th>`).join('');
  const perCategoryHeads = labels
    .map(
      (_, i) =>
        `<th>${runLetter(i)} mean</th><th>95% CI</th><th>n</th>${i === comparison.baselineIndex ? '' : '<th>Δ [95% CI]</th>'}`,
    )
    .join('');
  const names = comparison.runs.map((r) => r.label);
  const latex = latexSection([
    {
      title: 'Per category',
      tex: comparisonColumnLatex(comparison, { scheme: 'official', profile, names }),
    },
    { title: 'Mem0 Table 2 columns', tex: table2ColumnLatex(result.costs, names) },
  ]);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>${REPORT_CSS}</style></head><body>
<h1>${escapeHtml(title)}</h1>
<p class="meta">${escapeHtml(metric)} · ${result.questionSets.shared} shared questions · baseline ${escapeHtml(labels[comparison.baselineIndex] ?? '')}</p>
${extras?.dataset.note ? `<p class="meta notice">Dataset: ${escapeHtml(extras.dataset.note)}; evidence text and adversarial gold are left out.</p>` : ''}
<section aria-label="Headline"><h2>Headline</h2><div class="stats">${headline.join('')}</div></section>
<section aria-label="Per category"><h2>Per category <small>(${escapeHtml(schemeLabelOf(profile, 'official'))} category names; each run's mean with its 95% percentile bootstrap interval over questions, Δ to the baseline with its paired 95% interval)</small></h2>
<table><thead><tr><th>category</th>${perCategoryHeads}</tr></thead><tbody>${rows.join('')}</tbody></table>
${bars}</section>
${curves}
${table2Section(result.costs.map((cost, i) => ({ label: labels[i] ?? cost.runId, columns: cost.table2 })))}
<section aria-label="Flips"><h2>Flips (${flips.all.length}${flips.all.length > flips.shown.length ? `, first ${flips.shown.length}` : ''})</h2>
<p class="meta">Each flip opens on why it flipped: every run's score and recall against the baseline, the evidence turns it found (at what rank) or missed, the judge's verdicts, and its retrieved memories with how their ranks moved.</p>
${flipItems.join('\n')}</section>
${manifestSection(result, extras, labels, runHeads)}
${latex}
</body></html>
`;
}

/** A flipped question: its row (each run's prediction, score, flip) and its explanation. */
function flipItem(
  row: CompareRow,
  labels: readonly string[],
  comparison: RunComparison,
  profile: BenchmarkProfile,
  explanation: QuestionAcrossRuns | null,
  dataset: ReportDataset | null,
): string {
  const answers = labels
    .map((_, i) => {
      const cell = row.cells[i];
      const flip = row.flips[i];
      const mark = flip === 'improved' || flip === 'regressed' ? ` <b>${flip}</b>` : '';
      return cell === null || cell === undefined
        ? `<li>${runLetter(i)}: missing</li>`
        : `<li>${runLetter(i)}: ${escapeHtml(cell.prediction)} <span class="ci">${num(cell.score)}${mark}${cell.error ? ` · ${escapeHtml(cell.error)}` : ''}</span></li>`;
    })
    .join('');
  // Each run's score in the folded line, so a reader scans the flips' directions without opening them.
  const scores = labels
    .map((_, i) => {
      const cell = row.cells[i];
      const flip = row.flips[i];
      const arrow = flip === 'improved' ? ' ↑' : flip === 'regressed' ? ' ↓' : '';
      return `${runLetter(i)} ${cell ? num(cell.score) : 'missing'}${arrow}`;
    })
    .join(' · ');
  const sample = dataset?.samples.get(row.sampleId) ?? null;
  const sides =
    explanation === null
      ? '<p class="ci">No explanation: the answers across runs were not read for this report.</p>'
      : `<div class="sides" style="grid-template-columns:repeat(${labels.length},minmax(0,1fr))">${flipSides(
          explanation,
          sample,
          comparison.metric,
          comparison.baselineIndex,
        )
          .map((side, i) => sideHtml(side, i, comparison.metric))
          .join('')}</div>`;
  return `<details class="explain" data-question="${escapeHtml(`${row.sampleId}:${row.questionIndex}`)}"><summary><b>${escapeHtml(row.sampleId)} #${row.questionIndex}</b> (${escapeHtml(categoryLabel(row.category, 'official', profile))}): ${escapeHtml(row.question)} <span class="ci">${scores}</span></summary>
<p><span class="ci">gold</span> ${goldHtml(row.gold, row, dataset)}</p><ul class="answers">${answers}</ul>${sides}</details>`;
}

const delta = (value: number | null): string =>
  value === null
    ? ''
    : ` <span class="${value > 1e-9 ? 'up' : value < -1e-9 ? 'down' : ''}">(${signed(value)})</span>`;

/** One run's side of a flip, as the Compare view's FlipDetail lays it out. */
function sideHtml(side: FlipSide, index: number, metric: RunComparison['metric']): string {
  const letter = runLetter(index);
  const head = `<h4><span class="swatch" style="background:${runColor(index)}"></span>${letter}${side.isBaseline ? ' (baseline)' : ''} <span class="ci">${escapeHtml(side.label)}</span></h4>`;
  if (!side.answered)
    return `<section class="side" aria-label="Run ${letter}">${head}<p>This run has no answer for the question (missing, not wrong).</p></section>`;
  const evidence =
    side.evidence === null
      ? '<span class="ci">not known: the dataset was not read</span>'
      : side.evidence.length === 0
        ? '<span class="ci">none</span>'
        : side.evidence
            .map(
              (e) =>
                `<div><code class="${e.rank === null ? 'missed' : 'hit'}">${escapeHtml(e.diaId)} ${e.rank === null ? 'missed' : `found #${e.rank}`}</code>${e.rank === null && e.turn ? ` <q>${escapeHtml(e.turn.speaker)}: ${escapeHtml(e.turn.text)}</q>` : ''}</div>`,
            )
            .join('');
  const judge =
    side.judge === null
      ? '<span class="ci">no judge ran</span>'
      : side.judge.error !== null
        ? escapeHtml(side.judge.error)
        : `J ${num(side.judge.mean)}${side.judge.protocol ? ` <span class="ci">· ${escapeHtml(side.judge.protocol)} protocol</span>` : ''}<ol>${side.judge.labels
            .map(
              (label, r) =>
                `<li>${label}${side.judge?.reasons[r] ? ` — ${escapeHtml(side.judge.reasons[r] ?? '')}` : ''}</li>`,
            )
            .join('')}</ol>`;
  const retrieved = side.retrieved
    .map((row) => {
      const mark = rankMoveMark(row.move, side.isBaseline);
      return `<li class="${row.isEvidence ? 'evidence' : ''}">${row.diaId ? `<code>${escapeHtml(row.diaId)}</code> ` : ''}${escapeHtml(row.text ?? '(text unknown)')} <span class="ci">${row.score.toFixed(3)}${mark ? ` · <span class="${mark.tone === 'up' ? 'up' : 'down'}" title="${escapeHtml(mark.title)}">${escapeHtml(mark.text)}</span>` : ''}</span></li>`;
    })
    .join('');
  return `<section class="side" aria-label="Run ${letter}">${head}<dl>
<dt>Answer</dt><dd>${side.error !== null ? `${escapeHtml(side.prediction ?? '')} <span class="missed">${escapeHtml(side.error)}</span>` : `<strong>${escapeHtml(side.prediction ?? '')}</strong>`}</dd>
<dt>${escapeHtml(metricOf(metric).label)}</dt><dd>${num(side.score)}${delta(side.scoreDelta)}</dd>
<dt>Recall@${side.k}</dt><dd>${num(side.recall)}${delta(side.recallDelta)}</dd>
<dt>Evidence</dt><dd class="evidence">${evidence}</dd>
<dt>Judge</dt><dd>${judge}</dd></dl>
<ol class="retrieved" aria-label="Run ${letter} retrieved memories">${retrieved}</ol></section>`;
}

/** Both runs' manifests: how their configs and the rest of their manifests differ, then each whole. */
function manifestSection(
  result: RunComparisonResult,
  extras: CompareReportExtras | null,
  labels: readonly string[],
  runHeads: string,
): string {
  const table = (diff: ReturnType<typeof configDiff>): string =>
    `<table class="manifest-values"><thead><tr><th>key</th>${runHeads}</tr></thead><tbody>${diff
      .map(
        (d) =>
          `<tr><th scope="row">${escapeHtml(d.path)}</th>${d.values.map((v) => `<td>${escapeHtml(v ?? '–')}</td>`).join('')}</tr>`,
      )
      .join('')}</tbody></table>`;
  const rest = extras
    ? configDiff(extras.manifests.map(({ config: _config, ...manifest }) => manifest))
    : [];
  const whole = extras
    ? extras.manifests
        .map(
          (m, i) =>
            `<details><summary>${escapeHtml(labels[i] ?? '')}: the whole manifest</summary><pre>${escapeHtml(JSON.stringify(m, null, 2))}</pre></details>`,
        )
        .join('')
    : '';
  return `<section aria-label="Manifests"><h2>Manifests</h2>
<h3>Config differences</h3>${result.configDiff.length > 0 ? table(result.configDiff) : '<p>The configs are the same.</p>'}
${extras ? `<h3>Other manifest differences <small>(provenance, models, usage, times)</small></h3>${table(rest)}` : ''}
${whole}</section>`;
}
