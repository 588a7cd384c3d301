import {
  answerProtocolOf,
  type Category5Mapping,
  type LlmAnswererConfig,
} from '../../../src-shared/experiment';
import type { PromptRecord } from '../../../src-shared/runs';
import type { ApiKeys } from '../keys';
import { LlmClient, type CallMeter } from './llm-client';
import type { CallGate } from '../http/callBudget';
import type { ResponseCache } from './responseCache';
import { answerProtocol, interpretReply, type AnswerProtocol } from './protocols';
import type { AnswerRequest, AnswerResult, Answerer } from './types';

/**
 * An answerer backed by an OpenAI-compatible chat model: builds the answer protocol's prompt,
 * asks once (the client retries transport failures), and maps a two-option reply back to the
 * option's text. Errors propagate: the pipeline records them as [ERROR] answers.
 */
export class LlmAnswerer implements Answerer {
  readonly name: string;
  readonly model: string;
  readonly protocol: AnswerProtocol;
  readonly prompts: PromptRecord;
  readonly client: LlmClient;
  readonly needsConversation: boolean;
  private readonly contextTokens: number;
  private readonly category5Mapping: Category5Mapping;

  constructor(
    config: LlmAnswererConfig,
    options: {
      keys?: ApiKeys;
      meter?: CallMeter;
      client?: LlmClient;
      budget?: CallGate;
      cache?: ResponseCache;
    } = {},
  ) {
    this.model = config.model;
    this.protocol = answerProtocol(answerProtocolOf(config));
    this.name = `llm:${config.model}:${this.protocol.name}`;
    this.prompts = this.protocol.record;
    this.needsConversation = this.protocol.needsConversation;
    this.contextTokens = config.contextTokens;
    this.category5Mapping = config.category5Mapping;
    // A protocol that fixes the answer length (LoCoMo: 32 tokens) overrides the config's.
    const maxTokens = this.protocol.maxTokens ?? config.maxTokens;
    this.client =
      options.client ??
      new LlmClient(
        { ...config, maxTokens },
        options.keys,
        Math.random,
        options.meter,
        options.budget,
        options.cache,
      );
  }

  async answer(request: AnswerRequest, signal?: AbortSignal): Promise<AnswerResult> {
    const built = this.protocol.build(request, { contextTokens: this.contextTokens });
    const completion = await this.client.complete(built.messages, {
      seed: request.seed,
      ...(signal ? { signal } : {}),
    });
    return {
      answer: interpretReply(completion.content, built, this.category5Mapping),
      model: completion.model,
      ...(completion.usage ? { usage: completion.usage } : {}),
    };
  }
}
