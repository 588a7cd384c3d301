import { memo, useEffect, useRef, type CSSProperties } from 'react';
import type { CompareMetric } from '@shared/compare';
import { ErrorView } from '../../components/ErrorView';
import { useApi } from '../../hooks/useApi';
import { useRunSample } from '../runs/hooks';
import { flipSides, openKey, rankMoveMark, type FlipSide } from './flipDetail';
import { RunTag } from './RunPicker';
import { METRIC_LABELS, formatScore, formatSigned, runLetter } from './shape';
import './flipDetail.css';
import { RetrievedList } from '../runs/RetrievedList';

/**
 * "Why did it flip?": one question's answers in the compared runs side by side, fetched on its
 * own (runs.question) so it plugs into any table that can render an expanded row.
 */
export const FlipDetail = memo(function FlipDetail({
  runIds,
  baselineIndex,
  metric,
  sampleId,
  questionIndex,
  claimFocus,
  datasetPath = null,
}: {
  runIds: readonly string[];
  baselineIndex: number;
  metric: CompareMetric;
  sampleId: string;
  questionIndex: number;
  /** True once for the question a key opened: it then takes the view and the focus. */
  claimFocus?: (key: string) => boolean;
  /** The runs' dataset file, opened from the server's folder when it is not open. */
  datasetPath?: string | null;
}) {
  const sectionRef = useRef<HTMLElement>(null);
  useEffect(() => {
    if (claimFocus?.(openKey(sampleId, questionIndex)) !== true) return undefined;
    // After the table's own scroll to the row (its effect runs after this one): the row and its
    // explanation at the top of the window, the focus in the explanation.
    const frame = requestAnimationFrame(() => {
      const section = sectionRef.current;
      if (section === null) return;
      section.focus({ preventScroll: true });
      (section.closest('[data-index]') ?? section).scrollIntoView({ block: 'start' });
    });
    return () => cancelAnimationFrame(frame);
  }, [claimFocus, sampleId, questionIndex]);
  const result = useApi('runs.question', { runIds: [...runIds], sampleId, questionIndex });
  const data =
    result.data?.sampleId === sampleId && result.data.questionIndex === questionIndex
      ? result.data
      : undefined;
  // Compared runs share their questions' dataset; the baseline's says where the turns are.
  const sha =
    data?.runs[baselineIndex]?.datasetSha256 ??
    data?.runs.find((r) => r.datasetSha256)?.datasetSha256 ??
    null;
  const source = useRunSample(data ? sha : null, sampleId, datasetPath);
  // The answers wait for the turns they cite: evidence never reads "unknown" while they load.
  const sampleSettled =
    source.dataset === null || source.sample !== null || source.error !== undefined;
  const ready = data !== undefined && sampleSettled;
  const sides = ready ? flipSides(data, source.sample, metric, baselineIndex) : [];
  const first = data?.runs.find((r) => r.answer !== null)?.answer ?? null;
  // Rows shared by every side, so rank i of each retrieved list sits on one line (subgrid).
  const ranks = Math.max(1, ...sides.map((side) => side.retrieved.length));

  return (
    <section
      ref={sectionRef}
      tabIndex={-1}
      className="flip-detail"
      aria-label={`Why did it flip: ${sampleId} question ${questionIndex}`}
    >
      {result.error ? <ErrorView error={result.error} title="Could not read the answers" /> : null}
      {!ready ? (
        result.error ? null : (
          <p className="muted" role="status">
            Loading the answers and the turns they cite…
          </p>
        )
      ) : (
        <>
          <p className="flip-detail-gold">
            <span className="muted">Gold</span>{' '}
            {first?.gold ?? <span className="muted">(adversarial: correct if not mentioned)</span>}
          </p>
          {source.dataset === null ? (
            <p className="notice">
              The runs’ dataset is not open: open it in Datasets to see the turns’ text and which
              are evidence.
            </p>
          ) : null}
          <div
            className="flip-sides"
            style={
              {
                gridTemplateColumns: `repeat(${sides.length}, minmax(300px, 1fr))`,
                '--flip-ranks': ranks,
              } as CSSProperties
            }
          >
            {sides.map((side, i) => (
              <SideColumn key={side.runId} side={side} index={i} metric={metric} />
            ))}
          </div>
        </>
      )}
    </section>
  );
});

function Delta({ value }: { value: number | null }) {
  if (value === null) return null;
  const tone = value > 1e-9 ? 'up' : value < -1e-9 ? 'down' : 'same';
  return <span className={`flip-delta flip-delta-${tone}`}> ({formatSigned(value)})</span>;
}

function SideColumn({
  side,
  index,
  metric,
}: {
  side: FlipSide;
  index: number;
  metric: CompareMetric;
}) {
  const letter = runLetter(index);
  return (
    <section className="flip-side" aria-label={`Run ${letter}`}>
      <h4 className="flip-side-head">
        <RunTag index={index} /> {letter}
        {side.isBaseline ? <span className="badge badge-accent">baseline</span> : null}
        <span className="muted flip-side-label" title={side.label}>
          {side.label}
        </span>
      </h4>
      {!side.answered ? (
        <p className="missing">This run has no answer for the question (missing, not wrong).</p>
      ) : (
        <>
          <dl className="flip-facts">
            <dt>Answer</dt>
            <dd>
              {side.error !== null ? (
                <span className="prediction-error">
                  {side.prediction} <span className="error-reason">{side.error}</span>
                </span>
              ) : (
                <strong>{side.prediction}</strong>
              )}
            </dd>
            <dt>{METRIC_LABELS[metric]}</dt>
            <dd>
              {formatScore(side.score)}
              <Delta value={side.scoreDelta} />
            </dd>
            <dt>Recall@{side.k}</dt>
            <dd>
              {formatScore(side.recall)}
              <Delta value={side.recallDelta} />
            </dd>
            <dt>Evidence</dt>
            <dd className="evidence-ids">
              {side.evidence === null ? (
                <span className="muted">not known: the runs’ dataset is not open</span>
              ) : null}
              {side.evidence?.length === 0 ? <span className="muted">none</span> : null}
              {side.evidence?.map((e) => (
                <span key={e.diaId} className="evidence-hit">
                  <code
                    className={e.rank === null ? 'dia-id missed' : 'dia-id hit'}
                    title={e.rank === null ? 'not retrieved' : `retrieved at rank ${e.rank}`}
                  >
                    {e.diaId} {e.rank === null ? 'missed' : `found #${e.rank}`}
                  </code>
                  {e.rank === null && e.turn ? (
                    <q className="missed-turn" aria-label={`${e.diaId} text`}>
                      <span className="speaker">{e.turn.speaker}:</span> {e.turn.text}
                    </q>
                  ) : null}
                </span>
              ))}
            </dd>
            <dt>Judge</dt>
            <dd>
              {side.judge === null ? (
                <span className="muted">no judge ran</span>
              ) : side.judge.error !== null ? (
                <span className="prediction-error">{side.judge.error}</span>
              ) : (
                <>
                  J {formatScore(side.judge.mean)}
                  {side.judge.protocol ? (
                    <span className="muted"> · {side.judge.protocol} protocol</span>
                  ) : null}
                  <ol className="judge-verdicts" aria-label={`Run ${letter} judge verdicts`}>
                    {side.judge.labels.map((label, r) => (
                      <li key={r}>
                        <span className={label === 'CORRECT' ? 'verdict-ok' : 'verdict-wrong'}>
                          {label}
                        </span>
                        {side.judge?.reasons[r] ? ` — ${side.judge.reasons[r]}` : null}
                      </li>
                    ))}
                  </ol>
                </>
              )}
            </dd>
          </dl>
          <RetrievedList
            rows={side.retrieved}
            label={`Run ${letter} retrieved memories`}
            mark={(row) => rankMoveMark(row.move, side.isBaseline)}
          />
        </>
      )}
    </section>
  );
}
