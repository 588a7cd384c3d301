import type { Sample } from '../../../src-shared/dataset';
import { WorkbenchError } from '../../../src-shared/errors';
import {
  retrievedTurnIds,
  type ExperimentConfig,
  type ScoringRanking,
} from '../../../src-shared/experiment';
import { benchmarkCategory, benchmarkProfile } from '../../../src-shared/benchmarks';
import { rankingReachesDepth } from '../../../src-shared/metrics';
import type { MemoryHit } from '../answer/types';
import type { MemoryService } from '../memory/types';
import { withTimeout } from './timeout';

/**
 * The ranking a question's depth-reading metrics are scored on (LongMemEval's: its reference ranks
 * every user turn, so assistant turns in the memory's top-k must not take up k). The answer's own
 * hits come first; when they do not reach the depth, the memory is asked again, for more items
 * each time, until they do or it returns fewer than asked (it has no more, or caps its top_k); a
 * memory that answers itself gives its hits only.
 * Only the answer's hits go to the answerer: this is scoring, and costs retrievals only on
 * benchmarks whose metrics read deeper (none on LoCoMo).
 */

type Qa = Sample['qa'][number];

/** What of a question's test (askQuestion's `TestAsk`) the deeper reads use. */
export interface DepthAsk {
  memory: MemoryService;
  job: { config: ExperimentConfig; benchmark: string };
  cancel: AbortSignal | undefined;
}

/** The turns hits cite, as the stored answer's refs give them (`toRefs`, `retrievedTurnIds`). */
function turnsOf(hits: readonly MemoryHit[]): string[] {
  return retrievedTurnIds(
    hits.map((h) => ({
      diaId: h.diaId,
      ...(h.diaIds && h.diaIds.length > 1 ? { diaIds: [...h.diaIds] } : {}),
    })),
    hits.length,
  );
}

/** Each deeper request asks for this many times the previous one. */
const DEPTH_GROWTH = 4;

/** Whether a ranking reaches the depth; null where no depth-reading metric scores the question. */
function depthCheck(ask: DepthAsk, qa: Qa): ((turns: readonly string[]) => boolean) | null {
  const category = benchmarkCategory(benchmarkProfile(ask.job.benchmark), qa.category);
  const input = (turns: readonly string[]) => ({
    prediction: '',
    gold: qa.answer,
    category,
    evidence: qa.evidence,
    retrieved: [],
    topK: ask.job.config.retrieval.topK,
    ranking: turns,
    ...(qa.retrievalCorpus ? { retrievalCorpus: qa.retrievalCorpus } : {}),
    errored: false,
  });
  if (rankingReachesDepth(input([])) === null) return null;
  return (turns) => rankingReachesDepth(input(turns)) === true;
}

/** The ranking of the hits at hand, read no deeper (a failed retrieval: none). */
export function hitsRanking(
  ask: DepthAsk,
  qa: Qa,
  hits: readonly MemoryHit[],
): ScoringRanking | null {
  const reaches = depthCheck(ask, qa);
  if (!reaches) return null;
  const turns = turnsOf(hits);
  return { turns, reached: reaches(turns) };
}

/**
 * Null where no depth-reading metric scores the question. The caller holds the memory (its lock,
 * before the sample inserts more): the deeper requests must see what the answer's request saw.
 */
export async function scoringRankingOf(
  ask: DepthAsk,
  qa: Qa,
  hits: readonly MemoryHit[],
): Promise<ScoringRanking | null> {
  const reaches = depthCheck(ask, qa);
  if (!reaches) return null;
  let turns = turnsOf(hits);
  if (reaches(turns)) return { turns, reached: true };
  let returned = hits.length;
  let asked = ask.job.config.retrieval.topK;
  while (returned >= asked) {
    asked = returned * DEPTH_GROWTH;
    const deeper = await deeperHits(ask, qa, asked);
    // A memory that gives no more for a larger request has no more to give.
    if (deeper === null || deeper.length <= returned) break;
    returned = deeper.length;
    turns = turnsOf(deeper);
    if (reaches(turns)) return { turns, reached: true };
  }
  return { turns, reached: false };
}

/** The memory's first `depth` hits; null when the request failed (the figure stays a bound). */
async function deeperHits(ask: DepthAsk, qa: Qa, depth: number): Promise<MemoryHit[] | null> {
  const { memory, job, cancel } = ask;
  try {
    return await withTimeout(
      `retrieve for question ${qa.index} (scoring depth ${depth})`,
      job.config.timeouts.answerMs,
      () => memory.retrieve(qa.question, depth, { questionDate: qa.questionDate ?? null }),
      cancel,
    );
  } catch (error) {
    if (cancel?.aborted && error instanceof WorkbenchError && error.code === 'CANCELLED') {
      throw error;
    }
    return null;
  }
}
