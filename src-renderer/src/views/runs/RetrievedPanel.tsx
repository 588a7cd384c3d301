import { type BenchmarkProfile, type SchemeId } from '@shared/benchmarks';
import { ERROR_PREDICTION, type AnswerRecord } from '@shared/experiment';
import { CategoryBadge } from '../../components/Badge/Badge';
import { formatScore } from '../../components/charts/categoryRows';
import { ErrorView } from '../../components/ErrorView';
import { useRunSample } from './hooks';
import { RetrievedList } from './RetrievedList';
import { retrievedView } from './shape';

/** One question's retrieved memories in rank order, with its evidence turns marked. */
export function RetrievedPanel({
  answer,
  datasetSha256,
  datasetPath,
  datasetName,
  scheme,
  profile,
  onClose,
}: {
  answer: AnswerRecord;
  datasetSha256: string | null;
  datasetPath: string;
  datasetName: string;
  scheme: SchemeId;
  /** The run's benchmark, which names the category. */
  profile: BenchmarkProfile;
  onClose: () => void;
}) {
  const source = useRunSample(datasetSha256, answer.sampleId, datasetPath);
  const view = retrievedView(answer, source.sample);
  const evidence = new Set(view.evidence ?? []);

  return (
    // Escape puts it away wherever focus is (the answers table listens for it).
    <aside className="panel retrieved-panel" aria-label="Retrieved memories">
      <header className="retrieved-head">
        <div>
          <CategoryBadge id={answer.category} scheme={scheme} profile={profile} />{' '}
          <span className="muted">
            <code>{answer.sampleId}</code> · qa[{answer.questionIndex}] · final test{' '}
            {answer.testIndex}
          </span>
        </div>
        <button
          type="button"
          className="small"
          onClick={onClose}
          aria-label="Close retrieved memories"
        >
          Close
        </button>
      </header>
      <h3 className="retrieved-question">{answer.question}</h3>
      <dl className="retrieved-facts">
        <dt>Gold</dt>
        <dd>{answer.gold ?? <span className="muted">(adversarial, no answer)</span>}</dd>
        <dt>Prediction</dt>
        <dd>
          {answer.error !== null ? (
            <span className="prediction-error">
              {ERROR_PREDICTION} <span className="error-message">{answer.error}</span>
            </span>
          ) : (
            answer.prediction
          )}
        </dd>
        <dt>Scores</dt>
        <dd>
          F1 {formatScore(answer.scores['officialF1'])} · recall@{answer.retrieved.length}{' '}
          {formatScore(answer.scores['evidenceRecall'])}
        </dd>
        {view.evidence !== null ? (
          <>
            <dt>Evidence</dt>
            <dd className="evidence-ids">
              {view.evidence.length === 0 ? <span className="muted">none</span> : null}
              {view.evidence.map((id) => (
                <code
                  key={id}
                  className={view.missed.includes(id) ? 'dia-id missed' : 'dia-id hit'}
                >
                  {id}
                </code>
              ))}
              {view.missed.length > 0 ? (
                <span className="muted">({view.missed.length} not retrieved)</span>
              ) : null}
            </dd>
          </>
        ) : null}
      </dl>

      {source.error ? <ErrorView error={source.error} title="Could not read the sample" /> : null}
      {source.dataset === null ? (
        <p className="notice">
          The run’s dataset (<code>{datasetName}</code>) is not open: open the dataset to see the
          text and which turns are evidence.
        </p>
      ) : null}

      <h4>
        Retrieved memories <span className="muted">· rank order, {view.rows.length} retrieved</span>
      </h4>
      <RetrievedList rows={view.rows} label="Retrieved memories in rank order" />
      {source.loading && source.dataset !== null ? (
        <p className="muted" role="status">
          Loading the sample…
        </p>
      ) : null}
      {evidence.size > 0 && view.rows.every((r) => !r.isEvidence) ? (
        <p className="muted">No evidence turn was retrieved for this question.</p>
      ) : null}
    </aside>
  );
}
