import type { ExperimentConfig, LlmPrices } from '../../../src-shared/experiment';
import type {
  LlmCallRecord,
  LlmCallRole,
  RunManifest,
  TokenTotals,
} from '../../../src-shared/runs';
import { costOf } from '../http/pricing';

/**
 * A run's token totals as its manifest reports them, from the call ledger (`llm_calls`): every
 * request sent, retries and failures included, kept across kills and resumes.
 */
export function ledgerTotals(
  ledger: readonly LlmCallRecord[],
  role: LlmCallRole,
  prices: LlmPrices | undefined,
  model?: string,
): TokenTotals {
  const sum = { calls: 0, failures: 0, promptTokens: 0, completionTokens: 0 };
  for (const r of ledger) {
    if (r.role !== role || (model !== undefined && r.model !== model)) continue;
    sum.calls += r.calls;
    sum.failures += r.failures;
    sum.promptTokens += r.promptTokens;
    sum.completionTokens += r.completionTokens;
  }
  return { ...sum, cost: costOf(sum, prices) };
}

/**
 * A role's requests answered from a cache (hits) and sent for want of a cached reply (misses),
 * from the call ledger: filed as they happen, so every launch's count, a killed one's included.
 */
export function ledgerCacheCounts(
  ledger: readonly LlmCallRecord[],
  role: LlmCallRole,
  model?: string,
): { hits: number; misses: number } {
  const sum = { hits: 0, misses: 0 };
  for (const r of ledger) {
    if (r.role !== role || (model !== undefined && r.model !== model)) continue;
    sum.hits += r.cacheHits ?? 0;
    sum.misses += r.cacheMisses ?? 0;
  }
  return sum;
}

/**
 * The manifest's `usage`: every role of the run's config, priced at the config's prices; the
 * preflight's requests when there were any, unpriced (they go to several endpoints).
 */
export function usageOf(
  config: ExperimentConfig,
  ledger: readonly LlmCallRecord[],
  judgeModel: string | null,
): NonNullable<RunManifest['usage']> {
  const preflight = ledgerTotals(ledger, 'preflight', undefined);
  return {
    answer: ledgerTotals(
      ledger,
      'answer',
      config.answerer.kind === 'llm' ? config.answerer.prices : undefined,
    ),
    judge:
      judgeModel === null ? null : ledgerTotals(ledger, 'judge', config.judge?.prices, judgeModel),
    memory: config.memory.llm ? ledgerTotals(ledger, 'memory', config.memory.llm.prices) : null,
    ...(preflight.calls > 0 ? { preflight } : {}),
  };
}
