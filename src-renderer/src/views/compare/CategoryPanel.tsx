import { meanAxisTitle } from '@shared/metrics';
import { memo, useEffect, useMemo, useState } from 'react';
import type { CompareMetric, QuestionSets, RunComparison } from '@shared/compare';
import { schemeLabelOf, type BenchmarkProfile, type SchemeId } from '@shared/benchmarks';
import {
  compareCategoryCsv,
  compareTable,
  distinctRunNames,
  runDepthMarks,
} from '@shared/compareTable';
import type { FairnessWarning } from '@shared/fairness';
import { downloadFile } from '../../lib/download';
import { CategoryChart, type CategoryChartSeries } from '../../components/charts/CategoryChart';
import type { CategoryChartRow } from '../../components/charts/categoryRows';
import { RunTag } from './RunPicker';
import {
  BOOTSTRAP_RESAMPLES,
  BOOTSTRAP_SEED,
  METRIC_LABELS,
  categoryTableRows,
  chartKey,
  compareChartRows,
  formatCount,
  formatScore,
  runColor,
  runLetter,
  shortRunLabel,
  compareIntervalSteps,
} from './shape';

/** compareIntervalSteps' bootstrap, said in a saved figure's caption. */
const WHISKER_BOOTSTRAP = { resamples: BOOTSTRAP_RESAMPLES, seed: BOOTSTRAP_SEED } as const;

/** Per-category means side by side, deltas against the baseline with their intervals, and a chart. */
export const CategoryPanel = memo(function CategoryPanel({
  comparison,
  scheme,
  profile,
  metric,
  fairness,
  questionSets,
}: {
  comparison: RunComparison;
  scheme: SchemeId;
  /** The baseline run's benchmark, which names the categories. */
  profile: BenchmarkProfile;
  metric: CompareMetric;
  /** Printed under a copied table, so it says when the runs were not on equal terms. */
  fairness: readonly FairnessWarning[];
  questionSets: QuestionSets | null;
}) {
  const rows = useMemo(
    () => categoryTableRows(comparison, scheme, profile),
    [comparison, scheme, profile],
  );
  const chartRows = useMemo(
    () => compareChartRows(comparison, scheme, profile),
    [comparison, scheme, profile],
  );
  // Bars first, whiskers a moment later: their bootstrap takes a few hundred ms at LoCoMo's size.
  const [whiskered, setWhiskered] = useState<{
    of: readonly CategoryChartRow[];
    rows: CategoryChartRow[];
  } | null>(null);
  useEffect(() => {
    const steps = compareIntervalSteps(chartRows, comparison);
    let timer: ReturnType<typeof setTimeout>;
    // One bootstrap per task, so a click or a key is never kept waiting behind all of them.
    const next = (): void => {
      const step = steps.next();
      if (step.done) setWhiskered({ of: chartRows, rows: step.value });
      else timer = setTimeout(next, 0);
    };
    timer = setTimeout(next, 0);
    return () => clearTimeout(timer);
  }, [chartRows, comparison]);
  const shownChartRows = whiskered?.of === chartRows ? whiskered.rows : chartRows;
  const base = comparison.baselineIndex;
  const series = useMemo(
    () =>
      comparison.runs.map((run, i): CategoryChartSeries => ({
        key: chartKey(i),
        // The baseline mark next to the letter: a long name (a sweep cell's) is cut at its end.
        label: `${runLetter(i)}${i === base ? ' (baseline)' : ''} ${shortRunLabel(run.label)}`,
        // The run's colour everywhere in this view: tags, table heads and bars agree.
        color: runColor(i),
      })),
    [comparison.runs, base],
  );
  const baseLetter = runLetter(base);
  const metricLabel = METRIC_LABELS[metric];
  // ≥: the run's figure is a lower bound (its memory returned fewer items than the depth).
  const depthMarks = useMemo(() => runDepthMarks(comparison), [comparison]);
  const [copied, setCopied] = useState<string | null>(null);
  // The same tables `cli compare --format md|latex` prints: runs by name, each Δ with its intervals.
  const names = distinctRunNames(comparison.runs);
  const tableAs = (markup: 'latex' | 'md') =>
    compareTable(
      {
        comparison,
        fairness,
        questionSets: questionSets ?? {
          shared: 0,
          perRun: comparison.runs.map(() => 0),
        },
        benchmark: profile,
      },
      { markup, scheme, names },
    );
  const copy = async (as: 'latex' | 'md', label: string) => {
    const text = tableAs(as);
    try {
      await navigator.clipboard.writeText(text);
      setCopied(`Copied the per-category table as ${label}.`);
    } catch {
      setCopied(`The clipboard is not available; use Save CSV.`);
    }
  };

  return (
    <section className="panel" aria-labelledby="compare-categories-title">
      <h2>
        <span id="compare-categories-title">Per category</span>{' '}
        <span className="muted heading-note">
          · mean {metricLabel} · {schemeLabelOf(profile, scheme)} category names
        </span>
      </h2>
      <div className="toolbar table-actions">
        <button type="button" className="small-button" onClick={() => void copy('latex', 'LaTeX')}>
          Copy as LaTeX
        </button>
        <button type="button" className="small-button" onClick={() => void copy('md', 'Markdown')}>
          Copy as Markdown
        </button>
        <button
          type="button"
          className="small-button"
          onClick={() =>
            downloadFile({
              filename: `compare-per-category-${comparison.runs.map((r) => r.runId).join('-vs-')}.csv`,
              mimeType: 'text/csv',
              content: compareCategoryCsv(comparison, { scheme, profile, names }),
            })
          }
        >
          Save per-category CSV
        </button>
        <span className="muted small" role="status">
          {copied}
        </span>
      </div>
      <div className="category-grid">
        <div className="table-scroll">
          <table className="category-table">
            <caption>
              Mean {metricLabel} per run. Δ = run − baseline {baseLetter} over the questions both
              answered, with its 95% interval (paired bootstrap, {formatCount(BOOTSTRAP_RESAMPLES)}{' '}
              resamples, seed {BOOTSTRAP_SEED}). <span className="sig-improved">Green</span> /{' '}
              <span className="sig-regressed">red</span>: the interval excludes 0. Below it: the
              interval when whole conversations are resampled (LoCoMo's questions come from few
              conversations, so this one is the honest width), McNemar&apos;s exact test on
              correct/wrong flips (correct = score ≥ 0.5), and the smallest difference this n can
              detect (α 0.05, power 0.8).
              {depthMarks.map((mark, i) =>
                mark ? (
                  <span key={`depth-${i}`} className="depth-note" role="note">
                    {' '}
                    {mark.mark} run {runLetter(i)}: {mark.note}.
                  </span>
                ) : null,
              )}
            </caption>
            <thead>
              <tr>
                <th scope="col">Category</th>
                <th scope="col" className="num">
                  n
                </th>
                {comparison.runs.map((run, i) => (
                  <th key={`mean-${run.runId}`} scope="col" className="num">
                    <span className="run-head" title={run.label}>
                      <RunTag index={i} />
                      {depthMarks[i] ? `${depthMarks[i].mark} mean` : 'mean'}
                    </span>
                    {i === base ? <span className="head-note">baseline</span> : null}
                  </th>
                ))}
                {comparison.runs.map((run, i) =>
                  i === base ? null : (
                    <th key={`delta-${run.runId}`} scope="col" className="num">
                      Δ {runLetter(i)} − {baseLetter} [95% CI]
                    </th>
                  ),
                )}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.key} className={row.category === null ? 'total-row' : undefined}>
                  <th scope="row">{row.label}</th>
                  <td className="num">{formatCount(row.questions)}</td>
                  {row.perRun.map((m, i) => (
                    <td key={i} className="num" title={`n=${m.n} scored questions`}>
                      {formatScore(m.mean)}
                      {m.n !== row.questions ? (
                        <span className="muted small"> n={formatCount(m.n)}</span>
                      ) : null}
                    </td>
                  ))}
                  {row.deltas.map((d, i) =>
                    i === base ? null : (
                      <td
                        key={i}
                        className={`num delta sig-${d.significance}`}
                        title={d.description}
                      >
                        <span className="delta-diff">{d.diff}</span>{' '}
                        <span className="delta-interval">{d.interval}</span>
                        {d.conversations ? (
                          <span className="delta-extra muted small">{d.conversations}</span>
                        ) : null}
                        {d.mcnemar ? (
                          <span className="delta-extra muted small">{d.mcnemar}</span>
                        ) : null}
                        {d.detectable ? (
                          <span className="delta-extra muted small">{d.detectable}</span>
                        ) : null}
                      </td>
                    ),
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <CategoryChart
          rows={shownChartRows}
          series={series}
          metricLabel={meanAxisTitle(metric)}
          schemeLabel={schemeLabelOf(profile, scheme)}
          height={300}
          bootstrap={WHISKER_BOOTSTRAP}
          intervalsPending={whiskered?.of !== chartRows}
        />
      </div>
    </section>
  );
});
