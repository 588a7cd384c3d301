import { useState, type ReactNode } from 'react';
import type { ApiInput, MemoryPresetInfo } from '@shared/api';
import { DESIGNED_PRESET } from '@shared/designs';
import { WINK_EMBEDDER } from '@shared/embedders';
import { endpointLlmFields, type ModelEndpoint } from '@shared/models';
import { useApi } from '../../hooks/useApi';
import { EndpointSelect } from '../models/EndpointSelect';
import { embedderForOption, embedderOptionValue, embedderOptions } from '../models/shape';
import {
  EXTERNAL_PRESET,
  defaultPreset,
  memoryFor,
  memoryOptions,
  withEmbedder,
  type RunFormField,
} from './shape';
import { usePresetConfig } from './useRunFormChecks';

/**
 * The run form's memory: a built-in preset or a saved design (Collections view) as one list,
 * with the preset's config, its embedder, its memory LLM, or your own service's URL.
 */
export function useMemoryChoice(
  presets: MemoryPresetInfo[] | undefined,
  endpoints: readonly ModelEndpoint[],
) {
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
  const memoryOption = memoryList.find((o) => o.value === chosenMemory);
  const presetValue = memory?.preset ?? null;
  // Your own memory service (docs/memory-protocol.md): the UI takes a running service's URL; a
  // command to start one is a CLI flag (the browser-mode API refuses commands).
  const external = presetValue === EXTERNAL_PRESET;
  const [serviceUrl, setServiceUrl] = useState('');
  const configEditable = presetValue !== null && !external && presetValue !== DESIGNED_PRESET;
  const presetConfig = usePresetConfig(presetValue, configEditable);
  const memoryConfig =
    memory !== null && external ? { ...memory, config: { url: serviceUrl.trim() } } : memory;

  // Memory LLM: only offered for presets with an LLM stage (memoryos facts, tiers summaries).
  const llmStage = memoryOption?.llmStage ?? null;
  const requiresLlm = memoryOption?.requiresLlm ?? false;
  const [memoryLlmId, setMemoryLlmId] = useState('none');
  const memoryLlm =
    llmStage === null ? null : (endpoints.find((e) => e.id === memoryLlmId) ?? null);
  // Embedder: for presets with a vector index; a saved endpoint that serves /v1/embeddings.
  const takesEmbedder = memoryOption?.embedder ?? false;
  const [embedderOption, setEmbedderOption] = useState<string>(WINK_EMBEDDER);
  const embedder = takesEmbedder ? embedderForOption(endpoints, embedderOption) : null;

  const problems = [
    presetValue === null ? 'No memory preset is available.' : null,
    external && !/^http:\/\/\S+$/.test(serviceUrl.trim())
      ? 'Give the memory service URL, e.g. http://127.0.0.1:8765.'
      : null,
    presetConfig.issues.length > 0 ? 'Fix the preset config.' : null,
    requiresLlm && memoryLlm === null
      ? `${chosenMemory} needs a memory LLM (${llmStage ?? 'its LLM stage'}): choose a saved endpoint${endpoints.length === 0 ? ' (save one in the Models view first)' : ''}.`
      : null,
  ].filter((p) => p !== null);
  /** The run's memory as the engine takes it; null while there is none to choose. */
  const input: ApiInput<'experiments.start'>['memory'] | null =
    memoryConfig === null
      ? null
      : {
          ...withEmbedder(
            configEditable && presetConfig.parsed.ok
              ? {
                  ...memoryConfig,
                  config: { ...presetConfig.parsed.value, ...memoryConfig.config },
                }
              : memoryConfig,
            embedder,
          ),
          ...(memoryLlm ? { llm: endpointLlmFields(memoryLlm) } : {}),
        };
  return {
    presets,
    endpoints,
    memoryList,
    chosenMemory,
    setMemoryValue,
    configEditable,
    presetConfig,
    takesEmbedder,
    embedder,
    setEmbedderOption,
    external,
    serviceUrl,
    setServiceUrl,
    llmStage,
    requiresLlm,
    memoryLlm,
    setMemoryLlmId,
    problems,
    input,
  };
}

export type MemoryChoice = ReturnType<typeof useMemoryChoice>;

/** The memory's fields of the run form. */
export function MemoryFields({
  choice: c,
  fieldError,
  invalid,
}: {
  choice: MemoryChoice;
  fieldError: (field: RunFormField) => ReactNode;
  invalid: (field: RunFormField) => boolean;
}) {
  return (
    <>
      <label className="field">
        <span className="field-label">Memory preset</span>
        <select
          value={c.chosenMemory ?? ''}
          disabled={c.memoryList.length === 0}
          aria-invalid={invalid('memory')}
          onChange={(event) => c.setMemoryValue(event.currentTarget.value)}
        >
          {c.presets === undefined ? <option value="">loading…</option> : null}
          {c.memoryList.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
        {fieldError('memory')}
      </label>
      {c.configEditable ? (
        <label className="field field-wide">
          <span className="field-label">
            Preset config <span className="muted">(JSON, checked by the preset&apos;s schema)</span>
          </span>
          <textarea
            className="config-editor"
            rows={3}
            spellCheck={false}
            value={c.presetConfig.text}
            aria-invalid={c.presetConfig.issues.length > 0}
            onChange={(event) => c.presetConfig.setText(event.currentTarget.value)}
          />
          {c.presetConfig.issues.map((issue) => (
            <span key={`${issue.path}:${issue.message}`} className="field-error" role="alert">
              {issue.path}: {issue.message}
            </span>
          ))}
        </label>
      ) : null}
      {c.takesEmbedder && c.endpoints.length > 0 ? (
        <label className="field field-wide">
          <span className="field-label">Embedder</span>
          <select
            value={
              c.embedder === null ? WINK_EMBEDDER : embedderOptionValue(c.endpoints, c.embedder)
            }
            onChange={(event) => c.setEmbedderOption(event.currentTarget.value)}
          >
            {embedderOptions(c.endpoints, c.embedder ?? WINK_EMBEDDER).map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {c.external ? (
        <label className="field">
          <span className="field-label">Memory service URL</span>
          <input
            type="url"
            placeholder="http://127.0.0.1:8765"
            value={c.serviceUrl}
            onChange={(event) => c.setServiceUrl(event.currentTarget.value)}
          />
        </label>
      ) : null}
      {c.llmStage !== null && c.endpoints.length > 0 ? (
        <EndpointSelect
          label={`Memory LLM (${c.llmStage})`}
          wide
          endpoints={c.endpoints}
          chosen={c.memoryLlm}
          none={
            c.requiresLlm
              ? { value: 'none', label: 'None (this preset cannot run without one)' }
              : { value: 'none', label: 'None (stage off)' }
          }
          onChange={c.setMemoryLlmId}
        />
      ) : null}
    </>
  );
}
