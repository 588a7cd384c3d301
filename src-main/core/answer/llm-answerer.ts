import {
  answerProtocolOf,
  type AdversarialReplyMapping,
  type LlmAnswererConfig,
} from '../../../src-shared/experiment';
import type { PromptRecord } from '../../../src-shared/runs';
import type { ApiKeys } from '../keys';
import { LlmClient, type CallMeter } from './llm-client';
import type { CallGate } from '../http/callBudget';
import type { ResponseCache } from './responseCache';
import { WorkbenchError } from '../../../src-shared/errors';
import {
  LOCOMO_BATCH_TRIALS,
  buildLocomoBatchPrompt,
  locomoBatchReplyReads,
  readLocomoBatchReply,
} from './locomoBatch';
import {
  answerMaxTokensOf,
  answerProtocol,
  interpretReply,
  locomoBatchReference,
  memoryTokensOf,
  type AnswerProtocol,
} from './protocols';
import type { AnswerRequest, AnswerResult, Answerer } from './types';
import { referenceCallOptions } from './referenceRequest';

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
  readonly batchSize: number;
  private readonly contextTokens: number;
  private readonly adversarialReplyMapping: AdversarialReplyMapping;

  constructor(
    config: LlmAnswererConfig,
    options: {
      keys?: ApiKeys;
      meter?: CallMeter;
      client?: LlmClient;
      budget?: CallGate;
      cache?: ResponseCache;
      /** False for a run from the network: errors never quote the endpoint's replies. */
      quoteReplies?: boolean;
    } = {},
  ) {
    this.model = config.model;
    this.protocol = answerProtocol(answerProtocolOf(config));
    this.name = `llm:${config.model}:${this.protocol.name}`;
    this.prompts = this.protocol.record;
    this.needsConversation = this.protocol.needsConversation;
    this.contextTokens = config.contextTokens;
    this.adversarialReplyMapping = config.adversarialReplyMapping;
    this.batchSize = config.batchSize ?? 1;
    // A protocol that fixes the answer length (LoCoMo: 32 tokens) overrides the config's; a
    // LoCoMo batch has 50 tokens per question of the batch size, as the reference asks.
    const maxTokens = answerMaxTokensOf(config, this.protocol);
    this.client =
      options.client ??
      new LlmClient(
        { ...config, maxTokens, quoteReplies: options.quoteReplies },
        options.keys,
        Math.random,
        options.meter,
        options.budget,
        options.cache,
      );
  }

  async answer(request: AnswerRequest, signal?: AbortSignal): Promise<AnswerResult> {
    // A protocol that mirrors a reference sends exactly its parameters (no seed); a plain
    // request (BEAM's) sends neither a seed nor max_tokens, as its reference's client does; the
    // workbench's own protocols send the run's seed.
    const { reference, plainRequest } = this.protocol;
    const params = reference
      ? referenceCallOptions(reference)
      : plainRequest === true
        ? { omitMaxTokens: true }
        : { seed: request.seed };
    const sendable = signal ? { signal } : {};
    const { notes } = this.protocol;
    // A notes stage's requests go through the same client (limits, cache, ledger) as the answer.
    const noteCompletions = notes
      ? await Promise.all(
          notes.prompts(request).map((content) =>
            this.client.complete([{ role: 'user', content }], {
              ...referenceCallOptions(notes.reference),
              ...sendable,
              step: 'notes',
            }),
          ),
        )
      : [];
    const built = notes
      ? notes.build(
          request,
          noteCompletions.map((c) => c.content),
        )
      : this.protocol.build(request, { contextTokens: this.contextTokens });
    const completion = await this.client.complete(built.messages, {
      ...params,
      ...sendable,
      step: 'answer',
    });
    const usage = [...noteCompletions, completion].reduce<AnswerResult['usage']>(
      (sum, c) =>
        c.usage
          ? {
              promptTokens: (sum?.promptTokens ?? 0) + c.usage.promptTokens,
              completionTokens: (sum?.completionTokens ?? 0) + c.usage.completionTokens,
            }
          : sum,
      undefined,
    );
    return {
      answer: interpretReply(completion.content, built, this.adversarialReplyMapping),
      model: completion.model,
      ...(usage ? { usage } : {}),
      memoryTokens: memoryTokensOf(built.context),
    };
  }

  /**
   * One LoCoMo batch prompt for the requests (one test's, in question order), asked again while
   * the reply does not read, up to the reference's 5 calls. The call's usage is the first
   * question's, so a run's totals count it once.
   */
  async answerBatch(
    requests: readonly AnswerRequest[],
    signal?: AbortSignal,
  ): Promise<Array<AnswerResult | Error>> {
    const first = requests[0];
    if (!first) return [];
    const built = buildLocomoBatchPrompt(requests, this.batchSize, this.contextTokens);
    let content = '';
    let model: string | undefined;
    let promptTokens = 0;
    let completionTokens = 0;
    let counted = false;
    for (let trial = 0; trial < LOCOMO_BATCH_TRIALS; trial++) {
      // The reference's batch request, exactly (no seed).
      const completion = await this.client.complete(built.messages, {
        ...referenceCallOptions(locomoBatchReference(this.batchSize)),
        step: 'answer',
        ...(signal ? { signal } : {}),
      });
      content = completion.content;
      model = completion.model;
      if (completion.usage) {
        promptTokens += completion.usage.promptTokens;
        completionTokens += completion.usage.completionTokens;
        counted = true;
      }
      if (locomoBatchReplyReads(content)) break;
    }
    return readLocomoBatchReply(content, built).map((answer, k) =>
      answer === null
        ? new WorkbenchError(
            'UPSTREAM',
            `${this.name}: the batch reply gives question ${requests[k]?.questionIndex} no answer (LoCoMo's reading of it fails)`,
          )
        : {
            answer,
            ...(model ? { model } : {}),
            // Every question of the batch is handed the whole context.
            memoryTokens: memoryTokensOf(built.context),
            ...(k === 0 && counted ? { usage: { promptTokens, completionTokens } } : {}),
          },
    );
  }
}
