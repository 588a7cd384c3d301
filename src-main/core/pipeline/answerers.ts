import type { AnswererConfig } from '../../../src-shared/experiment';
import type { RunManifest } from '../../../src-shared/runs';
import { ExtractiveAnswerer } from '../answer/extractive';
import { LlmAnswerer } from '../answer/llm-answerer';
import { answerProtocol } from '../answer/protocols';
import type { CallMeter } from '../answer/llm-client';
import type { CallGate } from '../http/callBudget';
import type { ResponseCache } from '../answer/responseCache';
import type { Answerer } from '../answer/types';
import type { ApiKeys } from '../keys';

/**
 * The answerer a config names, with its API keys (see core/keys.ts); `meter` hears of every
 * request it sends. Exhaustive: a new `kind` fails the type check until handled.
 */
export function createAnswerer(
  config: AnswererConfig,
  keys: ApiKeys = {},
  meter?: CallMeter,
  /** The run's shared request budget (see http/callBudget.ts); absent: the client's own gate. */
  budget?: CallGate,
  /** The data folder's LLM response cache (answer/responseCache.ts); absent: no cache. */
  cache?: ResponseCache,
  /** False for a run from the network (core/trust.ts isLocalUser): errors never quote replies. */
  quoteReplies = true,
): Answerer {
  switch (config.kind) {
    case 'extractive':
      return new ExtractiveAnswerer();
    case 'llm':
      return new LlmAnswerer(config, {
        keys,
        ...(meter ? { meter } : {}),
        ...(budget ? { budget } : {}),
        ...(cache ? { cache } : {}),
        quoteReplies,
      });
  }
}

/** What a run's manifest records about its answerer: name, model and the prompts it used. */
export function answererProvenance(config: AnswererConfig): RunManifest['answerer'] {
  const answerer = createAnswerer(config);
  if (answerer instanceof LlmAnswerer) {
    return {
      kind: config.kind,
      name: answerer.name,
      model: answerer.model,
      prompts: answerer.prompts,
    };
  }
  // An offline stand-in for a protocol records that protocol's bytes and hash, not sent.
  const prompts =
    config.kind === 'extractive' && config.answerProtocol
      ? answerProtocol(config.answerProtocol).record
      : null;
  return { kind: config.kind, name: answerer.name, model: null, prompts };
}
