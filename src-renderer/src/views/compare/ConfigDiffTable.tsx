import { memo } from 'react';
import type { ConfigDifference } from '@shared/compare';
import { RunTag } from './RunPicker';
import { runLetter } from './shape';

/** Only the config keys whose values differ: what could explain the numbers above. */
export const ConfigDiffTable = memo(function ConfigDiffTable({
  diff,
  runs,
}: {
  diff: ConfigDifference[];
  runs: ReadonlyArray<{ runId: string; label: string }>;
}) {
  return (
    <section className="panel" aria-labelledby="compare-config-title">
      <h2>
        <span id="compare-config-title">Config differences</span>{' '}
        <span className="muted heading-note">· only keys whose values differ</span>
      </h2>
      {diff.length === 0 ? (
        <p className="muted">The runs share the same config; any difference is chance.</p>
      ) : (
        <div className="table-scroll">
          <table className="config-diff">
            <thead>
              <tr>
                <th scope="col">Key</th>
                {runs.map((run, i) => (
                  <th key={run.runId} scope="col">
                    <span className="run-head">
                      <RunTag index={i} />
                      {runLetter(i)}
                    </span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {diff.map((d) => (
                <tr key={d.path}>
                  <th scope="row">
                    <code>{d.path}</code>
                  </th>
                  {d.values.map((value, i) => (
                    <td key={i}>
                      {value === undefined ? (
                        <span className="muted">(not set)</span>
                      ) : (
                        <code>{value}</code>
                      )}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
});
