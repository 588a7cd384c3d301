import {
  lmeRankingReachesDepth,
  lmeSessionRetrieval,
  lmeTurnRetrieval,
  type LmeRetrievalInput,
  type LmeRetrievalScores,
} from '../scoring/longmemeval';
import type { MetricDefinition, ScoreInput } from './types';

/**
 * LongMemEval's six retrieval metrics (`src/retrieval/run_retrieval.py`: recall_any@k,
 * recall_all@k and ndcg_any@k at turn and session level), one formula each in
 * `scoring/longmemeval.ts`, k = the run's top-k, over the memory's ranking read as deep as the
 * reference's corpus needs (`reachesDepth`; a lower bound where the memory returned fewer). Only benchmarks whose profile names them score
 * them: LoCoMo tables stay as they were.
 */

type Level = 'turn' | 'session';
type Measure = keyof LmeRetrievalScores;

const LEVELS: Record<Level, { score: typeof lmeTurnRetrieval; source: string; short: string }> = {
  turn: { score: lmeTurnRetrieval, source: 'evaluate_retrieval', short: 'turn' },
  session: {
    score: lmeSessionRetrieval,
    source: 'evaluate_retrieval_turn2session (k widened until k sessions)',
    short: 'sess',
  },
};

const MEASURES: Record<Measure, { name: string; short: string; rule: string }> = {
  recallAny: {
    name: 'recall_any@k',
    short: 'R any',
    rule: '1 if one evidence item is in the top k',
  },
  recallAll: { name: 'recall_all@k', short: 'R', rule: '1 if every evidence item is in the top k' },
  ndcgAny: { name: 'ndcg_any@k', short: 'nDCG', rule: 'binary-relevance nDCG of the top k' },
};

function retrievalInput(input: ScoreInput): LmeRetrievalInput {
  return {
    // Without the dataset's corpus (a question stored before it existed): the turns at hand.
    corpus: input.retrievalCorpus ?? [...new Set([...input.evidence, ...input.retrieved])],
    evidence: input.evidence,
    ranked: input.ranking ?? input.retrieved,
    k: input.topK ?? input.retrieved.length,
  };
}

function lmeRetrievalMetric(id: string, level: Level, measure: Measure): MetricDefinition {
  const { name, short, rule } = MEASURES[measure];
  return {
    id,
    label: `${level} ${name} (LongMemEval)`,
    title: `${level === 'turn' ? 'Turn' : 'Session'}-level ${name} (LongMemEval)`,
    short: `${short} ${LEVELS[level].short}`,
    formula:
      `LongMemEval src/retrieval/eval_utils.py ${LEVELS[level].source}: ${rule}, over the user ` +
      'turns (the reference corpus); no user has_answer turn or abstention: none',
    range: [0, 1],
    better: 'higher',
    source: 'retrieval',
    categories: 'declared',
    score: (input) => LEVELS[level].score(retrievalInput(input))?.[measure] ?? null,
    reachesDepth: (input) => lmeRankingReachesDepth(retrievalInput(input)),
    showN: true,
    hideWhenEmpty: true,
  };
}

// recall_all keeps the ids its runs were stored under.
export const lmeTurnRecallMetric = lmeRetrievalMetric('lmeTurnRecall', 'turn', 'recallAll');
export const lmeTurnRecallAnyMetric = lmeRetrievalMetric('lmeTurnRecallAny', 'turn', 'recallAny');
export const lmeTurnNdcgMetric = lmeRetrievalMetric('lmeTurnNdcg', 'turn', 'ndcgAny');
export const lmeSessionRecallMetric = lmeRetrievalMetric(
  'lmeSessionRecall',
  'session',
  'recallAll',
);
export const lmeSessionRecallAnyMetric = lmeRetrievalMetric(
  'lmeSessionRecallAny',
  'session',
  'recallAny',
);
export const lmeSessionNdcgMetric = lmeRetrievalMetric('lmeSessionNdcg', 'session', 'ndcgAny');
