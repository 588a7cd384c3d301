import { useMemo, useState } from 'react';
import { designIssues, type CollectionDesign, type DesignBasePreset } from '@shared/designs';
import { toErrorPayload, type ErrorPayload } from '@shared/errors';
import { useClient } from '../../api/context';
import { ErrorView } from '../../components/ErrorView';
import { useApi } from '../../hooks/useApi';
import { DesignEditor } from './DesignEditor';
import { DesignList } from './DesignList';
import { useCollectionsParams } from './hooks';
import { Playground } from './Playground';
import { reduceDesign, sameDesign, type DesignAction } from './shape';

type Status =
  | { kind: 'idle' | 'saving' }
  | { kind: 'saved' | 'deleted'; name: string }
  | { kind: 'error'; message: string };

/**
 * Collections: design a memory collection (indexes, fusion, re-ranking), save it, and try it in a
 * playground over one sample. Saved designs run in experiments as the `designed` memory preset.
 */
export function CollectionsView() {
  const client = useClient();
  const [params, update] = useCollectionsParams();
  const list = useApi('designs.list', {});
  const datasets = useApi('datasets.list', {});
  // The design being edited; until the user touches one, the saved design named in the URL.
  const [draft, setDraft] = useState<CollectionDesign | null>(null);
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const [presetError, setPresetError] = useState<ErrorPayload | null>(null);
  const fromUrl = list.data?.designs.find((d) => d.design.name === params.design)?.design ?? null;
  const design = draft ?? fromUrl;
  const issues = useMemo(() => (design ? designIssues(design) : []), [design]);
  const saved = design
    ? list.data?.designs.find((d) => d.design.name === design.name.trim())
    : undefined;

  const edit = (action: DesignAction) => {
    if (!design) return;
    setDraft(reduceDesign(design, action));
    setStatus({ kind: 'idle' });
  };
  const open = (name: string) => {
    const found = list.data?.designs.find((d) => d.design.name === name);
    if (!found) return;
    setDraft(found.design);
    setStatus({ kind: 'idle' });
    update({ design: name });
  };
  const newFromPreset = async (preset: DesignBasePreset) => {
    setPresetError(null);
    try {
      const fresh = await client.call('designs.fromPreset', { preset });
      setDraft(fresh);
      setStatus({ kind: 'idle' });
      update({ design: null });
    } catch (error) {
      setPresetError(toErrorPayload(error));
    }
  };
  const save = async () => {
    if (!design) return;
    setStatus({ kind: 'saving' });
    try {
      const result = await client.call('designs.save', { design });
      setDraft(result.design);
      setStatus({ kind: 'saved', name: result.design.name });
      update({ design: result.design.name });
      list.reload();
    } catch (error) {
      setStatus({ kind: 'error', message: toErrorPayload(error).message });
    }
  };
  const remove = async () => {
    if (!design) return;
    const name = design.name.trim();
    try {
      await client.call('designs.delete', { name });
      setDraft(null);
      setStatus({ kind: 'deleted', name });
      update({ design: null });
      list.reload();
    } catch (error) {
      setStatus({ kind: 'error', message: toErrorPayload(error).message });
    }
  };

  return (
    <section className="collections-view" aria-labelledby="view-title">
      <header className="view-header">
        <h1 id="view-title">Collections</h1>
        <p className="muted">
          Design a memory collection, try it on a sample, and run it in experiments as the{' '}
          <code>designed</code> preset.
        </p>
      </header>
      {list.error ? <ErrorView error={list.error} title="Could not list designs" /> : null}
      {presetError ? (
        <ErrorView error={presetError} title="Could not start from the preset" />
      ) : null}
      <div className="collections-layout">
        <DesignList
          list={list.data}
          selected={saved?.design.name ?? null}
          onSelect={open}
          onNewFromPreset={(preset) => void newFromPreset(preset)}
        />
        <div className="collections-main">
          {design ? (
            <DesignEditor
              design={design}
              issues={issues}
              dirty={!sameDesign(saved?.design ?? null, design)}
              savedExists={saved !== undefined}
              onChange={edit}
              onSave={() => void save()}
              onDelete={() => void remove()}
              status={status}
            />
          ) : (
            <div className="empty-state panel">
              <p>
                <strong>No design open.</strong>
              </p>
              <p className="muted">
                {status.kind === 'deleted' ? `Deleted “${status.name}”. ` : ''}
                Pick a saved design on the left, or start a new one from a preset.
              </p>
            </div>
          )}
        </div>
        {design ? (
          // Full width under both columns: the result columns need the room.
          <div className="collections-playground">
            <Playground
              design={design}
              designValid={issues.length === 0}
              datasets={datasets.data ?? []}
              datasetId={params.dataset}
              sampleId={params.sample}
              onPick={update}
            />
          </div>
        ) : null}
      </div>
    </section>
  );
}
