import { useCallback, useState, type FormEvent } from 'react';
import type { BenchmarkProfile, SchemeId } from '@shared/benchmarks';
import { toErrorPayload, type ErrorPayload } from '@shared/errors';
import type { HumanLabel, LabellingSession } from '@shared/labels';
import { useClient } from '../../api/context';
import { ErrorView } from '../../components/ErrorView';
import { useApi } from '../../hooks/useApi';
import { downloadFile } from '../../lib/download';
import { LabelFigures } from './LabelFigures';
import { LabellingCard } from './LabellingCard';
import { LABELLER_STORAGE_KEY } from './labelling';

/** The size a labelling sample is offered with: enough per category for a first reading of κ. */
const DEFAULT_PER_CATEGORY = 10;

function storedLabeller(): string | null {
  try {
    return window.localStorage.getItem(LABELLER_STORAGE_KEY);
  } catch {
    return null;
  }
}

/**
 * The Runs view's human labels (issue 37 item 2): the labeller's name (asked once), the run's
 * stored labelling sample, the labelling mode (LabellingCard, keyboard only), CSV export and
 * import, and the figures (LabelFigures).
 */
export function LabellingPanel({
  runId,
  running,
  datasetSha256,
  profile,
  scheme,
  labelling,
  setLabelling,
}: {
  runId: string;
  running: boolean;
  datasetSha256: string | null;
  profile: BenchmarkProfile;
  scheme: SchemeId;
  /** The labelling mode is open (in the URL, so a reload resumes it). */
  labelling: boolean;
  setLabelling: (open: boolean) => void;
}) {
  const client = useClient();
  const [labeller, setLabeller] = useState<string | null>(storedLabeller);
  const session = useApi('labels.session', labeller ? { runId, labeller } : { runId });
  const figures = useApi('labels.agreement', { runId });
  const [error, setError] = useState<ErrorPayload | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const reloadSession = session.reload;
  const reloadFigures = figures.reload;

  const call = useCallback(async (work: () => Promise<void>) => {
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(toErrorPayload(e));
    }
  }, []);

  const nameLabeller = (name: string) => {
    try {
      window.localStorage.setItem(LABELLER_STORAGE_KEY, name);
    } catch {
      // Private mode: the name holds for this visit only.
    }
    setLabeller(name);
  };

  const stop = useCallback(() => {
    setLabelling(false);
    reloadSession();
    reloadFigures();
  }, [setLabelling, reloadSession, reloadFigures]);

  const importFile = async (file: File) =>
    call(async () => {
      const result = await client.call('labels.import', { content: await file.text() });
      setNote(`Imported ${result.imported} labels by ${result.labellers.join(', ') || 'nobody'}.`);
      reloadSession();
      reloadFigures();
    });

  return (
    <section className="panel labelling-panel" aria-labelledby="labelling-title">
      <div className="panel-head">
        <h2 id="labelling-title">Human labels</h2>
        <div className="toolbar">
          <button
            type="button"
            className="small"
            onClick={() =>
              void call(async () => downloadFile(await client.call('labels.export', { runId })))
            }
          >
            Export labels CSV
          </button>
          <label className="small file-button">
            Import labels CSV
            <input
              type="file"
              accept=".csv,text/csv"
              aria-label="Import labels CSV"
              onChange={(event) => {
                const file = event.currentTarget.files?.[0];
                event.currentTarget.value = '';
                if (file) void importFile(file);
              }}
            />
          </label>
        </div>
      </div>
      {error ? <ErrorView error={error} /> : null}
      {note ? (
        <p role="status" className="muted">
          {note}
        </p>
      ) : null}
      {labeller === null ? (
        <LabellerForm onName={nameLabeller} />
      ) : session.error ? (
        <ErrorView error={session.error} />
      ) : session.data === undefined ? (
        <p className="muted">Loading…</p>
      ) : session.data === null ? (
        <SampleForm
          running={running}
          onDraw={(request) =>
            void call(async () => {
              await client.call('labels.createSession', { runId, ...request });
              reloadSession();
            })
          }
        />
      ) : labelling ? (
        <LabellingCard
          session={session.data}
          labeller={labeller}
          datasetSha256={datasetSha256}
          profile={profile}
          scheme={scheme}
          onSave={(item, label) =>
            client.call('labels.save', {
              runId,
              labeller,
              label,
              key: {
                sampleId: item.sampleId,
                testIndex: item.testIndex,
                questionIndex: item.questionIndex,
              },
            })
          }
          onStop={stop}
        />
      ) : (
        <SessionSummary
          session={session.data}
          labeller={labeller}
          onStart={() => setLabelling(true)}
          onRename={() => setLabeller(null)}
        />
      )}
      <LabelFigures state={figures} />
    </section>
  );
}

function LabellerForm({ onName }: { onName: (name: string) => void }) {
  const [name, setName] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() !== '') onName(name.trim());
  };
  return (
    <form aria-label="Labeller" onSubmit={submit} className="inline-form">
      <label className="inline-field">
        Your name (saved with each label)
        <input value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={80} />
      </label>
      <button type="submit" disabled={name.trim() === ''}>
        Start labelling
      </button>
    </form>
  );
}

function SampleForm({
  running,
  onDraw,
}: {
  running: boolean;
  onDraw: (request: { perCategory: number; seed: number }) => void;
}) {
  const [perCategory, setPerCategory] = useState(String(DEFAULT_PER_CATEGORY));
  const [seed, setSeed] = useState('0');
  const valid = /^[1-9]\d*$/.test(perCategory) && /^\d+$/.test(seed);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (valid) onDraw({ perCategory: Number(perCategory), seed: Number(seed) });
  };
  return (
    <form aria-label="Labelling sample" onSubmit={submit} className="inline-form">
      <p className="muted">
        A labelling sample is drawn once per run and stored, so every labeller sees the same answers
        in the same order: a seeded random sample of each judged category&apos;s final answers (all
        of a smaller category).
      </p>
      <label className="inline-field">
        Answers per category
        <input
          inputMode="numeric"
          value={perCategory}
          onChange={(e) => setPerCategory(e.currentTarget.value)}
        />
      </label>
      <label className="inline-field">
        Seed
        <input inputMode="numeric" value={seed} onChange={(e) => setSeed(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled={!valid || running}>
        Draw labelling sample
      </button>
      {running ? <span className="muted"> (when the run ends)</span> : null}
    </form>
  );
}

function SessionSummary({
  session,
  labeller,
  onStart,
  onRename,
}: {
  session: LabellingSession;
  labeller: string;
  onStart: () => void;
  onRename: () => void;
}) {
  const total = session.items.length;
  return (
    <div className="labelling-summary">
      <p>
        {labeller}: {session.labels.filter((l: HumanLabel | null) => l !== null).length} of {total}{' '}
        labelled · sample of {session.perCategory} per category, seed {session.seed}
      </p>
      <button type="button" onClick={onStart}>
        {session.next >= total ? 'Review labels' : `Label answers from ${session.next + 1}`}
      </button>{' '}
      <button type="button" className="small" onClick={onRename}>
        Not {labeller}?
      </button>
    </div>
  );
}
