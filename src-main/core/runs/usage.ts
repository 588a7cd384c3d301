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
