import {
  benchmarkProfile,
  isAdversarial,
  readerQuestion,
  wantsDateHint,
  type BenchmarkProfile,
} from '../../../src-shared/benchmarks';
import type { AnswerRequest } from '../memory/request';

// What memory hands the answerer is declared by memory, the lower layer (core layering lint).
export type {
  AnswerRequest,
  ConversationSession,
  MemoryHit,
  MemorySource,
} from '../memory/request';

/** The request's benchmark profile. */
function requestProfile(request: Pick<AnswerRequest, 'benchmark'>): BenchmarkProfile {
  return benchmarkProfile(request.benchmark);
}

/**
 * Whether a request is an adversarial question: as the request says, else as its benchmark's
 * profile flags the category (LongMemEval's abstention categories, LoCoMo's 5).
 */
export function isAdversarialRequest(
  request: Pick<AnswerRequest, 'category' | 'adversarial' | 'benchmark'>,
): boolean {
  return request.adversarial ?? isAdversarial(requestProfile(request), request.category);
}

/** Whether LoCoMo's answer protocols add their date hint to the question (its temporal category). */
export function wantsDateHintRequest(
  request: Pick<AnswerRequest, 'category' | 'benchmark'>,
): boolean {
  return wantsDateHint(requestProfile(request), request.category);
}

/** The question as the request's benchmark has its reader ask it (LongMemEval: with its date). */
export function askedQuestion(
  request: Pick<AnswerRequest, 'question' | 'questionDateText' | 'benchmark'>,
): string {
  return readerQuestion(requestProfile(request), request.question, request.questionDateText);
}

export interface AnswerUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface AnswerResult {
  answer: string;
  usage?: AnswerUsage;
  model?: string;
  /** Tokens of the retrieved context the answer was given (`memoryTokensOf`). */
  memoryTokens?: number;
}

export interface Answerer {
  /** Recorded in run manifests. */
  readonly name: string;
  /** Set when the answerer reads the whole conversation so far (`AnswerRequest.conversation`). */
  readonly needsConversation?: boolean;
  answer(request: AnswerRequest, signal?: AbortSignal): Promise<AnswerResult>;
  /** Questions to one call, above 1 when `answerBatch` answers several at once. */
  readonly batchSize?: number;
  /**
   * Several questions of one test in one call (LoCoMo's batch prompt): per request its result,
   * or an Error where the reply gave that question no answer.
   */
  answerBatch?(
    requests: readonly AnswerRequest[],
    signal?: AbortSignal,
  ): Promise<Array<AnswerResult | Error>>;
}

/** The answer official LoCoMo scoring counts as correct for category 5. */
export const NOT_MENTIONED = 'Not mentioned in the conversation';
