import { useState, type FormEvent } from 'react';
import { toErrorPayload, type ErrorPayload } from '@shared/errors';
import { MAX_RUN_NAME, MAX_RUN_NOTES, parseTagList, runName, type RunIdentity } from '@shared/runs';
import type { SweepTag } from '@shared/sweeps';
import { useClient } from '../../api/context';
import { ErrorView } from '../../components/ErrorView';
import './runIdentity.css';

/** What the three fields hold while typed: tags as one comma-separated line. */
export interface RunIdentityDraft {
  name: string;
  tags: string;
  notes: string;
}

export const EMPTY_IDENTITY_DRAFT: RunIdentityDraft = { name: '', tags: '', notes: '' };

export function identityOfDraft(draft: RunIdentityDraft): RunIdentity {
  return { name: draft.name.trim(), tags: parseTagList(draft.tags), notes: draft.notes };
}

/** Name, tags and notes: at launch (Experiments form) and when editing a run (Runs view). */
export function RunIdentityFields({
  value,
  onChange,
}: {
  value: RunIdentityDraft;
  onChange: (next: RunIdentityDraft) => void;
}) {
  return (
    <div className="field-grid run-identity-fields">
      <label className="field">
        <span className="field-label">Run name</span>
        <input
          type="text"
          maxLength={MAX_RUN_NAME}
          placeholder="e.g. hybrid, top-k 5"
          value={value.name}
          onChange={(event) => onChange({ ...value, name: event.currentTarget.value })}
        />
      </label>
      <label className="field">
        <span className="field-label">Tags</span>
        <input
          type="text"
          placeholder="comma-separated, e.g. baseline, ablation"
          value={value.tags}
          onChange={(event) => onChange({ ...value, tags: event.currentTarget.value })}
        />
      </label>
      <label className="field field-wide">
        <span className="field-label">Notes</span>
        <textarea
          rows={2}
          maxLength={MAX_RUN_NOTES}
          value={value.notes}
          onChange={(event) => onChange({ ...value, notes: event.currentTarget.value })}
        />
      </label>
    </div>
  );
}

/**
 * A run's name, tags and notes as shown in the Runs view, with an editor. An unnamed sweep cell
 * reads as the Runs list names it (runName); the editor still edits only the stored name.
 */
export function RunIdentityEditor({
  runId,
  identity,
  sweep,
  onSaved,
}: {
  runId: string;
  identity: RunIdentity;
  sweep: SweepTag | undefined;
  onSaved: () => void;
}) {
  const shownName = runName({ name: identity.name, sweep });
  const client = useClient();
  const [draft, setDraft] = useState<RunIdentityDraft | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorPayload | null>(null);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (draft === null) return;
    setBusy(true);
    setError(null);
    try {
      await client.call('runs.setIdentity', { runId, ...identityOfDraft(draft) });
      setDraft(null);
      onSaved();
    } catch (e) {
      setError(toErrorPayload(e));
    } finally {
      setBusy(false);
    }
  };

  if (draft === null) {
    return (
      <section className="panel run-identity" aria-label="Run name, tags and notes">
        <div className="run-identity-view">
          <strong
            title={!identity.name && shownName ? 'named from its sweep and grid point' : undefined}
          >
            {shownName || <span className="muted">(no name)</span>}
          </strong>
          {identity.tags.map((tag) => (
            <span key={tag} className="badge run-tag-chip">
              {tag}
            </span>
          ))}
          <button
            type="button"
            className="small-button"
            onClick={() =>
              setDraft({
                name: identity.name,
                tags: identity.tags.join(', '),
                notes: identity.notes,
              })
            }
          >
            Edit name, tags, notes
          </button>
        </div>
        {identity.notes ? <p className="run-notes">{identity.notes}</p> : null}
      </section>
    );
  }
  return (
    <form
      className="panel run-identity"
      aria-label="Edit run name, tags and notes"
      onSubmit={(event) => void save(event)}
    >
      <RunIdentityFields value={draft} onChange={setDraft} />
      {error ? <ErrorView error={error} title="Could not save" /> : null}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" disabled={busy} onClick={() => setDraft(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
