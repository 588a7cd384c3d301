import { useId, useState } from 'react';
import type { DatasetSummary } from '@shared/api';
import { PLAYGROUND_MAX_TOP_K, type CollectionDesign } from '@shared/designs';
import { DEFAULT_TOP_K } from '@shared/experiment';
import { ErrorView } from '../../components/ErrorView';
import { useApi } from '../../hooks/useApi';
import { usePlayground, usePlaygroundQuery } from './hooks';
import { ResultColumns } from './ResultColumns';
import {
  afterQueryEdit,
  progressPercent,
  questionOptions,
  sameDesign,
  type PlaygroundQuestionState,
} from './shape';

/**
 * Try the design: build it over one sample's turns, then ask it things. A question picked from
 * the sample fills the query and marks its evidence turns in every column, with recall@k.
 */
export function Playground({
  design,
  designValid,
  datasets,
  datasetId,
  sampleId,
  onPick,
}: {
  design: CollectionDesign;
  designValid: boolean;
  datasets: DatasetSummary[];
  datasetId: string | null;
  sampleId: string | null;
  onPick: (patch: { dataset?: string | null; sample?: string | null }) => void;
}) {
  const dataset = datasets.find((d) => d.datasetId === datasetId) ?? datasets[0] ?? null;
  const sampleIds = dataset?.stats.samples.map((s) => s.sampleId) ?? [];
  const sample =
    sampleId !== null && sampleIds.includes(sampleId) ? sampleId : (sampleIds[0] ?? null);
  const playground = usePlayground();
  const search = usePlaygroundQuery();
  const built = playground.built;
  const ready = built !== null && playground.progress?.done === true && !playground.progress.error;
  const builtSample = useApi(
    'datasets.sample',
    built ? { datasetId: built.datasetId, sampleId: built.sampleId } : null,
  );
  const [query, setQuery] = useState('');
  // The question the query came from, and the one its results are scored against ('' none).
  const [picked, setPicked] = useState<PlaygroundQuestionState>({ fill: '', scoreAgainst: '' });
  const [topK, setTopK] = useState(DEFAULT_TOP_K);
  const ids = {
    dataset: useId(),
    sample: useId(),
    question: useId(),
    scoreAgainst: useId(),
    query: useId(),
    topK: useId(),
  };

  const qa = builtSample.data?.qa ?? [];
  const question = qa.find((q) => String(q.index) === picked.scoreAgainst) ?? null;
  // Marked: the evidence of the question the shown hits were scored against (their recall's).
  const scored = qa.find((q) => q.index === search.result?.questionIndex);
  const evidence = new Set(scored?.evidence ?? []);
  const stale =
    built !== null &&
    (!sameDesign(built.design, design) ||
      built.sampleId !== sample ||
      built.datasetId !== dataset?.datasetId);
  const percent = playground.progress ? progressPercent(playground.progress) : 0;

  const ask = (text: string, scoreAgainst: string) => {
    if (!built || !ready || text.trim() === '') return;
    const scored = qa.find((q) => String(q.index) === scoreAgainst);
    search.run(built.playgroundId, text, topK, scored ? scored.index : null);
  };

  return (
    <section className="panel playground" aria-labelledby="playground-title">
      <div className="panel-head">
        <h2 id="playground-title">Playground</h2>
        <span className="muted">
          a temporary collection of every turn of one sample, built from the design above
        </span>
      </div>
      {datasets.length === 0 ? (
        <p className="notice">
          Open a dataset in the <a href="#/datasets">Datasets</a> view to try the design on it.
        </p>
      ) : (
        <div className="playground-build">
          <div className="field">
            <label htmlFor={ids.dataset}>Dataset</label>
            <select
              id={ids.dataset}
              value={dataset?.datasetId ?? ''}
              onChange={(event) => onPick({ dataset: event.currentTarget.value, sample: null })}
            >
              {datasets.map((d) => (
                <option key={d.datasetId} value={d.datasetId}>
                  {d.name}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={ids.sample}>Sample</label>
            <select
              id={ids.sample}
              value={sample ?? ''}
              onChange={(event) => onPick({ sample: event.currentTarget.value })}
            >
              {dataset?.stats.samples.map((s) => (
                <option key={s.sampleId} value={s.sampleId}>
                  {s.sampleId} ({s.turns} turns)
                </option>
              ))}
            </select>
          </div>
          <button
            type="button"
            className="primary"
            disabled={!designValid || dataset === null || sample === null || playground.building}
            title={designValid ? undefined : 'Fix the design’s problems first'}
            onClick={() => {
              if (dataset === null || sample === null) return;
              search.clear();
              void playground.build(dataset.datasetId, sample, design);
            }}
          >
            {built ? 'Rebuild playground' : 'Build playground'}
          </button>
          {playground.progress ? (
            <div className="build-progress">
              <div
                className="progress-bar"
                role="progressbar"
                aria-label="Build progress"
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={percent}
                aria-valuetext={`${playground.progress.inserted} of ${playground.progress.total} turns`}
              >
                <div className="progress-bar-fill" style={{ width: `${percent}%` }} />
              </div>
              <span role="status" className="muted">
                {playground.progress.error
                  ? 'Build failed'
                  : playground.progress.done
                    ? `Ready: ${playground.progress.total} turns of ${built?.sampleId ?? ''}`
                    : `Inserting ${playground.progress.inserted} / ${playground.progress.total} turns…`}
              </span>
            </div>
          ) : null}
        </div>
      )}
      {playground.buildError ? (
        <ErrorView error={playground.buildError} title="Could not build the playground" />
      ) : null}
      {stale && ready ? (
        <p className="notice" role="note">
          The design or sample changed since this playground was built; results are from the built
          design. Rebuild to try the changes.
        </p>
      ) : null}

      {built ? (
        <form
          className="playground-query"
          onSubmit={(event) => {
            event.preventDefault();
            ask(query, picked.scoreAgainst);
          }}
        >
          <div className="field field-question">
            <label htmlFor={ids.question}>Question from the sample</label>
            <select
              id={ids.question}
              value={qa.some((q) => String(q.index) === picked.fill) ? picked.fill : ''}
              onChange={(event) => {
                const value = event.currentTarget.value;
                setPicked({ fill: value, scoreAgainst: value });
                const chosen = qa.find((q) => String(q.index) === value);
                if (chosen) {
                  setQuery(chosen.question);
                  ask(chosen.question, value);
                }
              }}
            >
              <option value="">(type your own query)</option>
              {questionOptions(qa).map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          </div>
          <div className="field field-query">
            <label htmlFor={ids.query}>Query</label>
            <input
              id={ids.query}
              type="search"
              value={query}
              maxLength={2000}
              onChange={(event) => {
                const text = event.currentTarget.value;
                setQuery(text);
                setPicked((state) => afterQueryEdit(state, text, qa));
              }}
            />
          </div>
          <div className="field field-question">
            <label htmlFor={ids.scoreAgainst}>Score against</label>
            <select
              id={ids.scoreAgainst}
              value={question ? picked.scoreAgainst : ''}
              onChange={(event) => {
                const value = event.currentTarget.value;
                setPicked((state) => ({ ...state, scoreAgainst: value }));
                // The engine scores the hits: the shown query is asked again against this question.
                if (search.result) ask(search.result.query, value);
              }}
            >
              <option value="">(no question: no evidence, no recall)</option>
              {questionOptions(qa).map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          </div>
          <div className="field field-topk">
            <label htmlFor={ids.topK}>Top k</label>
            <input
              id={ids.topK}
              type="number"
              min={1}
              max={PLAYGROUND_MAX_TOP_K}
              value={topK}
              onChange={(event) => {
                const k = Math.round(Number(event.currentTarget.value));
                setTopK(
                  Number.isFinite(k)
                    ? Math.min(PLAYGROUND_MAX_TOP_K, Math.max(1, k))
                    : DEFAULT_TOP_K,
                );
              }}
            />
          </div>
          <button type="submit" disabled={!ready || query.trim() === ''}>
            Search
          </button>
        </form>
      ) : null}
      {question ? (
        <p className="question-facts">
          <span className="muted">Scored against #{question.index + 1}:</span> {question.question}{' '}
          <span className="muted">· answer:</span> {question.answer ?? '—'}{' '}
          <span className="muted">· evidence</span>{' '}
          {question.evidence.map((id) => (
            <code key={id} className="dia-id">
              {id}
            </code>
          ))}
        </p>
      ) : null}
      {search.error ? <ErrorView error={search.error} title="Query failed" /> : null}
      {search.loading ? (
        <p className="muted" role="status">
          Searching…
        </p>
      ) : null}
      {search.result ? <ResultColumns result={search.result} evidence={evidence} /> : null}
    </section>
  );
}
