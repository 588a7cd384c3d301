import { LOCOMO_PROFILE, isAdversarial } from '../../../src-shared/benchmarks';
import type { CategoryId } from '../../../src-shared/dataset';

/** One retrieved memory as the answerer sees it. */
export interface MemoryHit {
  id: string;
  /** The dataset turn it came from, when it is a turn (evidence recall is counted on these). */
  diaId: string | null;
  /** What the memory says, `Speaker: text` for turns. */
  text: string;
  speaker: string | null;
  score: number;
  /** The session's zone-less ISO date-time, so relative dates can be resolved. */
  sessionDateTime: string | null;
}

/** A session of the conversation as far as it has been inserted (full-context protocols). */
export interface ConversationSession {
  /** The session's date as the dataset writes it (`1:56 pm on 8 May, 2023`). */
  dateTimeText: string;
  turns: ReadonlyArray<{ speaker: string; text: string; blipCaption?: string }>;
}

export interface AnswerRequest {
  sampleId: string;
  questionIndex: number;
  question: string;
  category: CategoryId;
  speakers: readonly [string, string];
  memories: readonly MemoryHit[];
  /** The run's seed: anything random (option order) derives from it. */
  seed: number;
  /**
   * Category 5: the dataset's tempting wrong answer, the second option of the official two-option
   * question. Absent or null for other categories.
   */
  adversarialAnswer?: string | null;
  /** The conversation inserted so far, oldest session first; only for answerers that ask. */
  conversation?: readonly ConversationSession[];
  /**
   * The category is adversarial by the dataset's benchmark profile (official answering turns it
   * into a two-option question); absent means LoCoMo's profile decides (category 5).
   */
  adversarial?: boolean;
  /** When the question is asked, where the dataset says (LongMemEval `question_date`, ISO). */
  questionDate?: string | null;
}

/** Whether a request is an adversarial question (LoCoMo category 5 unless the request says). */
export function isAdversarialRequest(
  request: Pick<AnswerRequest, 'category' | 'adversarial'>,
): boolean {
  return request.adversarial ?? isAdversarial(LOCOMO_PROFILE, request.category);
}

export interface AnswerUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface AnswerResult {
  answer: string;
  usage?: AnswerUsage;
  model?: string;
}

export interface Answerer {
  /** Recorded in run manifests. */
  readonly name: string;
  /** Set when the answerer reads the whole conversation so far (`AnswerRequest.conversation`). */
  readonly needsConversation?: boolean;
  answer(request: AnswerRequest, signal?: AbortSignal): Promise<AnswerResult>;
}

/** The answer official LoCoMo scoring counts as correct for category 5. */
export const NOT_MENTIONED = 'Not mentioned in the conversation';
