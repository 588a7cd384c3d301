import { useMemo, useRef } from 'react';
import type { BenchmarkProfile, CategoryId, SchemeId } from '@shared/benchmarks';
import type { QA, Sample } from '@shared/dataset/types';
import { ErrorView } from '../../components/ErrorView';
import { useApi } from '../../hooks/useApi';
import { QuestionList } from './QuestionList';
import { TurnList, type TurnListHandle } from './TurnList';
import {
  buildTurnRows,
  countByCategory,
  filterQuestions,
  formatCount,
  formatSessionDate,
  type DatasetsParamsPatch,
} from './shape';

export interface SampleDetailProps {
  datasetId: string;
  sampleId: string;
  scheme: SchemeId;
  /** The dataset's benchmark: its categories and their names. */
  profile: BenchmarkProfile;
  categories: CategoryId[];
  search: string;
  question: number | null;
  onChange: (patch: DatasetsParamsPatch) => void;
}

/** Fetches one sample; the body is keyed by it so scroll positions never leak between samples. */
export function SampleDetail(props: SampleDetailProps) {
  const { datasetId, sampleId } = props;
  const sample = useApi('datasets.sample', { datasetId, sampleId });
  return (
    <section className="panel sample-detail" aria-labelledby="sample-title">
      <h2 id="sample-title">Sample {sampleId}</h2>
      {sample.error ? (
        <ErrorView error={sample.error} title={`Could not open sample ${sampleId}`} />
      ) : sample.data === undefined || sample.data.sampleId !== sampleId ? (
        <p className="muted" role="status">
          Loading sample {sampleId}…
        </p>
      ) : (
        <SampleBody key={`${datasetId}:${sampleId}`} sample={sample.data} {...props} />
      )}
    </section>
  );
}

function SampleBody({
  sample,
  scheme,
  profile,
  categories,
  search,
  question,
  onChange,
}: SampleDetailProps & { sample: Sample }) {
  const turnList = useRef<TurnListHandle>(null);
  const turnRows = useMemo(() => buildTurnRows(sample), [sample]);
  const counts = useMemo(() => countByCategory(sample.qa, profile), [sample, profile]);
  const questions = useMemo(
    () => filterQuestions(sample.qa, categories, search),
    [sample, categories, search],
  );
  const selected = sample.qa.find((q) => q.index === question) ?? null;
  const highlighted = useMemo(() => new Set(selected?.evidence ?? []), [selected]);
  const firstEvidenceRow = firstRowOf(selected, turnRows.rowOfTurn);
  const turnCount = turnRows.rows.length - sample.sessions.length;

  const selectQuestion = (q: QA) => {
    onChange({ question: q.index });
    const row = firstRowOf(q, turnRows.rowOfTurn);
    if (row !== null) turnList.current?.scrollToRow(row, 'center');
  };

  return (
    <>
      <p className="muted sample-facts">
        {sample.speakers.join(' & ')} · {sample.sessions.length} sessions · {formatCount(turnCount)}{' '}
        turns · {formatCount(sample.qa.length)} questions
      </p>
      <div className="sample-grid">
        <nav className="timeline" aria-label="Sessions">
          <h3>Sessions</h3>
          <ol>
            {sample.sessions.map((session) => (
              <li key={session.index}>
                <button
                  type="button"
                  onClick={() => {
                    const row = turnRows.rowOfSession.get(session.index);
                    if (row !== undefined) turnList.current?.scrollToRow(row, 'start');
                  }}
                >
                  <span className="timeline-title">Session {session.index}</span>
                  <span
                    className="timeline-date"
                    title={session.dateTimeText ?? 'the file gives no date'}
                  >
                    {formatSessionDate(session)}
                  </span>
                  <span className="timeline-count">{session.turns.length} turns</span>
                </button>
              </li>
            ))}
          </ol>
        </nav>
        <div className="turns-pane">
          <h3>
            Turns
            {selected ? (
              <span className="muted heading-note">
                {' '}
                · evidence of qa[{selected.index}] highlighted
              </span>
            ) : null}
          </h3>
          <TurnList
            ref={turnList}
            rows={turnRows.rows}
            highlighted={highlighted}
            scrollTarget={firstEvidenceRow}
          />
        </div>
        <div className="questions-column">
          <h3>Questions</h3>
          <QuestionList
            questions={questions}
            total={sample.qa.length}
            countsByCategory={counts}
            scheme={scheme}
            profile={profile}
            categories={categories}
            search={search}
            selected={selected?.index ?? null}
            onCategoriesChange={(next) => onChange({ categories: next })}
            onSearchChange={(next) => onChange({ search: next })}
            onSelect={selectQuestion}
          />
        </div>
      </div>
    </>
  );
}

function firstRowOf(q: QA | null, rowOfTurn: ReadonlyMap<string, number>): number | null {
  if (q === null) return null;
  // "First" in conversation order, not in the order the annotators listed the ids.
  const rows = q.evidence.map((id) => rowOfTurn.get(id)).filter((r) => r !== undefined);
  return rows.length > 0 ? Math.min(...rows) : null;
}
