import type { ReactNode } from 'react';
import type { DatasetSummary } from '@shared/api';

/** The run form's samples: a box per sample, shortcuts, and what a run of all skips. */
export function SampleChooser({
  dataset,
  chosen,
  onChoose,
  invalidCount,
  skipInvalid,
  error,
}: {
  dataset: DatasetSummary;
  chosen: ReadonlySet<string>;
  onChoose: (ids: Iterable<string>) => void;
  invalidCount: number;
  skipInvalid: boolean;
  /** The field's error, shown under it. */
  error: ReactNode;
}) {
  const allIds = dataset.stats.samples.map((s) => s.sampleId);
  const questions = dataset.stats.samples
    .filter((s) => chosen.has(s.sampleId))
    .reduce((sum, s) => sum + s.qa, 0);
  return (
    <fieldset className="field samples-field">
      <legend className="field-label">
        Samples{' '}
        <span className="muted">
          · {chosen.size} of {allIds.length} chosen, {questions} QA
        </span>
      </legend>
      <div className="sample-shortcuts">
        <button type="button" className="small" onClick={() => onChoose(allIds)}>
          All
        </button>
        <button type="button" className="small" onClick={() => onChoose(allIds.slice(0, 1))}>
          First sample only
        </button>
        <button type="button" className="small" onClick={() => onChoose([])}>
          None
        </button>
      </div>
      <ul className="sample-checks">
        {dataset.stats.samples.map((s) => (
          <li key={s.sampleId}>
            <label>
              <input
                type="checkbox"
                checked={chosen.has(s.sampleId)}
                onChange={(event) => {
                  const next = new Set(chosen);
                  if (event.currentTarget.checked) next.add(s.sampleId);
                  else next.delete(s.sampleId);
                  onChoose(next);
                }}
              />
              <span className="sample-id">{s.sampleId}</span>
              <span className="muted">
                {s.qa} QA · {s.packets} packets · {s.plannedTests} tests
              </span>
            </label>
          </li>
        ))}
      </ul>
      {invalidCount > 0 ? (
        <p className="notice">
          {invalidCount} invalid sample(s) in this file cannot be run (see the Datasets view)
          {skipInvalid ? '; a run of all samples skips them and records which' : ''}.
        </p>
      ) : null}
      {error}
    </fieldset>
  );
}
