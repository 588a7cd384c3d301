import { useEffect, useState } from 'react';
import type { ApiInput, ExperimentEstimate } from '@shared/api';
import { toErrorPayload, type ErrorPayload } from '@shared/errors';
import { useClient } from '../../api/context';
import { parseConfigText } from './shape';

/** How long the form waits after the last edit before it asks the engine. */
const PAUSE_MS = 300;

/**
 * A built-in preset's config as JSON text, checked by the preset's own schema on the engine
 * (memory.checkConfig, the check `cli experiment --config` makes) once typing pauses. The text
 * belongs to its preset: another preset starts from `{}`.
 */
export function usePresetConfig(preset: string | null, editable: boolean) {
  const client = useClient();
  const [choice, setChoice] = useState<{ preset: string; text: string } | null>(null);
  const text = choice !== null && choice.preset === preset ? choice.text : '{}';
  const parsed = parseConfigText(text);
  const [checked, setChecked] = useState<{
    key: string;
    problems: Array<{ path: string; message: string }>;
  } | null>(null);
  const key = `${preset ?? ''}\u0000${text}`;
  useEffect(() => {
    if (!editable || preset === null || !parsed.ok) return undefined;
    const config = parsed.value;
    let stale = false;
    const timer = setTimeout(() => {
      client
        .call('memory.checkConfig', { preset, config })
        .then(({ problems }) => {
          if (!stale) setChecked({ key, problems });
        })
        .catch(() => {});
    }, PAUSE_MS);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
    // parsed is derived from key.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, editable, key]);
  const issues = !editable
    ? []
    : !parsed.ok
      ? [{ path: 'memory.config', message: parsed.message }]
      : checked?.key === key
        ? checked.problems
        : [];
  const setText = (next: string) => {
    if (preset !== null) setChoice({ preset, text: next });
  };
  return { text, setText, parsed, issues };
}

export type EstimateResult =
  { ok: true; value: ExperimentEstimate } | { ok: false; error: ErrorPayload };

/**
 * The planner's estimate of the run as the form stands (`cli experiment --dry-run`), asked once
 * editing pauses; the run's name and notes do not change it. Null while it is being asked.
 */
export function useRunEstimate(
  runInput: ApiInput<'experiments.start'> | null,
): EstimateResult | null {
  const client = useClient();
  const key = runInput === null ? null : JSON.stringify({ ...runInput, identity: null });
  const [estimate, setEstimate] = useState<{ key: string; result: EstimateResult } | null>(null);
  useEffect(() => {
    if (runInput === null || key === null) return undefined;
    const input = runInput;
    let stale = false;
    const timer = setTimeout(() => {
      client
        .call('experiments.estimate', input)
        .then((value) => {
          if (!stale) setEstimate({ key, result: { ok: true, value } });
        })
        .catch((error: unknown) => {
          if (!stale) setEstimate({ key, result: { ok: false, error: toErrorPayload(error) } });
        });
    }, PAUSE_MS);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
    // runInput is derived from key (and the identity, which the estimate ignores).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, key]);
  return estimate !== null && estimate.key === key ? estimate.result : null;
}
