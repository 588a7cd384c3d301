import type { AnswerProtocolName } from '../../../src-shared/experiment';
import type { PromptRecord } from '../../../src-shared/runs';
import type { BuiltPrompt } from './prompts';
import type { AnswerRequest } from './types';

/**
 * What a named answer protocol is (protocols.ts holds the entries; a protocol in a file of its
 * own, like BEAM's reader, implements this without importing the registry).
 */

export interface AnswerNotesStage {
  readonly maxTokens: number;
  prompts(request: AnswerRequest): string[];
  build(request: AnswerRequest, replies: readonly string[]): BuiltPrompt;
}

export interface AnswerProtocol {
  readonly name: AnswerProtocolName;
  readonly record: PromptRecord;
  /** Fixed answer length (LoCoMo: 32 tokens); null keeps the config's `maxTokens`. */
  readonly maxTokens: number | null;
  /** The answerer needs the conversation so far, not only the retrieved memories. */
  readonly needsConversation: boolean;
  /** False: the reference sends no `seed` (LongMemEval's run_generation.py), so none is sent. */
  readonly sendsSeed?: boolean;
  /**
   * The answer prompt. A protocol with `notes` builds it from the notes' replies instead; its
   * `build` is the prompt over the raw memories, for estimates only.
   */
  build(request: AnswerRequest, options: { contextTokens: number }): BuiltPrompt;
  readonly notes?: AnswerNotesStage;
  /** Sends no seed and no max_tokens, as the reference's langchain client (BEAM's reader). */
  readonly plainRequest?: boolean;
}
