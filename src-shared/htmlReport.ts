import { categoryLabel, isAdversarial, schemeLabelOf } from './benchmarks';
import type { RunDetail } from './api';
import { scoreIntervals, scoreOf, table2Columns } from './compare';
import { rankingDepthFootnotes, rankingDepthLabel, type AnswerRecord } from './experiment';
import { metricsOf } from './metrics';
import { runColor } from './runPalette';
import type { BootstrapResult } from './scoring/stats';
import { judgeColumnNames, judgeLabel } from './judges';
import { formatInterval, measuredErrorText, type JudgePanel } from './judgePanel';
import { columnTabular, texNumber, texText } from './columnLatex';
import { runName } from './runs';
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

export { escapeHtml };

/**
 * One self-contained HTML file of a run (issue 26 item 5): inline CSS, charts as inline SVG, no
 * script and no external URL, so it opens offline in any browser. Every string from a run (its
 * name, predictions, the manifest) is escaped: a report is shared, and a prediction is model text.
 */
export function runReportHtml(
  detail: Pick<RunDetail, 'info' | 'summary' | 'benchmark' | 'curve' | 'judgePanel'>,
  answers: readonly AnswerRecord[],
  scheme: string,
  dataset: ReportDataset | null = null,
): string {
  const { info, summary, benchmark } = detail;
  // Named as every surface names it: a sweep cell by its sweep and grid point (runName).
  const name = runName(info);
  const title = name === '' ? `${info.preset} · ${info.id}` : `${name} (${info.id})`;
  // The profile's metrics (LoCoMo's are not BEAM's), those the run scored or always shown.
  const metrics = metricsOf(benchmark).filter(
    (m) => !m.hideWhenEmpty || (summary.overall.all[m.id]?.n ?? 0) > 0,
  );
  // The same seeded percentile bootstrap the run view's headline and categories show.
  const intervals = new Map(metrics.map((m) => [m.id, scoreIntervals(answers, m.id)]));
  const answerableName = benchmark.overallNames.answerable;
  const answerable = answerableName
    ? answers.filter((a) => !isAdversarial(benchmark, a.category))
    : [];
  const card = (label: string, mean: number | null, ci: BootstrapResult | undefined): string =>
    `<div class="stat"><div class="label">${escapeHtml(label)}</div><div class="value">${num(mean)}</div><div class="ci">${ci && ci.n > 0 ? `95% CI ${num(ci.low)}–${num(ci.high)}` : 'no scores'} · n ${ci?.n ?? 0}</div></div>`;
  const headline = metrics.map((m) =>
    card(
      rankingDepthLabel(m.label, m, summary),
      summary.overall.all[m.id]?.mean ?? null,
      intervals.get(m.id)?.all,
    ),
  );
  const answerableCards =
    answerableName && summary.overall.answerable
      ? `<h3>overall (${escapeHtml(answerableName.label)}) <small class="ci">${escapeHtml(answerableName.note)}</small></h3><div class="stats" aria-label="overall (${escapeHtml(answerableName.label)})">${metrics
          .map((m) =>
            card(
              rankingDepthLabel(m.label, m, summary),
              summary.overall.answerable?.[m.id]?.mean ?? null,
              scoreIntervals(answerable, m.id).all,
            ),
          )
          .join('')}</div>`
      : '';
  const categoryName = (id: number): string => `${id} ${categoryLabel(benchmark, id, scheme)}`;
  const rows = benchmark.categories.map((c) => {
    const pair = summary.byCategory[c.id];
    const cells = metrics.map((m) => {
      const ci = intervals.get(m.id)?.byCategory[c.id];
      return `<td>${num(pair?.[m.id]?.mean ?? null)}</td><td class="ci">${ci && ci.n > 0 ? `[${num(ci.low)}, ${num(ci.high)}]` : ''}</td>`;
    });
    return `<tr><th scope="row">${escapeHtml(categoryName(c.id))}</th>${cells.join('')}<td>${pair?.[metrics[0]?.id ?? '']?.n ?? 0}</td></tr>`;
  });
  // Headline and table marks (≥ lower bound, ? not recorded) explained once, under the table.
  const depthNotes = rankingDepthFootnotes(metrics, summary)
    .map((note) => `<p class="note">${escapeHtml(note)}</p>\n`)
    .join('');
  const firstMetric = metrics[0];
  const bars = firstMetric
    ? barChart(
        benchmark.categories.map((c) => {
          const ci = intervals.get(firstMetric.id)?.byCategory[c.id];
          return {
            label: categoryName(c.id),
            bars: [
              {
                mean: summary.byCategory[c.id]?.[firstMetric.id]?.mean ?? null,
                low: ci?.low ?? null,
                high: ci?.high ?? null,
                n: ci?.n ?? 0,
                color: runColor(0),
              },
            ],
          };
        }),
        {
          title: `${firstMetric.label} per category: mean with its 95% bootstrap interval (whisker)`,
          axisTitle: `${firstMetric.label} (mean, 95% CI)`,
          legend: [{ label: `${firstMetric.label}, mean`, color: runColor(0) }],
        },
      )
    : '';
  const curveMetrics = firstMetric
    ? [firstMetric, ...metrics.filter((m) => m.id === 'evidenceRecall' && m !== firstMetric)]
    : [];
  const curve = firstMetric
    ? curveChart(
        curveMetrics.map((m, i) => ({
          label: m.label,
          color: runColor(i),
          points: meanByTest(detail.curve, m.id),
        })),
        {
          title: `Mean score at each of the run's tests (every question visible then, samples averaged), not only final answers`,
          xTitle: 'test # (samples averaged)',
          yTitle: 'mean score',
        },
      )
    : '';
  const wrong = answers
    .filter((a) => firstMetric !== undefined && (scoreOf(a, firstMetric.id) ?? 1) < 0.5)
    .slice(0, 50)
    .map(
      (a) =>
        `<tr><td>${escapeHtml(a.sampleId)} #${a.questionIndex}</td><td>${escapeHtml(a.question)}</td><td>${goldHtml(a.gold, a, dataset)}</td><td>${escapeHtml(a.prediction)}</td></tr>`,
    );
  const latex = metrics
    .filter((m) => (summary.overall.all[m.id]?.n ?? 0) > 0)
    .map((m) => ({
      title: m.label,
      tex: columnTabular(
        ['category', 'n', texText(m.label), '95\\% CI'],
        benchmark.categories.map((c) => {
          const ci = intervals.get(m.id)?.byCategory[c.id];
          const scored = ci !== undefined && ci.n > 0;
          return [
            texText(categoryName(c.id)),
            texNumber(String(ci?.n ?? 0)),
            scored ? texNumber(ci.meanDiff.toFixed(3)) : '--',
            scored ? texNumber(`[${ci.low.toFixed(3)}, ${ci.high.toFixed(3)}]`) : '--',
          ];
        }),
        [
          texText(
            `${m.label} per category of ${title}: mean over the final answers it scored and 95% percentile bootstrap interval over questions; categories named by the ${schemeLabelOf(benchmark, scheme)} scheme.`,
          ),
        ],
      ),
    }));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>${REPORT_CSS}</style></head><body>
<h1>${escapeHtml(title)}</h1>
<p class="meta">${escapeHtml(info.preset)} · ${escapeHtml(info.status)} · ${summary.questions} questions · ${summary.errors} errors</p>
<section aria-label="Headline"><h2>Headline</h2><h3>overall (${escapeHtml(benchmark.overallNames.all.label)}) <small class="ci">${escapeHtml(benchmark.overallNames.all.note)}</small></h3><div class="stats">${headline.join('')}</div>${answerableCards}</section>
${judgePanelHtml(detail.judgePanel)}<section aria-label="Per category"><h2>Per category <small>(${escapeHtml(schemeLabelOf(benchmark, scheme))} category names; 95% percentile bootstrap intervals over questions)</small></h2>
<table><thead><tr><th>category</th>${metrics.map((m) => `<th>${escapeHtml(rankingDepthLabel(m.label, m, summary))}</th><th>95% CI</th>`).join('')}<th>n</th></tr></thead><tbody>${rows.join('')}</tbody></table>
${depthNotes}${bars}</section>
${table2Section([{ label: title, columns: table2Columns(info.manifest.usage?.memory, answers) }])}
<section aria-label="Curve"><h2>Curve</h2>${curve}</section>
<section aria-label="Answers scored below 0.5"><h2>Answers scored below 0.5${firstMetric ? ` (${escapeHtml(firstMetric.label)}, first 50)` : ''}</h2>
<table><thead><tr><th>question</th><th>text</th><th>gold</th><th>prediction</th></tr></thead><tbody>${wrong.join('')}</tbody></table></section>
${latexSection(latex)}
<section aria-label="Manifest"><h2>Manifest</h2><pre>${escapeHtml(JSON.stringify(info.manifest, null, 2))}</pre></section>
</body></html>
`;
}

/** Each judge's J with its interval and measured error, and the judges' agreement (issue 37). */
export function judgePanelHtml(panel: JudgePanel | null | undefined): string {
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
