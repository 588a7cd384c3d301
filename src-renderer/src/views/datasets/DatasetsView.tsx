import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import type { DatasetSummary } from '@shared/api';
import { benchmarkProfile, schemeLabelOf } from '@shared/benchmarks';
import { EmptyState } from '../../components/EmptyState/EmptyState';
import { ErrorView } from '../../components/ErrorView';
import { SchemeToggle } from '../../components/SchemeToggle/SchemeToggle';
import { useApi } from '../../hooks/useApi';
import { useMenuDatasetsError } from '../../hooks/useMenuDatasets';
import { EvidenceProblems } from './EvidenceProblems';
import { useDatasetsParams, useOpenDataset, useSampleSpeakers, type OpenStatus } from './hooks';
import { SampleDetail } from './SampleDetail';
import { SamplesTable, type SampleRow } from './SamplesTable';
import { formatBytes, formatCount, mergeDatasets, pickDataset, plural } from './shape';

export function DatasetsView() {
  // A file the desktop menu could not open (see useMenuDatasets).
  const { error: menuError, dismiss: onDismissMenuError } = useMenuDatasetsError();
  const [params, update] = useDatasetsParams();
  const list = useApi('datasets.list', {});
  const reloadList = list.reload;
  // A dataset named in the URL that the list lacks was opened elsewhere (the desktop menu, another
  // window): list again, once per id.
  const listed = list.data;
  const relistedFor = useRef<string | null>(null);
  useEffect(() => {
    const wanted = params.dataset;
    if (!listed || wanted === null || wanted === relistedFor.current) return;
    if (listed.some((d) => d.datasetId === wanted)) return;
    relistedFor.current = wanted;
    reloadList();
  }, [listed, params.dataset, reloadList]);
  const onOpened = useCallback(
    (summary: DatasetSummary) => {
      reloadList();
      update({ dataset: summary.datasetId, sample: null, question: null });
    },
    [reloadList, update],
  );
  const opener = useOpenDataset(onOpened);
  const datasets = useMemo(
    () => mergeDatasets(list.data, opener.lastOpened),
    [list.data, opener.lastOpened],
  );
  const dataset = pickDataset(datasets, params.dataset);
  // Browser mode with `serve --dataset-dir`: files opened by path on the server (the desktop app
  // answers none and opens paths through its own dialog).
  const serverFiles = useApi('datasets.folderFiles', {});
  const fileInput = useRef<HTMLInputElement>(null);
  const drag = useDropTarget((file) => void opener.open(file));
  const busy = opener.state.status === 'reading' || opener.state.status === 'uploading';

  return (
    <section
      className={`datasets-view${drag.active ? ' drop-active' : ''}`}
      aria-labelledby="view-title"
      {...drag.handlers}
    >
      <header className="view-header">
        <h1 id="view-title">Datasets</h1>
        <div className="toolbar">
          <button
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => fileInput.current?.click()}
          >
            Open dataset…
          </button>
          <input
            ref={fileInput}
            type="file"
            accept=".json,application/json"
            aria-label="Dataset file"
            hidden
            onChange={(event) => {
              const file = event.currentTarget.files?.[0];
              // Cleared so choosing the same file again (after fixing it) fires change again.
              event.currentTarget.value = '';
              if (file) void opener.open(file);
            }}
          />
          {serverFiles.data && serverFiles.data.length > 0 ? (
            <label className="inline-field">
              Server folder
              <select
                value=""
                disabled={busy}
                onChange={(event) => {
                  const chosen = serverFiles.data?.find(
                    (f) => f.path === event.currentTarget.value,
                  );
                  if (chosen) void opener.openFolderFile(chosen);
                }}
              >
                <option value="">Open a file by path…</option>
                {serverFiles.data.map((f) => (
                  <option key={f.path} value={f.path}>
                    {f.name} ({formatBytes(f.bytes)})
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          {datasets.length > 1 ? (
            <label className="inline-field">
              Dataset
              <select
                value={dataset?.datasetId ?? ''}
                onChange={(event) =>
                  update({ dataset: event.currentTarget.value, sample: null, question: null })
                }
              >
                {datasets.map((d) => (
                  <option key={d.datasetId} value={d.datasetId}>
                    {d.name} ({plural(d.stats.totals.samples, 'sample')})
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          {dataset ? (
            <SchemeToggle
              profile={benchmarkProfile(dataset.format)}
              value={params.scheme}
              onChange={(scheme) => update({ scheme })}
            />
          ) : null}
        </div>
      </header>

      {busy ? (
        <p className="progress" role="status">
          <span className="spinner" aria-hidden="true" />
          {progressText(opener.state)}
        </p>
      ) : null}
      {opener.state.status === 'error' ? (
        <div className="dismissable">
          <ErrorView error={opener.state.error} title={`Could not open ${opener.state.fileName}`} />
          <button type="button" onClick={opener.dismiss}>
            Dismiss
          </button>
        </div>
      ) : null}
      {menuError ? (
        <div className="dismissable">
          <ErrorView error={menuError} title="Could not open the dataset" />
          <button type="button" onClick={onDismissMenuError}>
            Dismiss
          </button>
        </div>
      ) : null}
      {list.error ? <ErrorView error={list.error} title="Could not list datasets" /> : null}
      {serverFiles.error ? (
        <ErrorView error={serverFiles.error} title="Could not list the server's dataset folders" />
      ) : null}

      {dataset === null ? (
        list.data === undefined && !list.error ? (
          <p className="muted" role="status">
            Loading datasets…
          </p>
        ) : (
          <EmptyState title="No dataset open.">
            Open a LoCoMo JSON file (for example <code>locomo10.json</code>) with the button above,
            or drop it anywhere on this page.
          </EmptyState>
        )
      ) : (
        <DatasetBody dataset={dataset} params={params} update={update} />
      )}

      {drag.active ? (
        <div className="drop-overlay" aria-hidden="true">
          Drop a LoCoMo JSON file to open it
        </div>
      ) : null}
    </section>
  );
}

function loaderProblemsLabel(problems: DatasetSummary['problems']): string {
  const skipped = problems.filter((p) => p.severity === 'error').length;
  const label = plural(problems.length, 'loader problem');
  return skipped > 0 ? `${label} (${skipped} skipped a sample)` : `${label} (tolerated)`;
}

function progressText(state: OpenStatus): string {
  if (state.status === 'reading') return `Reading ${state.fileName} (${state.detail})…`;
  if (state.status === 'uploading') return `Validating and opening ${state.fileName}…`;
  return '';
}

function DatasetBody({
  dataset,
  params,
  update,
}: {
  dataset: DatasetSummary;
  params: ReturnType<typeof useDatasetsParams>[0];
  update: ReturnType<typeof useDatasetsParams>[1];
}) {
  const { stats } = dataset;
  // The loader's format names the benchmark: its categories and names (LongMemEval's types).
  const profile = useMemo(() => benchmarkProfile(dataset.format), [dataset.format]);
  const sampleIds = useMemo(() => stats.samples.map((s) => s.sampleId), [stats]);
  const speakers = useSampleSpeakers(dataset.datasetId, sampleIds);
  const rows = useMemo<SampleRow[]>(
    () => stats.samples.map((s) => ({ ...s, speakers: speakers?.get(s.sampleId) ?? null })),
    [stats, speakers],
  );
  const sampleId =
    params.sample !== null && sampleIds.includes(params.sample) ? params.sample : null;

  return (
    <>
      <p className="dataset-facts">
        <strong>{dataset.name}</strong>
        <span className="muted">
          {dataset.format} · {formatBytes(dataset.bytes)} · {formatCount(stats.totals.samples)}{' '}
          samples · {formatCount(stats.totals.turns)} turns · {formatCount(stats.totals.qa)} QA ·
          sha256 <code title={dataset.sha256}>{dataset.sha256.slice(0, 12)}</code>
        </span>
      </p>
      {params.sample !== null && sampleId === null ? (
        <p className="notice">
          Sample “{params.sample}” is not in {dataset.name}; pick one from the table.
        </p>
      ) : null}
      {dataset.problems.length > 0 ? (
        <details className="panel loader-problems">
          <summary>{loaderProblemsLabel(dataset.problems)}</summary>
          <ul>
            {dataset.problems.map((p, i) => (
              <li key={i} className={p.severity === 'error' ? 'problem-error' : undefined}>
                <span className={`badge ${p.severity === 'error' ? 'badge-danger' : 'badge-warn'}`}>
                  {p.severity}
                </span>{' '}
                {p.message}
              </li>
            ))}
          </ul>
        </details>
      ) : null}

      <section className="panel" aria-labelledby="samples-title">
        <h2>
          <span id="samples-title">Samples</span>{' '}
          <span className="muted heading-note">
            · categories named by the {schemeLabelOf(profile, params.scheme)} scheme
          </span>
        </h2>
        <SamplesTable
          rows={rows}
          totals={stats.totals}
          scheme={params.scheme}
          profile={profile}
          selected={sampleId}
          onSelect={(id) => update({ sample: id, question: null })}
          sort={params.sort}
          onSortChange={(sort) => update({ sort })}
        />
      </section>

      <EvidenceProblems
        evidence={stats.evidence}
        onOpenQuestion={(sample, question) => update({ sample, question })}
      />

      {sampleId !== null ? (
        <SampleDetail
          datasetId={dataset.datasetId}
          sampleId={sampleId}
          scheme={params.scheme}
          profile={profile}
          categories={params.categories}
          search={params.search}
          question={params.question}
          onChange={update}
        />
      ) : (
        <p className="muted">Select a sample in the table to browse its sessions, turns and QA.</p>
      )}
    </>
  );
}

/**
 * Drag-and-drop of a file anywhere on the view. Enter/leave fire for every child crossed, so a
 * depth counter (not a boolean) decides when the pointer really left.
 */
function useDropTarget(onFile: (file: File) => void) {
  const [active, setActive] = useState(false);
  const depth = useRef(0);
  const hasFiles = (event: DragEvent) => event.dataTransfer.types.includes('Files');
  return {
    active,
    handlers: {
      onDragEnter: (event: DragEvent) => {
        if (!hasFiles(event)) return;
        event.preventDefault();
        depth.current++;
        setActive(true);
      },
      onDragOver: (event: DragEvent) => {
        // Without preventDefault the browser refuses the drop (and would open the file instead).
        if (hasFiles(event)) event.preventDefault();
      },
      onDragLeave: (event: DragEvent) => {
        if (!hasFiles(event)) return;
        depth.current = Math.max(0, depth.current - 1);
        if (depth.current === 0) setActive(false);
      },
      onDrop: (event: DragEvent) => {
        if (!hasFiles(event)) return;
        event.preventDefault();
        depth.current = 0;
        setActive(false);
        const file = event.dataTransfer.files[0];
        if (file) onFile(file);
      },
    },
  };
}
