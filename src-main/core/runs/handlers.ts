import type { ApiOutput, ApiParsedInput } from '../../../src-shared/api';
import { ApiKeySource } from '../keys';
import { runQueries, type ReadMethod, type RunQueries } from './queries';
import { rescoreRun } from './rescore';
import type { RunStore } from './store';

/**
 * The API's `runs.*` methods over one runs database: the read views (queries.ts) and the writes.
 * The service serves them to the UI (reads in a read worker, writes behind its running-run guard)
 * and the CLI calls them directly on the database it opened, so a view exists once.
 */
export const RUN_WRITE_METHODS = ['runs.delete', 'runs.setIdentity', 'runs.rescore'] as const;
export type RunWriteMethod = (typeof RUN_WRITE_METHODS)[number];
export type RunsMethod = ReadMethod | RunWriteMethod;

export type RunWrites = {
  [K in RunWriteMethod]: (input: ApiParsedInput<K>) => Promise<ApiOutput<K>>;
};

export type RunsHandlers = RunQueries & RunWrites;

/** How a rescore's judge behaves for its caller. */
export interface RunWriteOptions {
  /** False: the caller is not the local user, so the judge's errors never quote its replies. */
  quoteReplies?: boolean;
  /** Hears what a rescore's judge pass is doing (retries, an early stop): the CLI's stderr. */
  log?: (message: string) => void;
}

/** `apiKeys`: where a rescore's judge reads its key (the caller's key policy). */
export function runWrites(
  store: RunStore,
  apiKeys = new ApiKeySource(),
  { quoteReplies = true, log }: RunWriteOptions = {},
): RunWrites {
  return {
    'runs.delete': async ({ runId }) => ({ deleted: store.deleteRun(runId) }),
    'runs.setIdentity': async ({ runId, ...patch }) => store.setRunIdentity(runId, patch),
    'runs.rescore': ({ runId, metrics, judge, judges: more }) => {
      const judges = [...(judge ? [judge] : []), ...(more ?? [])];
      // One endpoint's key per pass; every judge's variable is checked against the policy.
      const keys = Object.assign(
        {},
        ...judges.map((j, i) =>
          apiKeys.keysFor(
            j.apiKeyEnv,
            'rescore judge',
            i === 0 && judge
              ? ['judge', 'apiKeyEnv']
              : ['judges', i - (judge ? 1 : 0), 'apiKeyEnv'],
          ),
        ),
      );
      return rescoreRun(store, runId, {
        ...(metrics ? { metrics } : {}),
        ...(judges.length > 0 ? { judges, keys, quoteReplies, ...(log ? { log } : {}) } : {}),
      });
    },
  };
}

export function runsHandlers(
  store: RunStore,
  apiKeys?: ApiKeySource,
  options?: RunWriteOptions,
): RunsHandlers {
  return { ...runQueries(store), ...runWrites(store, apiKeys, options) };
}
