import type { LlmPrices } from '../../../src-shared/experiment';
import type { TokenTotals } from '../../../src-shared/runs';

/** Cost in USD of `usage` at `prices` per million tokens; null without prices. */
export function costOf(
  usage: Pick<TokenTotals, 'promptTokens' | 'completionTokens'>,
  prices: LlmPrices | undefined,
): number | null {
  if (!prices) return null;
  return (
    (usage.promptTokens * prices.inputPerMillion +
      usage.completionTokens * prices.outputPerMillion) /
    1_000_000
  );
}
