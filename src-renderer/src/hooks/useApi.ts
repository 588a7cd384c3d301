import { useCallback, useEffect, useState } from 'react';
import type { ApiInput, ApiName, ApiOutput } from '@shared/api';
import { toErrorPayload, type ErrorPayload } from '@shared/errors';
import { useClient } from '../api/context';

export interface ApiState<T> {
  data: T | undefined;
  error: ErrorPayload | undefined;
  loading: boolean;
  reload: () => void;
}

interface Settled<T> {
  request: string;
  data?: T;
  error?: ErrorPayload;
}

/** Calls an API method when its input changes; `input === null` means "not yet". */
export function useApi<K extends ApiName>(
  name: K,
  input: ApiInput<K> | null,
): ApiState<ApiOutput<K>> {
  const client = useClient();
  const [generation, setGeneration] = useState(0);
  const [settled, setSettled] = useState<Settled<ApiOutput<K>> | null>(null);
  const key = input === null ? null : JSON.stringify(input);
  // Loading is derived: the last settled answer belongs to another request.
  const request = key === null ? null : `${name}:${generation}:${key}`;

  useEffect(() => {
    if (key === null || request === null) return undefined;
    let cancelled = false;
    client
      .call(name, JSON.parse(key) as ApiInput<K>)
      .then((data) => !cancelled && setSettled({ request, data }))
      .catch(
        (error: unknown) => !cancelled && setSettled({ request, error: toErrorPayload(error) }),
      );
    return () => {
      cancelled = true;
    };
  }, [client, name, key, request]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return {
    data: settled?.data,
    error: settled?.error,
    loading: request !== null && settled?.request !== request,
    reload,
  };
}
