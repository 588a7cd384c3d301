import { memo, useEffect, useRef, useState } from 'react';
import { runLabel, runName } from '@shared/runs';
import type { ComparableRun } from './hooks';
import '../runs/runIdentity.css';
import { inkOn } from '@shared/palette';
import { MAX_COMPARED_RUNS, formatCount, pickerRuns, runColor, runLetter } from './shape';

// Made once: toLocaleString with options builds a formatter per call, once per listed run.
const DATE_TIME = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' });

function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : DATE_TIME.format(date);
}

export function RunTag({ index }: { index: number }) {
  const fill = runColor(index);
  return (
    <span className="run-tag" style={{ background: fill, color: inkOn(fill) }} aria-hidden="true">
      {runLetter(index)}
    </span>
  );
}

/**
 * The runs that can be compared, newest first as the engine lists them. Checkboxes pick runs;
 * the radio picks which of the picked runs the others are measured against. By keyboard: the
 * search has focus while nothing is picked; Enter picks the first run it shows and clears it.
 */
export const RunPicker = memo(function RunPicker({
  runs,
  selected,
  baseline,
  onToggle,
  onBaseline,
}: {
  runs: ComparableRun[];
  selected: readonly string[];
  baseline: string | null;
  onToggle: (runId: string) => void;
  onBaseline: (runId: string) => void;
}) {
  const full = selected.length >= MAX_COMPARED_RUNS;
  const [search, setSearch] = useState('');
  const shown = pickerRuns(runs, selected, search);
  const searchRef = useRef<HTMLInputElement>(null);
  // An empty Compare opens on picking: the search takes focus (once, on arrival).
  const startsEmpty = useRef(selected.length === 0);
  useEffect(() => {
    if (startsEmpty.current) searchRef.current?.focus();
  }, []);
  const firstPickable = shown.find(
    (run) => !selected.includes(run.id) && run.answered !== 0 && !full,
  );
  return (
    <>
      <div className="run-picker-search">
        <input
          ref={searchRef}
          type="search"
          aria-label="Search runs"
          aria-describedby="run-picker-enter"
          placeholder="Search runs by name, tag, sweep, sample, preset, id…"
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key !== 'Enter' || firstPickable === undefined) return;
            event.preventDefault();
            onToggle(firstPickable.id);
            setSearch('');
          }}
        />
        <span className="muted" id="run-picker-enter">
          {firstPickable ? (
            <>
              <kbd>Enter</kbd> picks {runLabel(firstPickable)}
            </>
          ) : null}
        </span>
        <span className="muted" aria-live="polite">
          {formatCount(shown.length - selected.length)} of{' '}
          {formatCount(runs.length - selected.length)} other runs shown; picked runs stay on top
        </span>
      </div>
      <div className="table-scroll run-picker">
        <table aria-label="Runs to compare">
          <thead>
            <tr>
              <th scope="col" className="center">
                Compare
              </th>
              <th scope="col" className="center">
                Baseline
              </th>
              <th scope="col">Run</th>
              <th scope="col">Preset</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">
                Samples
              </th>
              <th scope="col" className="num">
                Questions
              </th>
              <th scope="col" className="num">
                Top-k
              </th>
              <th scope="col" className="num">
                Seed
              </th>
              <th scope="col">Answerer</th>
              <th scope="col">Judge</th>
              <th scope="col" className="num">
                Answer errors
              </th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((run) => {
              const position = selected.indexOf(run.id);
              const isSelected = position >= 0;
              const unanswered = run.answered === 0;
              // By the run's name (or its sweep cell's, or preset and id), as the user knows it.
              const name = runLabel(run);
              return (
                <tr key={run.id} className={isSelected ? 'selected' : ''}>
                  <td className="center">
                    <input
                      type="checkbox"
                      aria-label={`Compare ${name}`}
                      checked={isSelected}
                      disabled={(!isSelected && full) || (!isSelected && unanswered)}
                      onChange={() => onToggle(run.id)}
                    />
                  </td>
                  <td className="center">
                    <input
                      type="radio"
                      name="compare-baseline"
                      aria-label={`Baseline ${name}`}
                      checked={baseline === run.id && isSelected}
                      disabled={!isSelected}
                      onChange={() => onBaseline(run.id)}
                    />
                  </td>
                  <td>
                    <span className="run-name">
                      {isSelected ? (
                        <RunTag index={position} />
                      ) : (
                        <span className="run-tag-space" />
                      )}
                      <span className="run-picker-label">
                        {runName(run) ? <strong>{runName(run)}</strong> : null}
                        {run.tags.map((tag) => (
                          <span key={tag} className="badge run-tag-chip">
                            {tag}
                          </span>
                        ))}
                        <code>{run.id}</code>
                      </span>
                    </span>
                  </td>
                  <td>{run.preset}</td>
                  <td>
                    <span className={`badge status-${run.status}`}>{run.status}</span>
                    {unanswered ? <span className="muted"> · no answers</span> : null}
                  </td>
                  <td className="num">{formatCount(run.samples)}</td>
                  <td className="num">{formatCount(run.questions)}</td>
                  <td className="num">{run.topK ?? '—'}</td>
                  <td className="num">{run.seed ?? '—'}</td>
                  <td>{run.answerer ?? '—'}</td>
                  <td>{run.judgeProtocol ?? <span className="muted">none</span>}</td>
                  <td className={`num${run.answerErrors > 0 ? ' text-danger' : ''}`}>
                    {formatCount(run.answerErrors)}
                  </td>
                  <td className="nowrap">{formatDate(run.createdAt)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
});
