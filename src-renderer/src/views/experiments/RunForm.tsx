import { useId, useState, type FormEvent, type ReactNode } from 'react';
import type { ApiInput, DatasetSummary, MemoryPresetInfo } from '@shared/api';
import {
  DEFAULT_ANSWER_TIMEOUT_MS,
  DEFAULT_INSERT_TIMEOUT_MS,
  DEFAULT_SEED,
  DEFAULT_TOP_K,
} from '@shared/experiment';
import { ExperimentConfigSchema } from '@shared/experiment/config';
import type { ErrorPayload } from '@shared/errors';
import {
  EMPTY_IDENTITY_DRAFT,
  RunIdentityFields,
  identityOfDraft,
  type RunIdentityDraft,
} from '../runs/RunIdentity';
import { ErrorView } from '../../components/ErrorView';
import { plural } from '../../lib/format';
import { useApi } from '../../hooks/useApi';
import { PROTOCOL_MODES, type ProtocolMode } from '@shared/dataset/packets';
import {
  RUN_FORM_BOUNDS,
  estimateLine,
  invalidSampleCount,
  parallelChoices,
  parseIntIn,
  parseWholeNumber,
  runFormFieldOf,
  runFormIssues,
  samplesToRun,
  type RunFormField,
} from './shape';
import { LlmFields, useLlmChoices } from './LlmFields';
import { MemoryFields, useMemoryChoice } from './MemoryFields';
import { PROTOCOL_MODE_LABELS } from './runFormLabels';
import { SampleChooser } from './SampleChooser';
import { useRunEstimate } from './useRunFormChecks';

/** What the config schema fills in for a config that leaves everything out. */
const SCHEMA_DEFAULTS = ExperimentConfigSchema.parse({ datasetPath: '-' });
const TOP_K = RUN_FORM_BOUNDS.topK;
const TIMEOUT_S = RUN_FORM_BOUNDS.timeoutSeconds;

/** The samples chosen for one dataset; another dataset starts again from "all". */
interface SampleChoice {
  datasetId: string;
  ids: ReadonlySet<string>;
}

export function RunForm({
  datasets,
  dataset,
  onDatasetChange,
  presets,
  presetsError,
  busy,
  error,
  onRun,
}: {
  datasets: DatasetSummary[];
  dataset: DatasetSummary;
  onDatasetChange: (datasetId: string) => void;
  presets: MemoryPresetInfo[] | undefined;
  presetsError: ErrorPayload | undefined;
  busy: boolean;
  error: ErrorPayload | null;
  onRun: (config: ApiInput<'experiments.start'>) => void;
}) {
  const ids = useId();
  const allIds = dataset.stats.samples.map((s) => s.sampleId);
  const [choice, setChoice] = useState<SampleChoice | null>(null);
  // Derived, not synced: a choice made for another dataset means nothing for this one.
  const chosen: ReadonlySet<string> =
    choice !== null && choice.datasetId === dataset.datasetId ? choice.ids : new Set(allIds);
  const choose = (next: Iterable<string>) =>
    setChoice({ datasetId: dataset.datasetId, ids: new Set(next) });

  const [topK, setTopK] = useState(String(DEFAULT_TOP_K));
  const [seed, setSeed] = useState(String(DEFAULT_SEED));
  const [parallel, setParallel] = useState(SCHEMA_DEFAULTS.parallel);
  const [identity, setIdentity] = useState<RunIdentityDraft>(EMPTY_IDENTITY_DRAFT);
  // Timeouts in seconds, as a person thinks of them; the config takes milliseconds.
  const [insertTimeout, setInsertTimeout] = useState(String(DEFAULT_INSERT_TIMEOUT_MS / 1000));
  const [answerTimeout, setAnswerTimeout] = useState(String(DEFAULT_ANSWER_TIMEOUT_MS / 1000));
  const insertTimeoutValue = parseIntIn(insertTimeout, TIMEOUT_S);
  const answerTimeoutValue = parseIntIn(answerTimeout, TIMEOUT_S);
  const [includeNoEvidence, setIncludeNoEvidence] = useState(SCHEMA_DEFAULTS.includeNoEvidence);
  const [mode, setMode] = useState<ProtocolMode>('stream');
  const parallelOptions = parallelChoices(navigator.hardwareConcurrency, chosen.size);
  const parallelValue = Math.min(parallel, parallelOptions.length);

  const models = useApi('models.list', {});
  const endpoints = models.data ?? [];
  const llm = useLlmChoices(endpoints);
  const memory = useMemoryChoice(presets, endpoints);

  const topKValue = parseWholeNumber(topK);
  const seedValue = parseWholeNumber(seed);
  const samples = samplesToRun(dataset, chosen);
  // "All" of a file with invalid samples: the engine refuses unless told to skip them, so the
  // form says it skips them and the run's manifest records which.
  const invalidCount = invalidSampleCount(dataset);
  const skipInvalid = samples === undefined && invalidCount > 0;
  const problems = [
    chosen.size === 0 ? 'Choose at least one sample.' : null,
    ...memory.problems,
    topKValue === null ? 'Top-k must be a whole number.' : null,
    seedValue === null ? 'Seed must be a whole number.' : null,
    insertTimeoutValue === null || answerTimeoutValue === null
      ? `Timeouts must be whole seconds from ${TIMEOUT_S.min} to ${TIMEOUT_S.max}.`
      : null,
    ...llm.problems,
  ].filter((p) => p !== null);

  /** The run as the engine takes it; null while the form has a problem. */
  const candidate = ((): ApiInput<'experiments.start'> | null => {
    if (
      problems.length > 0 ||
      memory.input === null ||
      topKValue === null ||
      seedValue === null ||
      insertTimeoutValue === null ||
      answerTimeoutValue === null
    ) {
      return null;
    }
    return {
      datasetId: dataset.datasetId,
      ...(samples ? { samples } : {}),
      ...(skipInvalid ? { skipInvalid: true } : {}),
      memory: memory.input,
      ...llm.input,
      retrieval: { topK: topKValue },
      seed: seedValue,
      parallel: parallelValue,
      identity: identityOfDraft(identity),
      timeouts: { insertMs: insertTimeoutValue * 1000, answerMs: answerTimeoutValue * 1000 },
      includeNoEvidence,
      // Stream is the engine's default: left out, as the CLI leaves it out without --mode, so
      // such a run's config (and its hash) is the one it always was.
      ...(mode === 'stream' ? {} : { mode }),
    };
  })();
  // The engine's own schema, asked before the run is sent: its messages go beside their fields.
  const issues = candidate === null ? {} : runFormIssues(candidate);
  const runInput = Object.keys(issues).length === 0 ? candidate : null;
  if (candidate !== null && runInput === null) problems.push('Fix the fields marked above.');
  const currentEstimate = useRunEstimate(runInput);

  // The engine's validation error after a run was sent, beside the field its path names.
  const errorField = runFormFieldOf(error);
  const fieldError = (field: RunFormField): ReactNode => {
    const messages = [
      ...(issues[field] ?? []),
      ...(error !== null && errorField === field ? [error.message] : []),
    ];
    return messages.map((message) => (
      <span key={message} className="field-error" role="alert">
        {message}
      </span>
    ));
  };
  const invalid = (field: RunFormField) => issues[field] !== undefined || errorField === field;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (runInput !== null) onRun(runInput);
  };

  return (
    <form className="panel run-form" aria-labelledby={`${ids}-title`} onSubmit={submit}>
      <h2 id={`${ids}-title`}>New experiment</h2>
      <RunIdentityFields value={identity} onChange={setIdentity} />

      <label className="field">
        <span className="field-label">Dataset</span>
        <select
          value={dataset.datasetId}
          onChange={(event) => onDatasetChange(event.currentTarget.value)}
        >
          {datasets.map((d) => (
            <option key={d.datasetId} value={d.datasetId}>
              {d.name} ({plural(d.stats.totals.samples, 'sample')})
            </option>
          ))}
        </select>
      </label>

      <SampleChooser
        dataset={dataset}
        chosen={chosen}
        onChoose={choose}
        invalidCount={invalidCount}
        skipInvalid={skipInvalid}
        error={fieldError('samples')}
      />

      <div className="field-grid">
        <MemoryFields choice={memory} fieldError={fieldError} invalid={invalid} />
        <LlmFields choices={llm} fieldError={fieldError} invalid={invalid} />
        <label className="field">
          <span className="field-label">Top-k</span>
          <input
            type="number"
            min={TOP_K.min}
            max={TOP_K.max}
            value={topK}
            aria-invalid={topKValue === null || invalid('retrieval')}
            onChange={(event) => setTopK(event.currentTarget.value)}
          />
          {fieldError('retrieval')}
        </label>
        <label className="field">
          <span className="field-label">Seed</span>
          <input
            type="number"
            value={seed}
            aria-invalid={seedValue === null || invalid('seed')}
            onChange={(event) => setSeed(event.currentTarget.value)}
          />
          {fieldError('seed')}
        </label>
        <label className="field">
          <span className="field-label">Insert timeout (s)</span>
          <input
            type="number"
            min={TIMEOUT_S.min}
            max={TIMEOUT_S.max}
            value={insertTimeout}
            aria-invalid={insertTimeoutValue === null || invalid('timeouts')}
            onChange={(event) => setInsertTimeout(event.currentTarget.value)}
          />
        </label>
        <label className="field">
          <span className="field-label">Answer timeout (s)</span>
          <input
            type="number"
            min={TIMEOUT_S.min}
            max={TIMEOUT_S.max}
            value={answerTimeout}
            aria-invalid={answerTimeoutValue === null || invalid('timeouts')}
            onChange={(event) => setAnswerTimeout(event.currentTarget.value)}
          />
          {fieldError('timeouts')}
        </label>
        <label className="field field-wide">
          <span className="field-label">Protocol mode</span>
          <select
            value={mode}
            onChange={(event) => setMode(event.currentTarget.value as ProtocolMode)}
          >
            {PROTOCOL_MODES.map((m) => (
              <option key={m} value={m}>
                {PROTOCOL_MODE_LABELS[m]}
              </option>
            ))}
          </select>
        </label>
        <label className="field field-wide field-check">
          <span>
            <input
              type="checkbox"
              checked={includeNoEvidence}
              onChange={(event) => setIncludeNoEvidence(event.currentTarget.checked)}
            />{' '}
            Ask questions without usable evidence (at the last packet)
          </span>
        </label>
        <label className="field">
          <span className="field-label">Parallel samples</span>
          <select
            value={parallelValue}
            onChange={(event) => setParallel(Number(event.currentTarget.value))}
          >
            {parallelOptions.map((n) => (
              <option key={n} value={n}>
                {n} {n === 1 ? 'worker' : 'workers'}
              </option>
            ))}
          </select>
        </label>
      </div>

      {presetsError ? (
        <ErrorView error={presetsError} title="Could not list memory presets" />
      ) : null}
      {presets !== undefined && presets.length === 0 ? (
        <p className="notice">The engine lists no memory preset yet.</p>
      ) : null}
      {problems.length > 0 ? (
        <ul className="form-problems" aria-live="polite">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      {issues.form ? (
        <ErrorView
          error={{ code: 'INVALID_INPUT', message: issues.form.join('; ') }}
          title="The engine would refuse this run"
        />
      ) : null}
      {error && errorField === null ? (
        <ErrorView error={error} title="Could not start the run" />
      ) : null}

      <p className="run-estimate muted" role="status" aria-label="Estimate">
        {runInput === null
          ? 'Estimate: fix the form first.'
          : currentEstimate === null
            ? 'Estimate: …'
            : currentEstimate.ok
              ? `Estimate: ${estimateLine(currentEstimate.value)}`
              : `Estimate unavailable: ${currentEstimate.error.message}`}
      </p>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy || problems.length > 0}>
          {busy ? 'Starting…' : 'Run'}
        </button>
        <span className="muted">
          {mode === 'stream'
            ? 'Questions are re-asked at every test as the conversation grows; the headline is each question’s final answer.'
            : 'The whole conversation is inserted first, then each question is asked once.'}
        </span>
      </div>
    </form>
  );
}
