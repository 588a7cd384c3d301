import {
  categoryLabel,
  schemeLabelOf,
  type BenchmarkProfile,
  type CategoryId,
  type SchemeId,
} from '@shared/benchmarks';
import type { QA } from '@shared/dataset/types';
import { CategoryBadge } from '../../components/Badge/Badge';
import { LOST_EVIDENCE } from './EvidenceProblems';
import { answerLabel, formatCount, toggleCategory } from './shape';

export function QuestionList({
  questions,
  total,
  countsByCategory,
  scheme,
  profile,
  categories,
  search,
  selected,
  onCategoriesChange,
  onSearchChange,
  onSelect,
}: {
  /** Already filtered. */
  questions: QA[];
  total: number;
  countsByCategory: Record<CategoryId, number>;
  scheme: SchemeId;
  /** The dataset's benchmark: its categories and their names. */
  profile: BenchmarkProfile;
  categories: CategoryId[];
  search: string;
  selected: number | null;
  onCategoriesChange: (next: CategoryId[]) => void;
  onSearchChange: (next: string) => void;
  onSelect: (q: QA) => void;
}) {
  return (
    <div className="questions-pane">
      <div className="question-filters">
        <fieldset className="chips">
          <legend>Categories ({schemeLabelOf(profile, scheme)} names)</legend>
          {profile.categories.map(({ id }) => (
            <label key={id} className="chip">
              <input
                type="checkbox"
                checked={categories.includes(id)}
                onChange={() => onCategoriesChange(toggleCategory(categories, id))}
              />
              {id} {categoryLabel(profile, id, scheme)}
              <span className="chip-count">{countsByCategory[id]}</span>
            </label>
          ))}
        </fieldset>
        <div className="search-row">
          {/*
            Uncontrolled: the value lives in the URL hash, which updates a tick after each key; a
            controlled input would briefly revert and lose the caret.
          */}
          <input
            type="search"
            aria-label="Search questions"
            placeholder="Search text, answers, ids…"
            defaultValue={search}
            onChange={(event) => onSearchChange(event.currentTarget.value)}
          />
          <span className="muted" aria-live="polite">
            {formatCount(questions.length)} of {formatCount(total)}
          </span>
        </div>
      </div>
      <ul className="question-list" aria-label="Questions">
        {questions.map((q) => (
          <li key={q.index}>
            <button
              type="button"
              className="question"
              aria-pressed={q.index === selected}
              onClick={() => onSelect(q)}
            >
              <span className="question-head">
                <CategoryBadge id={q.category} scheme={scheme} profile={profile} />
                <span className="muted">qa[{q.index}]</span>
              </span>
              <span className="question-text">{q.question}</span>
              <span className={`answer${q.answer === null ? ' answer-adversarial' : ''}`}>
                {answerLabel(q)}
              </span>
              <span className="evidence-ids">
                {q.evidence.length > 0 ? (
                  q.evidence.map((id) => (
                    <code key={id} className="dia-id">
                      {id}
                    </code>
                  ))
                ) : (
                  <span className="muted">no usable evidence</span>
                )}
                {q.evidenceProblems.map((p, i) => (
                  <span
                    key={i}
                    className={`badge ${LOST_EVIDENCE.has(p.problem) ? 'badge-danger' : 'badge-warn'}`}
                    title={`evidence "${p.raw}"${p.part ? ` part "${p.part}"` : ''}: ${p.problem}${p.repairedTo ? ` → ${p.repairedTo}` : ''}`}
                  >
                    {p.problem}: {p.part ?? p.raw}
                    {p.repairedTo ? ` → ${p.repairedTo}` : ''}
                  </span>
                ))}
              </span>
            </button>
          </li>
        ))}
        {questions.length === 0 ? (
          <li className="muted empty">No question matches the filters.</li>
        ) : null}
      </ul>
    </div>
  );
}
