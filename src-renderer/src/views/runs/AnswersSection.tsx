import { useMemo } from 'react';
import { categoryLabel, schemeLabelOf, type BenchmarkProfile } from '@shared/benchmarks';
import { table2Columns } from '@shared/compare';
import type { AnswerRecord } from '@shared/experiment';
import type { TokenTotals } from '@shared/runs';
import { ErrorView } from '../../components/ErrorView';
import layout from './AnswersLayout.module.css';
import { AnswersTable } from './AnswersTable';
import { useFinalAnswers } from './hooks';
import { RetrievedPanel } from './RetrievedPanel';
import {
  CORRECT_F1,
  answerKey,
  filterAnswers,
  toggleCategory,
  type Outcome,
  type RunsParams,
  type RunsParamsPatch,
} from './shape';
import { Table2Line } from './Table2';

/** The run's final answers: filters (kept in the URL), the table, and one answer's retrieval. */
const OUTCOME_LABELS: Record<Outcome, string> = {
  all: 'All',
  correct: 'Correct',
  incorrect: 'Incorrect',
};

export function AnswersSection({
  runId,
  params,
  update,
  datasetSha256,
  datasetPath,
  datasetName,
  profile,
  memoryUsage,
  metrics,
}: {
  runId: string;
  params: RunsParams;
  update: (patch: RunsParamsPatch) => void;
  datasetSha256: string | null;
  /** The file the run read (its manifest's): opened from the server's folder when not open. */
  datasetPath: string;
  datasetName: string;
  /** The run's benchmark: its categories and their names. */
  profile: BenchmarkProfile;
  /** The memory LLM's token totals (Mem0 Table 2's ingest cost); null: the run had none. */
  memoryUsage: TokenTotals | null;
  /** The metrics this run has (runMetrics): another benchmark's get no empty column. */
  metrics: readonly string[];
}) {
  const answers = useFinalAnswers(runId);
  const all = useMemo(() => answers.answers ?? [], [answers.answers]);
  const loadingMore = answers.total !== null && all.length < answers.total && !answers.error;
  const table2 = useMemo(() => table2Columns(memoryUsage, all), [memoryUsage, all]);
  const filtered = useMemo(
    () =>
      filterAnswers(all, {
        categories: params.categories,
        outcome: params.outcome,
        errorsOnly: params.errorsOnly,
        search: params.search,
        sample: params.sample,
      }),
    [all, params.categories, params.outcome, params.errorsOnly, params.search, params.sample],
  );
  const sampleIds = useMemo(() => [...new Set(all.map((a) => a.sampleId))], [all]);
  const counts = useMemo(() => {
    const out: Record<number, number> = {};
    for (const a of all) out[a.category] = (out[a.category] ?? 0) + 1;
    return out;
  }, [all]);
  const open: AnswerRecord | undefined = all.find((a) => answerKey(a) === params.question);

  return (
    <section className="panel answers-panel" aria-labelledby="answers-title">
      <div className="panel-head">
        <h2 id="answers-title">
          Questions <span className="muted heading-note">· final answers</span>
        </h2>
      </div>
      {all.length > 0 ? <Table2Line columns={table2} /> : null}
      <div className="answer-filters">
        <fieldset className="chips">
          <legend>Categories ({schemeLabelOf(profile, params.scheme)} names)</legend>
          {profile.categories.map(({ id }) => (
            <label key={id} className="chip">
              <input
                type="checkbox"
                checked={params.categories.includes(id)}
                onChange={() =>
                  update({ categories: toggleCategory(params.categories, id), question: null })
                }
              />
              {id} {categoryLabel(profile, id, params.scheme)}
              <span className="chip-count">{counts[id] ?? 0}</span>
            </label>
          ))}
        </fieldset>
        <div className="filter-row">
          {sampleIds.length > 1 || params.sample !== null ? (
            <label className="inline-field">
              Sample
              <select
                value={params.sample ?? ''}
                onChange={(event) =>
                  update({ sample: event.currentTarget.value || null, question: null })
                }
              >
                <option value="">All ({sampleIds.length})</option>
                {sampleIds.map((id) => (
                  <option key={id} value={id}>
                    {id}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          <label className="inline-field">
            Outcome
            <select
              value={params.outcome}
              onChange={(event) => update({ outcome: event.currentTarget.value as Outcome })}
            >
              {(Object.keys(OUTCOME_LABELS) as Outcome[]).map((o) => (
                <option key={o} value={o}>
                  {OUTCOME_LABELS[o]}
                </option>
              ))}
            </select>
          </label>
          <span className="muted rule">Correct means official F1 ≥ {CORRECT_F1}.</span>
          <label className="inline-field checkbox-field">
            <input
              type="checkbox"
              checked={params.errorsOnly}
              onChange={(event) => update({ errorsOnly: event.currentTarget.checked })}
            />
            Errors only
          </label>
          {/*
            Uncontrolled: the value lives in the URL hash, which updates a tick after each key; a
            controlled input would briefly revert and lose the caret.
          */}
          <input
            type="search"
            aria-label="Search questions"
            placeholder="Search question, gold, prediction, error…"
            defaultValue={params.search}
            onChange={(event) => update({ search: event.currentTarget.value })}
          />
          <span className="muted" aria-live="polite">
            {filtered.length} of {all.length}
            {loadingMore ? ` (loading ${answers.total} answers…)` : ''}
          </span>
        </div>
      </div>
      {answers.error ? (
        <ErrorView error={answers.error} title="Could not load the answers" />
      ) : null}
      {answers.answers === undefined && !answers.error ? (
        <p className="muted" role="status">
          Loading answers…
        </p>
      ) : (
        <div className={open ? `${layout.layout} ${layout.withPanel}` : layout.layout}>
          <AnswersTable
            answers={filtered}
            scheme={params.scheme}
            sort={params.sort}
            onSortChange={(sort) => update({ sort })}
            profile={profile}
            metrics={metrics}
            selected={params.question}
            onSelect={(key) => update({ question: key === params.question ? null : key })}
            onClose={() => update({ question: null })}
          />
          {open ? (
            <RetrievedPanel
              key={answerKey(open)}
              answer={open}
              datasetSha256={datasetSha256}
              datasetPath={datasetPath}
              datasetName={datasetName}
              scheme={params.scheme}
              profile={profile}
              onClose={() => update({ question: null })}
            />
          ) : null}
        </div>
      )}
    </section>
  );
}
