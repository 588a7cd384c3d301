import { useEffect, useId, useState, type FormEvent } from 'react';
import { DESIGNED_PRESET } from '@shared/designs';
import { useClient } from '../../api/context';
import type { ApiInput, DatasetSummary, ExperimentEstimate, MemoryPresetInfo } from '@shared/api';
import {
  ANSWER_PROTOCOLS,
  DEFAULT_ANSWER_TIMEOUT_MS,
  DEFAULT_INSERT_TIMEOUT_MS,
  DEFAULT_JUDGE_PROTOCOL,
  DEFAULT_JUDGE_REPEATS,
  DEFAULT_SEED,
  DEFAULT_TOP_K,
  RESPONSE_CACHE_MODES,
  type AnswerProtocolName,
  type JudgeProtocolName,
  type ResponseCacheMode,
} from '@shared/experiment';
import { endpointLlmFields } from '@shared/models';
import { toErrorPayload, type ErrorPayload } from '@shared/errors';
import {
  EMPTY_IDENTITY_DRAFT,
  RunIdentityFields,
  identityOfDraft,
  type RunIdentityDraft,
} from '../runs/RunIdentity';
import { ErrorView } from '../../components/ErrorView';
import { useApi } from '../../hooks/useApi';
import { embedderForOption, embedderOptionValue, embedderOptions } from '../models/shape';
import { EndpointSelect, JudgeProtocolSelect } from '../models/EndpointSelect';
import { WINK_EMBEDDER } from '@shared/embedders';
import { PROTOCOL_MODES, type ProtocolMode } from '@shared/dataset/packets';
import {
  EXTERNAL_PRESET,
  MAX_FORM_CONCURRENCY,
  defaultPreset,
  estimateLine,
  invalidSampleCount,
  memoryFor,
  withEmbedder,
  memoryOptions,
  parallelChoices,
  parseConfigText,
  parseIntInRange,
  runFormFieldOf,
  samplesToRun,
  type RunFormField,
} from './shape';

const ANSWER_PROTOCOL_LABELS: Record<AnswerProtocolName, string> = {
  'workbench-locomo': 'Workbench, LoCoMo-style (retrieved memories)',
  'workbench-mem0': 'Workbench, Mem0-style (retrieved memories)',
  'locomo-full-context': 'LoCoMo full context (paper, byte-exact)',
  'locomo-rag': 'LoCoMo RAG (paper, byte-exact; locomo-rag-* presets)',
  mem0: 'Mem0 (paper, byte-exact)',
  'mem0-rag': "Mem0's RAG baseline (paper, byte-exact; mem0-rag-chunks preset)",
  'mem0-full-context': "Mem0's full-context baseline (paper, byte-exact)",
  longmemeval: 'LongMemEval reader, chain-of-note (paper, byte-exact)',
  'longmemeval-direct': 'LongMemEval reader, direct (paper, byte-exact)',
  'longmemeval-con-separate':
    'LongMemEval reading notes per retrieved round, then chain-of-note (paper, byte-exact)',
  'longmemeval-full-context': 'LongMemEval full history, chain-of-note (paper, byte-exact)',
};

/** Short: the select sits in half a row; the manifest says what each did. */
const RESPONSE_CACHE_LABELS: Record<ResponseCacheMode, string> = {
  on: 'On (repeats free)',
  off: 'Off (always ask)',
  only: 'Replay only',
};

/** `cli experiment --mode`: when the questions are asked. */
const PROTOCOL_MODE_LABELS: Record<ProtocolMode, string> = {
  stream: 'Stream: ask as questions become visible, again at every test',
  'ingest-all': "Ingest all, ask once (the papers' protocol)",
};

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

  // Memory: a built-in preset or a saved design (Collections view), as one list.
  const designs = useApi('designs.list', {});
  const memoryList = memoryOptions(presets, designs.data?.designs);
  const [memoryValue, setMemoryValue] = useState<string | null>(null);
  const fallback = defaultPreset(presets);
  const chosenMemory =
    memoryValue !== null && memoryList.some((o) => o.value === memoryValue)
      ? memoryValue
      : fallback;
  const memory =
    chosenMemory === null ? null : memoryFor(chosenMemory, presets, designs.data?.designs);
  const presetValue = memory?.preset ?? null;
  // Your own memory service (docs/memory-protocol.md): the UI takes a running service's URL; a
  // command to start one is a CLI flag (the browser-mode API refuses commands).
  const external = presetValue === EXTERNAL_PRESET;
  const [serviceUrl, setServiceUrl] = useState('');
  // A built-in preset's config, as JSON text checked by the preset's own schema on the engine
  // (memory.checkConfig), the same check `cli experiment --config` makes.
  const client = useClient();
  const configEditable = presetValue !== null && !external && presetValue !== DESIGNED_PRESET;
  const [configChoice, setConfigChoice] = useState<{ preset: string; text: string } | null>(null);
  const configText =
    configChoice !== null && configChoice.preset === presetValue ? configChoice.text : '{}';
  const parsedConfig = parseConfigText(configText);
  const [configProblems, setConfigProblems] = useState<{
    key: string;
    problems: Array<{ path: string; message: string }>;
  } | null>(null);
  const configKey = `${presetValue ?? ''}\u0000${configText}`;
  useEffect(() => {
    if (!configEditable || presetValue === null || !parsedConfig.ok) return undefined;
    const config = parsedConfig.value;
    let stale = false;
    // Checked once typing pauses, not on every key.
    const timer = setTimeout(() => {
      client
        .call('memory.checkConfig', { preset: presetValue, config })
        .then(({ problems }) => {
          if (!stale) setConfigProblems({ key: configKey, problems });
        })
        .catch(() => {});
    }, 300);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
    // parsedConfig is derived from configKey.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, configEditable, configKey]);
  const configIssues = !configEditable
    ? []
    : !parsedConfig.ok
      ? [{ path: 'memory.config', message: parsedConfig.message }]
      : configProblems?.key === configKey
        ? configProblems.problems
        : [];
  const memoryConfig =
    memory !== null && external ? { ...memory, config: { url: serviceUrl.trim() } } : memory;
  const [topK, setTopK] = useState(String(DEFAULT_TOP_K));
  const [seed, setSeed] = useState(String(DEFAULT_SEED));
  const [parallel, setParallel] = useState(1);
  const [identity, setIdentity] = useState<RunIdentityDraft>(EMPTY_IDENTITY_DRAFT);
  // Timeouts in seconds, as a person thinks of them; the config takes milliseconds.
  const [insertTimeout, setInsertTimeout] = useState(String(DEFAULT_INSERT_TIMEOUT_MS / 1000));
  const [answerTimeout, setAnswerTimeout] = useState(String(DEFAULT_ANSWER_TIMEOUT_MS / 1000));
  const insertTimeoutValue = parseIntInRange(insertTimeout, 1, 86_400);
  const answerTimeoutValue = parseIntInRange(answerTimeout, 1, 86_400);
  const [includeNoEvidence, setIncludeNoEvidence] = useState(true);
  const [mode, setMode] = useState<ProtocolMode>('stream');
  const parallelOptions = parallelChoices(navigator.hardwareConcurrency, chosen.size);
  const parallelValue = Math.min(parallel, parallelOptions.length);

  // LLM answerer and judge: saved endpoints (Models view). A choice whose endpoint was deleted
  // falls back to the offline default rather than sending a stale config.
  const models = useApi('models.list', {});
  const endpoints = models.data ?? [];
  const [answererId, setAnswererId] = useState('extractive');
  const answerer = endpoints.find((e) => e.id === answererId) ?? null;
  const [answerProtocol, setAnswerProtocol] = useState<AnswerProtocolName>('workbench-locomo');
  const [judgeProtocol, setJudgeProtocol] = useState<JudgeProtocolName>(DEFAULT_JUDGE_PROTOCOL);
  const [judgeId, setJudgeId] = useState('none');
  const judge = endpoints.find((e) => e.id === judgeId) ?? null;
  const [repeats, setRepeats] = useState(String(DEFAULT_JUDGE_REPEATS));
  // LLM requests in flight for the whole run; empty: one question at a time (the engine default).
  const [concurrency, setConcurrency] = useState('');
  const [responseCache, setResponseCache] = useState<ResponseCacheMode>('on');
  const concurrencyValue =
    concurrency.trim() === '' ? undefined : parseIntInRange(concurrency, 1, MAX_FORM_CONCURRENCY);
  const repeatsValue = parseIntInRange(repeats, 1, 20);
  // Memory LLM: only offered for presets with an LLM stage (memoryos facts, tiers summaries).
  const llmStage = memoryList.find((o) => o.value === chosenMemory)?.llmStage ?? null;
  const requiresLlm = memoryList.find((o) => o.value === chosenMemory)?.requiresLlm ?? false;
  const [memoryLlmId, setMemoryLlmId] = useState('none');
  const memoryLlm =
    llmStage === null ? null : (endpoints.find((e) => e.id === memoryLlmId) ?? null);
  // Embedder: for presets with a vector index; a saved endpoint that serves /v1/embeddings.
  const takesEmbedder = memoryList.find((o) => o.value === chosenMemory)?.embedder ?? false;
  const [embedderOption, setEmbedderOption] = useState<string>(WINK_EMBEDDER);
  const embedder = takesEmbedder ? embedderForOption(endpoints, embedderOption) : null;

  const topKValue = parseIntInRange(topK, 1, 1000);
  const seedValue = parseIntInRange(seed, -(2 ** 31), 2 ** 31 - 1);
  const samples = samplesToRun(dataset, chosen);
  // "All" of a file with invalid samples: the engine refuses unless told to skip them, so the
  // form says it skips them and the run's manifest records which.
  const invalidCount = invalidSampleCount(dataset);
  const skipInvalid = samples === undefined && invalidCount > 0;
  // The engine's validation error, shown beside the field its path names.
  const errorField = runFormFieldOf(error);
  const fieldError = (field: RunFormField) =>
    error !== null && errorField === field ? (
      <span className="field-error" role="alert">
        {error.message}
      </span>
    ) : null;
  const problems = [
    chosen.size === 0 ? 'Choose at least one sample.' : null,
    presetValue === null ? 'No memory preset is available.' : null,
    external && !/^http:\/\/\S+$/.test(serviceUrl.trim())
      ? 'Give the memory service URL, e.g. http://127.0.0.1:8765.'
      : null,
    configIssues.length > 0 ? 'Fix the preset config.' : null,
    requiresLlm && memoryLlm === null
      ? `${chosenMemory} needs a memory LLM (${llmStage ?? 'its LLM stage'}): choose a saved endpoint${endpoints.length === 0 ? ' (save one in the Models view first)' : ''}.`
      : null,
    topKValue === null ? 'Top-k must be a whole number from 1 to 1000.' : null,
    seedValue === null ? 'Seed must be a whole number.' : null,
    insertTimeoutValue === null || answerTimeoutValue === null
      ? 'Timeouts must be whole seconds from 1 to 86400.'
      : null,
    judge !== null && repeatsValue === null
      ? 'Judge repeats must be a whole number from 1 to 20.'
      : null,
    answerer !== null && concurrencyValue === null
      ? `Concurrency must be a whole number from 1 to ${MAX_FORM_CONCURRENCY}.`
      : null,
  ].filter((p) => p !== null);

  /** The run as the engine takes it; null while the form has a problem. */
  const runInput = ((): ApiInput<'experiments.start'> | null => {
    if (
      problems.length > 0 ||
      memoryConfig === null ||
      topKValue === null ||
      seedValue === null ||
      insertTimeoutValue === null ||
      answerTimeoutValue === null
    ) {
      return null;
    }
    const judgeRepeats = repeatsValue ?? DEFAULT_JUDGE_REPEATS;
    return {
      datasetId: dataset.datasetId,
      ...(samples ? { samples } : {}),
      ...(skipInvalid ? { skipInvalid: true } : {}),
      memory: {
        ...withEmbedder(
          configEditable && parsedConfig.ok
            ? { ...memoryConfig, config: { ...parsedConfig.value, ...memoryConfig.config } }
            : memoryConfig,
          embedder,
        ),
        ...(memoryLlm ? { llm: endpointLlmFields(memoryLlm) } : {}),
      },
      answerer: answerer
        ? { kind: 'llm', ...endpointLlmFields(answerer), answerProtocol }
        : { kind: 'extractive' },
      ...(judge
        ? {
            judge: { ...endpointLlmFields(judge), repeats: judgeRepeats, protocol: judgeProtocol },
          }
        : {}),
      retrieval: { topK: topKValue },
      seed: seedValue,
      parallel: parallelValue,
      identity: identityOfDraft(identity),
      timeouts: { insertMs: insertTimeoutValue * 1000, answerMs: answerTimeoutValue * 1000 },
      includeNoEvidence,
      // Stream is the engine's default: left out, as the CLI leaves it out without --mode, so
      // such a run's config (and its hash) is the one it always was.
      ...(mode === 'stream' ? {} : { mode }),
      ...(answerer && concurrencyValue != null ? { concurrency: concurrencyValue } : {}),
      ...(answerer ? { responseCache } : {}),
    };
  })();

  // The planner's estimate of the run as the form stands (`cli experiment --dry-run`), asked
  // once editing pauses; the run's name and notes do not change it.
  const estimateKey = runInput === null ? null : JSON.stringify({ ...runInput, identity: null });
  const [estimate, setEstimate] = useState<{
    key: string;
    result: { ok: true; value: ExperimentEstimate } | { ok: false; error: ErrorPayload };
  } | null>(null);
  useEffect(() => {
    if (runInput === null || estimateKey === null) return undefined;
    const input = runInput;
    let stale = false;
    const timer = setTimeout(() => {
      client
        .call('experiments.estimate', input)
        .then((value) => {
          if (!stale) setEstimate({ key: estimateKey, result: { ok: true, value } });
        })
        .catch((error: unknown) => {
          if (!stale)
            setEstimate({ key: estimateKey, result: { ok: false, error: toErrorPayload(error) } });
        });
    }, 300);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
    // runInput is derived from estimateKey (and the identity, which the estimate ignores).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, estimateKey]);
  const currentEstimate =
    estimate !== null && estimate.key === estimateKey ? estimate.result : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (runInput !== null) onRun(runInput);
  };

  const questions = dataset.stats.samples
    .filter((s) => chosen.has(s.sampleId))
    .reduce((sum, s) => sum + s.qa, 0);

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
              {d.name} ({d.stats.totals.samples} samples)
            </option>
          ))}
        </select>
      </label>

      <fieldset className="field samples-field">
        <legend className="field-label">
          Samples{' '}
          <span className="muted">
            · {chosen.size} of {allIds.length} chosen, {questions} QA
          </span>
        </legend>
        <div className="sample-shortcuts">
          <button type="button" className="small" onClick={() => choose(allIds)}>
            All
          </button>
          <button type="button" className="small" onClick={() => choose(allIds.slice(0, 1))}>
            First sample only
          </button>
          <button type="button" className="small" onClick={() => choose([])}>
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
                    choose(next);
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
        {fieldError('samples')}
      </fieldset>

      <div className="field-grid">
        <label className="field">
          <span className="field-label">Memory preset</span>
          <select
            value={chosenMemory ?? ''}
            disabled={memoryList.length === 0}
            aria-invalid={errorField === 'memory'}
            onChange={(event) => setMemoryValue(event.currentTarget.value)}
          >
            {presets === undefined ? <option value="">loading…</option> : null}
            {memoryList.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
          {fieldError('memory')}
        </label>
        {configEditable ? (
          <label className="field field-wide">
            <span className="field-label">
              Preset config{' '}
              <span className="muted">(JSON, checked by the preset&apos;s schema)</span>
            </span>
            <textarea
              className="config-editor"
              rows={3}
              spellCheck={false}
              value={configText}
              aria-invalid={configIssues.length > 0}
              onChange={(event) => {
                const text = event.currentTarget.value;
                if (presetValue !== null) setConfigChoice({ preset: presetValue, text });
              }}
            />
            {configIssues.map((issue) => (
              <span key={`${issue.path}:${issue.message}`} className="field-error" role="alert">
                {issue.path}: {issue.message}
              </span>
            ))}
          </label>
        ) : null}
        {takesEmbedder && endpoints.length > 0 ? (
          <label className="field field-wide">
            <span className="field-label">Embedder</span>
            <select
              value={embedder === null ? WINK_EMBEDDER : embedderOptionValue(endpoints, embedder)}
              onChange={(event) => setEmbedderOption(event.currentTarget.value)}
            >
              {embedderOptions(endpoints, embedder ?? WINK_EMBEDDER).map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {external ? (
          <label className="field">
            <span className="field-label">Memory service URL</span>
            <input
              type="url"
              placeholder="http://127.0.0.1:8765"
              value={serviceUrl}
              onChange={(event) => setServiceUrl(event.currentTarget.value)}
            />
          </label>
        ) : null}
        {llmStage !== null && endpoints.length > 0 ? (
          <EndpointSelect
            label={`Memory LLM (${llmStage})`}
            wide
            endpoints={endpoints}
            chosen={memoryLlm}
            none={
              requiresLlm
                ? { value: 'none', label: 'None (this preset cannot run without one)' }
                : { value: 'none', label: 'None (stage off)' }
            }
            onChange={setMemoryLlmId}
          />
        ) : null}
        <EndpointSelect
          label="Answerer"
          wide={endpoints.length > 0}
          endpoints={endpoints}
          chosen={answerer}
          none={{ value: 'extractive', label: 'Extractive (offline)' }}
          onChange={setAnswererId}
        />
        {answerer ? (
          <label className="field">
            <span className="field-label">
              Concurrency <span className="muted">(LLM requests in flight)</span>
            </span>
            <input
              type="number"
              min={1}
              max={MAX_FORM_CONCURRENCY}
              placeholder="1 (one question at a time)"
              value={concurrency}
              aria-invalid={concurrencyValue === null}
              onChange={(event) => setConcurrency(event.currentTarget.value)}
            />
          </label>
        ) : null}
        {answerer ? (
          <label className="field">
            <span className="field-label">Response cache</span>
            <select
              value={responseCache}
              onChange={(event) => setResponseCache(event.currentTarget.value as ResponseCacheMode)}
            >
              {RESPONSE_CACHE_MODES.map((mode) => (
                <option key={mode} value={mode}>
                  {RESPONSE_CACHE_LABELS[mode]}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {answerer ? (
          <label className="field">
            <span className="field-label">Answer protocol</span>
            <select
              value={answerProtocol}
              onChange={(event) =>
                setAnswerProtocol(event.currentTarget.value as AnswerProtocolName)
              }
            >
              {ANSWER_PROTOCOLS.map((name) => (
                <option key={name} value={name}>
                  {ANSWER_PROTOCOL_LABELS[name]}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {endpoints.length > 0 ? (
          <>
            <EndpointSelect
              label="Judge"
              wide
              endpoints={endpoints}
              chosen={judge}
              none={{ value: 'none', label: 'No judge' }}
              onChange={setJudgeId}
            />
            {judge ? (
              <JudgeProtocolSelect value={judgeProtocol} onChange={setJudgeProtocol} />
            ) : null}
            {judge ? (
              <label className="field">
                <span className="field-label">Judge repeats</span>
                <input
                  type="number"
                  min={1}
                  max={20}
                  value={repeats}
                  aria-invalid={repeatsValue === null}
                  onChange={(event) => setRepeats(event.currentTarget.value)}
                />
              </label>
            ) : null}
          </>
        ) : null}
        <label className="field">
          <span className="field-label">Top-k</span>
          <input
            type="number"
            min={1}
            max={1000}
            value={topK}
            aria-invalid={topKValue === null || errorField === 'retrieval'}
            onChange={(event) => setTopK(event.currentTarget.value)}
          />
          {fieldError('retrieval')}
        </label>
        <label className="field">
          <span className="field-label">Seed</span>
          <input
            type="number"
            value={seed}
            aria-invalid={seedValue === null || errorField === 'seed'}
            onChange={(event) => setSeed(event.currentTarget.value)}
          />
          {fieldError('seed')}
        </label>
        <label className="field">
          <span className="field-label">Insert timeout (s)</span>
          <input
            type="number"
            min={1}
            value={insertTimeout}
            aria-invalid={insertTimeoutValue === null}
            onChange={(event) => setInsertTimeout(event.currentTarget.value)}
          />
        </label>
        <label className="field">
          <span className="field-label">Answer timeout (s)</span>
          <input
            type="number"
            min={1}
            value={answerTimeout}
            aria-invalid={answerTimeoutValue === null}
            onChange={(event) => setAnswerTimeout(event.currentTarget.value)}
          />
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
