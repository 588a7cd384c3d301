import { ResponseCache, type RecordedEndpoint } from '../answer/responseCache';
import { dataCacheDir } from '../embed/cache';
import type { RunOptions } from './runContext';

/**
 * Before a run reads the response cache, its entries from before endpoint keys (schema 1) are
 * attributed to the endpoint the runs database proves they were made for, once per cache file
 * (answer/responseCache.ts `adoptLegacy`): every recorded run's answerer and memory LLM, by model.
 * A run that cannot be read leaves every old entry unattributed (never read), not guessed.
 */
export function adoptLegacyResponses(options: RunOptions): void {
  if (options.responseCache === undefined || options.responseCache === 'off') return;
  ResponseCache.adoptLegacy(dataCacheDir(options.dataDir), () => {
    const recorded: RecordedEndpoint[] = [];
    try {
      for (const { id } of options.store.listRuns()) {
        const { config } = options.store.getRun(id).manifest;
        if (config.answerer.kind === 'llm') recorded.push(config.answerer);
        if (config.memory.llm) recorded.push(config.memory.llm);
      }
    } catch {
      return null;
    }
    return recorded;
  });
}
