import type { Sample } from '../../../src-shared/dataset';
import { WorkbenchError } from '../../../src-shared/errors';
import {
  ERROR_PREDICTION,
  MAX_ANSWER_CHARS,
  answerScores,
  retrievedContext,
  retrievedTurnIds,
  type AnswerRecord,
  type ExperimentConfig,
  type RetrievedRef,
  type ScoringRanking,
} from '../../../src-shared/experiment';
import { benchmarkCategory, benchmarkProfile } from '../../../src-shared/benchmarks';
import { trimToWordBudget } from '../../../src-shared/fairness';
import type { Semaphore } from '../http/retry';
import type {
  AnswerRequest,
  AnswerResult,
  Answerer,
  ConversationSession,
  MemoryHit,
} from '../answer/types';
import type { MemoryService } from '../memory/types';
import type { TestBatcher } from './testBatcher';
import { hitsRanking, scoringRankingOf } from './scoringRanking';
import { describeError, withTimeout } from './timeout';

/**
 * One question at one test: retrieve from the memory (or let a service that answers itself do
 * both), answer, score. A failure at either stage becomes an answer with `error` set (DESIGN §3).
 */

type Qa = Sample['qa'][number];

/** What every question of one test shares. */
export interface TestAsk {
  memory: MemoryService;
  /** Retrieval touches the memory one question at a time (see runSample). */
  memoryLock: Semaphore;
  answerer: Answerer;
  job: { config: ExperimentConfig; sample: Sample; benchmark: string };
  test: { testIndex: number; dialogsInserted: number };
  cancel: AbortSignal | undefined;
  /** The test's batcher when the answerer asks several questions to a call. */
  batcher: TestBatcher | null;
}

/** Where a question's ask got to: what a failure reports and scores. */
interface Attempt {
  stage: 'retrieve' | 'answer';
  hits: MemoryHit[];
  retrieveMs: number;
  answerMs: number;
  /** When the current stage started. */
  t0: number;
  /** The ranking depth-reading metrics score (scoringRanking.ts); null: none scores the question. */
  ranking: ScoringRanking | null;
}

const elapsed = (start: number): number => Math.round((performance.now() - start) * 100) / 100;

/**
 * The question's answer record; null when the run's cancel stopped it. `memoryRead` is called
 * once the question is done with the memory (its retrieval, or a service's whole answer), so the
 * sample may insert the next packet while this answer is still at the endpoint.
 */
export async function askQuestion(
  ask: TestAsk,
  qa: Qa,
  memoryRead: () => void = () => undefined,
): Promise<AnswerRecord | null> {
  const attempt: Attempt = {
    stage: 'retrieve',
    hits: [],
    retrieveMs: 0,
    answerMs: 0,
    t0: performance.now(),
    ranking: null,
  };
  try {
    const result = await retrieveAndAnswer(ask, qa, attempt, memoryRead);
    attempt.answerMs = elapsed(attempt.t0);
    if (result.answer.length > MAX_ANSWER_CHARS) {
      throw new WorkbenchError(
        'LLM_REPLY_TOO_LARGE',
        `${ask.answerer.name}: answer to question ${qa.index} is ${result.answer.length} characters, more than the ${MAX_ANSWER_CHARS} a run stores`,
      );
    }
    return answeredRecord(ask, qa, attempt, result);
  } catch (error) {
    // Failed before it asked: its batch goes without it rather than wait for it.
    if (ask.batcher && attempt.stage === 'retrieve') ask.batcher.withdraw(qa.index);
    if (ask.cancel?.aborted && error instanceof WorkbenchError && error.code === 'CANCELLED') {
      return null;
    }
    if (attempt.stage === 'retrieve') attempt.retrieveMs = elapsed(attempt.t0);
    else attempt.answerMs = elapsed(attempt.t0);
    return failedRecord(ask, qa, attempt, error);
  }
}

/** Runs the question's stages, recording in `attempt` where it is. */
async function retrieveAndAnswer(
  ask: TestAsk,
  qa: Qa,
  attempt: Attempt,
  memoryRead: () => void,
): Promise<AnswerResult> {
  const { memory, memoryLock, answerer, job, cancel, batcher } = ask;
  const { config } = job;
  const topK = config.retrieval.topK;
  const serviceAnswer = memory.answer?.bind(memory);
  if (serviceAnswer) {
    // A service that answers itself retrieves inside that call: all of it is answer time.
    attempt.stage = 'answer';
    const answered = await memoryLock
      .run(() =>
        withTimeout(
          `answer to question ${qa.index}`,
          config.timeouts.answerMs,
          (signal) => serviceAnswer(answerRequest(ask, qa, []), topK, signal),
          cancel,
        ),
      )
      .finally(memoryRead);
    attempt.hits = answered.hits;
    // Its hits are all it gives: a ranking short of the depth is a lower bound.
    attempt.ranking = hitsRanking(ask, qa, answered.hits);
    return { answer: answered.answer };
  }
  let hits = await memoryLock
    .run(async () => {
      // Waiting for the lock is not retrieval time.
      attempt.t0 = performance.now();
      const found = await withTimeout(
        `retrieve for question ${qa.index}`,
        config.timeouts.answerMs,
        () => memory.retrieve(qa.question, topK, { questionDate: qa.questionDate ?? null }),
      );
      attempt.retrieveMs = elapsed(attempt.t0);
      // Scoring's deeper reads, before the sample inserts more; not the answer's retrieval time.
      attempt.ranking = await scoringRankingOf(ask, qa, found);
      return found;
    })
    .finally(memoryRead);
  attempt.hits = hits;
  const budget = config.retrieval.contextWords;
  if (budget !== undefined) hits = attempt.hits = trimToWordBudget(hits, budget);
  attempt.stage = 'answer';
  attempt.t0 = performance.now();
  return withTimeout(
    `answer to question ${qa.index}`,
    config.timeouts.answerMs,
    (signal) =>
      batcher
        ? batcher.answer(answerRequest(ask, qa, hits))
        : answerer.answer(answerRequest(ask, qa, hits), signal),
    cancel,
  );
}

function answerRequest(ask: TestAsk, qa: Qa, memories: MemoryHit[]): AnswerRequest {
  const { job, answerer, test } = ask;
  const { sample, config } = job;
  return answerRequestOf(
    sample,
    qa,
    { seed: config.seed, benchmark: job.benchmark },
    memories,
    answerer.needsConversation ? conversationSoFar(sample, test.dialogsInserted) : undefined,
  );
}

/** What a question's answer is asked with: the run's request, and the planner's model of it. */
export function answerRequestOf(
  sample: Sample,
  qa: Qa,
  run: { seed: number; benchmark: string },
  memories: readonly MemoryHit[],
  conversation?: ConversationSession[],
): AnswerRequest {
  return {
    sampleId: sample.sampleId,
    questionIndex: qa.index,
    question: qa.question,
    category: qa.category,
    speakers: sample.speakers,
    memories,
    seed: run.seed,
    adversarialAnswer: qa.adversarialAnswer,
    adversarial: benchmarkCategory(benchmarkProfile(run.benchmark), qa.category).adversarial,
    ...(qa.questionDate !== undefined ? { questionDate: qa.questionDate } : {}),
    ...(qa.questionDateText !== undefined ? { questionDateText: qa.questionDateText } : {}),
    benchmark: run.benchmark,
    ...(conversation ? { conversation } : {}),
  };
}

/** The record's fields that name the question. */
function questionFields(ask: TestAsk, qa: Qa) {
  return {
    sampleId: ask.job.sample.sampleId,
    testIndex: ask.test.testIndex,
    questionIndex: qa.index,
    category: qa.category,
    question: qa.question,
    gold: qa.answer,
  };
}

function answeredRecord(
  ask: TestAsk,
  qa: Qa,
  attempt: Attempt,
  result: AnswerResult,
): AnswerRecord {
  const { job } = ask;
  const topK = job.config.retrieval.topK;
  const refs = toRefs(attempt.hits);
  const context = retrievedContext(refs, topK);
  return {
    ...questionFields(ask, qa),
    prediction: result.answer,
    retrieved: refs,
    scores: answerScores(
      {
        prediction: result.answer,
        gold: qa.answer,
        category: qa.category,
        evidence: qa.evidence,
        evidenceRaw: qa.evidenceRaw,
        retrieved: retrievedTurnIds(refs, topK),
        topK,
        ...(attempt.ranking ? { ranking: attempt.ranking.turns } : {}),
        ...(qa.retrievalCorpus ? { retrievalCorpus: qa.retrievalCorpus } : {}),
        ...(qa.rubric ? { rubric: qa.rubric } : {}),
        ...(context ? { context } : {}),
      },
      benchmarkProfile(job.benchmark),
    ),
    ...(attempt.ranking ? { scoringRanking: attempt.ranking } : {}),
    retrieveMs: attempt.retrieveMs,
    answerMs: attempt.answerMs,
    error: null,
    // The judge runs after the run, on the main thread, where its cache lives.
    judge: null,
    usage: result.usage ?? null,
    memoryTokens: result.memoryTokens ?? null,
  };
}

function failedRecord(ask: TestAsk, qa: Qa, attempt: Attempt, error: unknown): AnswerRecord {
  const { job } = ask;
  const { stage } = attempt;
  const topK = job.config.retrieval.topK;
  const refs = toRefs(attempt.hits);
  const context = stage === 'answer' ? retrievedContext(refs, topK) : undefined;
  // A failed retrieval ranked nothing: where a metric reads deeper, its 0 is a lower bound.
  const ranking = stage === 'answer' ? attempt.ranking : hitsRanking(ask, qa, []);
  return {
    ...questionFields(ask, qa),
    prediction: ERROR_PREDICTION,
    retrieved: refs,
    // What retrieval found still counts when only the answerer failed.
    scores: answerScores(
      {
        prediction: ERROR_PREDICTION,
        gold: qa.answer,
        category: qa.category,
        evidence: qa.evidence,
        // A failed retrieval has no context to score LoCoMo's way (it would count 1 there).
        ...(stage === 'answer' ? { evidenceRaw: qa.evidenceRaw } : {}),
        retrieved: stage === 'answer' ? retrievedTurnIds(refs, topK) : [],
        topK,
        ...(ranking ? { ranking: ranking.turns } : {}),
        ...(qa.retrievalCorpus ? { retrievalCorpus: qa.retrievalCorpus } : {}),
        ...(qa.rubric ? { rubric: qa.rubric } : {}),
        ...(context ? { context } : {}),
        errored: true,
      },
      benchmarkProfile(job.benchmark),
    ),
    judge: null,
    usage: null,
    ...(ranking ? { scoringRanking: ranking } : {}),
    retrieveMs: attempt.retrieveMs,
    answerMs: attempt.answerMs,
    error: `${stage}: ${describeError(error)}`,
  };
}

function toRefs(hits: readonly MemoryHit[]): RetrievedRef[] {
  return hits.map((h) => ({
    id: h.id,
    diaId: h.diaId,
    score: h.score,
    ...(h.source ? { context: [...h.source.contextIds] } : {}),
    ...(h.diaIds && h.diaIds.length > 1 ? { diaIds: [...h.diaIds] } : {}),
    ...(citesNoTurn(h) ? { text: h.text } : {}),
  }));
}

/** A memory the dataset cannot show: no turn, no chunk or summary of the dataset behind it. */
function citesNoTurn(hit: MemoryHit): boolean {
  return hit.diaId === null && (hit.diaIds?.length ?? 0) === 0 && hit.source === undefined;
}

/** The first `turns` turns of the sample, by session, as the file writes them (full context). */
export function conversationSoFar(sample: Sample, turns: number): ConversationSession[] {
  const sessions: ConversationSession[] = [];
  let left = turns;
  for (const session of sample.sessions) {
    if (left <= 0) break;
    const shown = session.turns.slice(0, left);
    left -= shown.length;
    sessions.push({
      dateTimeText: session.dateTimeText ?? '',
      turns: shown.map((t) => ({
        speaker: t.speaker,
        text: t.rawText,
        ...(t.blipCaption !== undefined ? { blipCaption: t.blipCaption } : {}),
      })),
    });
  }
  return sessions;
}
