import {
  JUDGE_VS_HUMAN_COLUMNS,
  judgeName,
  labellerAgreementLines,
  labellerCountLines,
} from '@shared/labelFigures';
import type { LabelAgreement } from '@shared/labels';
import { ErrorView } from '../../components/ErrorView';
import type { ApiState } from '../../hooks/useApi';

/**
 * The labels as figures (labels.agreement): each labeller's counts, their agreement, and each
 * judge of the run against the labels' majority with J corrected by Rogan-Gladen. The same text
 * as `cli report` (src-shared/labelFigures.ts). Recomputed when the labelling mode closes or on
 * request, not on every key: its bootstrap intervals take a moment on a full run.
 */
export function LabelFigures({ state }: { state: ApiState<LabelAgreement> }) {
  const a = state.data;
  return (
    <section className="label-figures" aria-label="Agreement with human labels">
      <div className="panel-head">
        <h3>Agreement</h3>
        <button type="button" className="small" onClick={state.reload} disabled={state.loading}>
          Refresh figures
        </button>
      </div>
      {state.error ? <ErrorView error={state.error} /> : null}
      {a === undefined ? (
        <p className="muted">{state.loading ? 'Computing…' : ''}</p>
      ) : a.labelled === 0 ? (
        <p className="muted">No answer of this run has a human label yet.</p>
      ) : (
        <>
          <p>Answers labelled: {a.labelled}</p>
          <ul aria-label="Labellers">
            {labellerCountLines(a).map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
          {a.humans ? (
            <ul aria-label="Agreement between labellers">
              {labellerAgreementLines(a).map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          ) : (
            <p className="muted">Agreement between labellers needs a second labeller.</p>
          )}
          {a.judges.length === 0 ? (
            <p className="muted">No judge of this run has a verdict on the labelled answers.</p>
          ) : (
            <table className="data-table" aria-label="Judge vs human labels">
              <caption className="muted">
                Each judge against the labellers&apos; majority (unsure and skip left out); 95%
                intervals by conversation, Wilson for the acceptance rates.
              </caption>
              <thead>
                <tr>
                  <th scope="col">Judge</th>
                  {JUDGE_VS_HUMAN_COLUMNS.map((c) => (
                    <th key={c.name} scope="col">
                      {c.name}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {a.judges.map((j) => (
                  <tr key={j.id}>
                    <th scope="row">{judgeName(j)}</th>
                    {JUDGE_VS_HUMAN_COLUMNS.map((c) => (
                      <td key={c.name}>{c.cell(j)}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
