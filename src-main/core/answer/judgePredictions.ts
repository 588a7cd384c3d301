import type { BenchmarkProfile } from '../../../src-shared/benchmarks';
import { judgeConfigFor, type JudgeConfig } from '../../../src-shared/experiment';
import type { ApiKeys } from '../keys';
import type { ScoredPrediction } from '../scoring/predictions';
import { LlmJudge, judgeAnswer, type JudgeCache } from './judge';

/** What a judge pass over predictions reports beside the scores: who judged, and at what cost. */
export interface PredictionJudgeReport {
  model: string;
  repeats: number;
  protocol: string;
  promptSha256: string;
  unparseableReplies: number;
  calls: number;
  cacheHits: number;
  errors: number;
  usage: ReturnType<LlmJudge['client']['totals']>;
}

/**
 * Judges each scored prediction (`cli score` with a judge), as a run's judge would: the protocol
 * the config names or the benchmark's own, every verdict through `cache`. Each item gets its
 * `judge` score and the `judge` metric; `onWarning` hears first when the protocol is another
 * benchmark's judge.
 */
export async function judgePredictions(
  items: ScoredPrediction[],
  config: JudgeConfig,
  profile: BenchmarkProfile,
  options: { cache: JudgeCache; keys: ApiKeys; onWarning?: (warning: string) => void },
): Promise<PredictionJudgeReport> {
  const { config: resolved, warning } = judgeConfigFor(config, profile);
  if (warning) options.onWarning?.(warning);
  const judge = new LlmJudge(resolved, { cache: options.cache, keys: options.keys });
  await Promise.all(
    items.map(async (item) => {
      item.judge = await judgeAnswer(judge, { ...item, error: null }, profile);
      item.scores = { ...item.scores, judge: item.judge?.mean ?? null };
    }),
  );
  return {
    model: judge.model,
    repeats: judge.repeats,
    protocol: judge.prompt.style,
    promptSha256: judge.prompt.sha256,
    unparseableReplies: judge.stats.unparseableReplies,
    calls: judge.stats.calls,
    cacheHits: judge.stats.cacheHits,
    errors: judge.stats.errors,
    usage: judge.client.totals(),
  };
}
