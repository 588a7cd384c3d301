import { useState } from 'react';
import type { RunDetail } from '@shared/api';
import { toErrorPayload, type ErrorPayload } from '@shared/errors';
import { PAPER_MARKUPS, paperTable, type PaperMarkup } from '@shared/paperTables';
import { runTitle } from '@shared/runs';
import { useClient } from '../../api/context';
import { ErrorView } from '../../components/ErrorView';

const MARKUP_LABELS: Record<PaperMarkup, string> = { md: 'Markdown', latex: 'LaTeX' };

interface CopyChoice {
  format: string;
  as: PaperMarkup;
  label: string;
}

/**
 * What "Copy as" offers: each of the run's own benchmark's report formats (its profile's
 * `reportFormats`, named by their labels) in each markup.
 */
export function copyChoices(profile: RunDetail['benchmark']): CopyChoice[] {
  return profile.reportFormats.flatMap((f) =>
    PAPER_MARKUPS.map((as) => ({ format: f.id, as, label: `${f.label} · ${MARKUP_LABELS[as]}` })),
  );
}

/**
 * "Copy as" (the run as a row of a paper's table) and "Rescore" (every registered metric again
 * from the stored answers, API `runs.rescore`); `onRescored` reloads the run's scores.
 */
export function RunScoreActions({
  detail,
  onRescored,
}: {
  detail: RunDetail;
  onRescored: () => void;
}) {
  const client = useClient();
  const [status, setStatus] = useState<string | null>(null);
  // Shown when the clipboard refuses (no permission): the text to copy by hand.
  const [manual, setManual] = useState<string | null>(null);
  const [error, setError] = useState<ErrorPayload | null>(null);
  const [busy, setBusy] = useState(false);
  const runId = detail.info.id;
  const choices = copyChoices(detail.benchmark);

  const copy = async (choice: CopyChoice) => {
    const text = paperTable(detail.summary, {
      format: choice.format,
      as: choice.as,
      // The name the researcher gave the run, as the paper will print it.
      label: runTitle(detail.info),
      profile: detail.benchmark,
    });
    setError(null);
    try {
      await navigator.clipboard.writeText(text);
      setManual(null);
      setStatus(`Copied as ${choice.label}`);
    } catch {
      setManual(text);
      setStatus(`The clipboard is not available: select the ${choice.label} below and copy it`);
    }
  };

  const rescore = async () => {
    setBusy(true);
    setError(null);
    setStatus(null);
    try {
      const result = await client.call('runs.rescore', { runId });
      const skipped = result.skipped.map((s) => ` Skipped ${s.metric}: ${s.reason}.`).join('');
      setStatus(
        `Rescored ${result.answers} answers under ${result.metrics.length} metrics (${result.written} scores).${skipped}`,
      );
      onRescored();
    } catch (e) {
      setError(toErrorPayload(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="run-score-actions">
      <div className="toolbar">
        <label>
          Copy as{' '}
          <select
            aria-label="Copy as"
            value=""
            onChange={(event) => {
              const choice = choices[Number(event.currentTarget.value)];
              if (choice) void copy(choice);
            }}
          >
            <option value="" disabled>
              a paper’s table…
            </option>
            {choices.map((c, i) => (
              <option key={c.label} value={i}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          disabled={busy || detail.info.status === 'running'}
          title="Score every answer again under every registered metric, from the stored answers"
          onClick={() => void rescore()}
        >
          {busy ? 'Rescoring…' : 'Rescore'}
        </button>
      </div>
      {status ? (
        <p role="status" className="muted">
          {status}
        </p>
      ) : null}
      {manual !== null ? (
        <textarea aria-label="Table to copy" readOnly rows={8} value={manual} />
      ) : null}
      {error ? <ErrorView error={error} title="Could not rescore the run" /> : null}
    </div>
  );
}
