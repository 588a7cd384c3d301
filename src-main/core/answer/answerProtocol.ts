import type { AnswerProtocolName } from '../../../src-shared/experiment';
import type { PromptRecord } from '../../../src-shared/runs';
import type { BuiltPrompt } from './prompts';
import type { ReferenceRequest } from './referenceRequest';
import type { AnswerRequest } from './types';

/**
 * What a named answer protocol is (protocols.ts holds the entries; a protocol in a file of its
 * own, like BEAM's reader, implements this without importing the registry).
 */

export interface AnswerNotesStage {
  readonly maxTokens: number;
  /** What the reference sends for a note (its max_tokens is `maxTokens`). */
  readonly reference: ReferenceRequest;
  prompts(request: AnswerRequest): string[];
  build(request: AnswerRequest, replies: readonly string[]): BuiltPrompt;
}

export interface AnswerProtocol {
  readonly name: AnswerProtocolName;
  readonly record: PromptRecord;
  /**
   * Fixed answer length (LoCoMo: 32 tokens); null keeps the config's `maxTokens`. A protocol with
   * a `reference` takes it from there (null when the reference sends none: then none is sent,
   * and the config's counts only for estimates).
   */
  readonly maxTokens: number | null;
  /** The answerer needs the conversation so far, not only the retrieved memories. */
  readonly needsConversation: boolean;
  /**
   * The request parameters of the reference this protocol mirrors, with its citation: the answer
   * request sends exactly these (and no seed). Absent: the workbench's own protocol, which sends
   * the config's max_tokens and the run's seed.
   */
  readonly reference?: ReferenceRequest;
  /**
   * The answer prompt. A protocol with `notes` builds it from the notes' replies instead; its
   * `build` is the prompt over the raw memories, for estimates only.
   */
  build(request: AnswerRequest, options: { contextTokens: number }): BuiltPrompt;
  readonly notes?: AnswerNotesStage;
  /** Sends no seed and no max_tokens, as the reference's langchain client (BEAM's reader). */
  readonly plainRequest?: boolean;
}
