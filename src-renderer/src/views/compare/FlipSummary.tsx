import { memo } from 'react';
import type { RunComparison } from '@shared/compare';
import { RunTag } from './RunPicker';
import { FLIPS, METRIC_LABELS, formatCount, formatScore, runLetter } from './shape';

/**
 * The compared runs as a legend (letter, colour, label) with each run's question-level flips
 * against the baseline: the numbers behind a mean that moved.
 */
export const FlipSummary = memo(function FlipSummary({
  comparison,
}: {
  comparison: RunComparison;
}) {
  const base = comparison.baselineIndex;
  const all = comparison.categories.find((c) => c.category === null);
  return (
    <section className="panel" aria-labelledby="compare-flips-title">
      <h2>
        <span id="compare-flips-title">Flips against baseline {runLetter(base)}</span>{' '}
        <span className="muted heading-note">
          · per question, by {METRIC_LABELS[comparison.metric]}; a question one run lacks is
          missing, not wrong
        </span>
      </h2>
      <div className="table-scroll">
        <table className="flip-table">
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col" className="num">
                Scored
              </th>
              <th scope="col" className="num">
                Mean
              </th>
              {FLIPS.map((flip) => (
                <th key={flip} scope="col" className="num">
                  {flip}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {comparison.runs.map((run, i) => {
              const counts = comparison.flipCounts[i];
              const mean = all?.perRun[i];
              return (
                <tr key={run.runId}>
                  <th scope="row">
                    <span className="run-name">
                      <RunTag index={i} />
                      <span>
                        {runLetter(i)} · {run.label}
                      </span>
                      {i === base ? <span className="badge badge-accent">baseline</span> : null}
                    </span>
                  </th>
                  <td className="num">{formatCount(mean?.n ?? 0)}</td>
                  <td className="num">{formatScore(mean?.mean)}</td>
                  {FLIPS.map((flip) => (
                    <td key={flip} className={`num flip-count flip-${flip}`}>
                      {i === base || counts === undefined ? (
                        <span className="muted">—</span>
                      ) : (
                        formatCount(counts[flip])
                      )}
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
});
