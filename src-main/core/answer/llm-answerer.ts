import type { LlmAnswererConfig, PromptStyle } from '../../../src-shared/experiment';
import type { PromptRecord } from '../../../src-shared/runs';
import type { ApiKeys } from '../keys';
import { LlmClient } from './llm-client';
import { answerPromptRecord, buildAnswerPrompt, interpretAnswer } from './prompts';
import type { AnswerRequest, AnswerResult, Answerer } from './types';

/**
 * An answerer backed by an OpenAI-compatible chat model: builds the style's prompt from the
 * retrieved memories, asks once (the client retries transport failures), and maps a two-option
 * reply back to the option's text. Errors propagate: the pipeline records them as [ERROR] answers.
 */
export class LlmAnswerer implements Answerer {
  readonly name: string;
  readonly model: string;
  readonly style: PromptStyle;
  readonly prompts: PromptRecord;
  readonly client: LlmClient;

  constructor(config: LlmAnswererConfig, options: { keys?: ApiKeys; client?: LlmClient } = {}) {
    this.model = config.model;
    this.style = config.promptStyle;
    this.name = `llm:${config.model}:${config.promptStyle}`;
    this.prompts = answerPromptRecord(config.promptStyle);
    this.client = options.client ?? new LlmClient(config, options.keys);
  }

  async answer(request: AnswerRequest, signal?: AbortSignal): Promise<AnswerResult> {
    const built = buildAnswerPrompt(this.style, request);
    const completion = await this.client.complete(built.messages, {
      seed: request.seed,
      ...(signal ? { signal } : {}),
    });
    return {
      answer: interpretAnswer(completion.content, built),
      model: completion.model,
      ...(completion.usage ? { usage: completion.usage } : {}),
    };
  }
}
