import { useState, type ReactNode } from 'react';
import type { ApiInput } from '@shared/api';
import {
  ANSWER_PROTOCOLS,
  DEFAULT_JUDGE_PROTOCOL,
  DEFAULT_JUDGE_REPEATS,
  RESPONSE_CACHE_MODES,
  answerProtocolOf,
  type AnswerProtocolName,
  type JudgeProtocolName,
  type ResponseCacheMode,
} from '@shared/experiment';
import { endpointLlmFields, type ModelEndpoint } from '@shared/models';
import { EndpointSelect, JudgeProtocolSelect } from '../models/EndpointSelect';
import { ANSWER_PROTOCOL_LABELS, RESPONSE_CACHE_LABELS } from './runFormLabels';
import { RUN_FORM_BOUNDS, parseWholeNumber, type RunFormField } from './shape';

const { concurrency: CONCURRENCY, judgeRepeats: REPEATS } = RUN_FORM_BOUNDS;

type LlmInput = Pick<
  ApiInput<'experiments.start'>,
  'answerer' | 'judge' | 'concurrency' | 'responseCache'
>;

/**
 * The run form's LLM answerer and judge: saved endpoints (Models view). A choice whose endpoint
 * was deleted falls back to the offline default rather than sending a stale config.
 */
export function useLlmChoices(endpoints: readonly ModelEndpoint[]) {
  const [answererId, setAnswererId] = useState('extractive');
  const answerer = endpoints.find((e) => e.id === answererId) ?? null;
  const [answerProtocol, setAnswerProtocol] = useState<AnswerProtocolName>(answerProtocolOf({}));
  const [judgeProtocol, setJudgeProtocol] = useState<JudgeProtocolName>(DEFAULT_JUDGE_PROTOCOL);
  const [judgeId, setJudgeId] = useState('none');
  const judge = endpoints.find((e) => e.id === judgeId) ?? null;
  const [repeats, setRepeats] = useState(String(DEFAULT_JUDGE_REPEATS));
  // LLM requests in flight for the whole run; empty: one question at a time (the engine default).
  const [concurrency, setConcurrency] = useState('');
  const [responseCache, setResponseCache] = useState<ResponseCacheMode>('on');
  const concurrencyValue = concurrency.trim() === '' ? undefined : parseWholeNumber(concurrency);
  const repeatsValue = parseWholeNumber(repeats);
  const problems = [
    judge !== null && repeatsValue === null ? 'Judge repeats must be a whole number.' : null,
    answerer !== null && concurrencyValue === null ? 'Concurrency must be a whole number.' : null,
  ].filter((p) => p !== null);
  /** This part of the run as the engine takes it. */
  const input: LlmInput = {
    answerer: answerer
      ? { kind: 'llm', ...endpointLlmFields(answerer), answerProtocol }
      : { kind: 'extractive' },
    ...(judge
      ? {
          judge: {
            ...endpointLlmFields(judge),
            repeats: repeatsValue ?? DEFAULT_JUDGE_REPEATS,
            protocol: judgeProtocol,
          },
        }
      : {}),
    ...(answerer && concurrencyValue != null ? { concurrency: concurrencyValue } : {}),
    ...(answerer ? { responseCache } : {}),
  };
  return {
    endpoints,
    answerer,
    setAnswererId,
    answerProtocol,
    setAnswerProtocol,
    judge,
    setJudgeId,
    judgeProtocol,
    setJudgeProtocol,
    repeats,
    setRepeats,
    repeatsValue,
    concurrency,
    setConcurrency,
    concurrencyValue,
    responseCache,
    setResponseCache,
    problems,
    input,
  };
}

export type LlmChoices = ReturnType<typeof useLlmChoices>;

/** The answerer's and judge's fields of the run form, each with the errors of its part. */
export function LlmFields({
  choices: c,
  fieldError,
  invalid,
}: {
  choices: LlmChoices;
  fieldError: (field: RunFormField) => ReactNode;
  invalid: (field: RunFormField) => boolean;
}) {
  return (
    <>
      <EndpointSelect
        label="Answerer"
        wide={c.endpoints.length > 0}
        endpoints={c.endpoints}
        chosen={c.answerer}
        none={{ value: 'extractive', label: 'Extractive (offline)' }}
        onChange={c.setAnswererId}
      />
      {fieldError('answerer')}
      {c.answerer ? (
        <label className="field">
          <span className="field-label">
            Concurrency <span className="muted">(LLM requests in flight)</span>
          </span>
          <input
            type="number"
            min={CONCURRENCY.min}
            max={CONCURRENCY.max}
            placeholder="1 (one question at a time)"
            value={c.concurrency}
            aria-invalid={c.concurrencyValue === null || invalid('concurrency')}
            onChange={(event) => c.setConcurrency(event.currentTarget.value)}
          />
          {fieldError('concurrency')}
        </label>
      ) : null}
      {c.answerer ? (
        <label className="field">
          <span className="field-label">Response cache</span>
          <select
            value={c.responseCache}
            onChange={(event) => c.setResponseCache(event.currentTarget.value as ResponseCacheMode)}
          >
            {RESPONSE_CACHE_MODES.map((mode) => (
              <option key={mode} value={mode}>
                {RESPONSE_CACHE_LABELS[mode]}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {c.answerer ? (
        <label className="field">
          <span className="field-label">Answer protocol</span>
          <select
            value={c.answerProtocol}
            onChange={(event) =>
              c.setAnswerProtocol(event.currentTarget.value as AnswerProtocolName)
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
      {c.endpoints.length > 0 ? (
        <>
          <EndpointSelect
            label="Judge"
            wide
            endpoints={c.endpoints}
            chosen={c.judge}
            none={{ value: 'none', label: 'No judge' }}
            onChange={c.setJudgeId}
          />
          {c.judge ? (
            <JudgeProtocolSelect value={c.judgeProtocol} onChange={c.setJudgeProtocol} />
          ) : null}
          {c.judge ? (
            <label className="field">
              <span className="field-label">Judge repeats</span>
              <input
                type="number"
                min={REPEATS.min}
                max={REPEATS.max}
                value={c.repeats}
                aria-invalid={c.repeatsValue === null || invalid('judge')}
                onChange={(event) => c.setRepeats(event.currentTarget.value)}
              />
            </label>
          ) : null}
          {fieldError('judge')}
        </>
      ) : null}
    </>
  );
}
