import { WINK_EMBEDDER, embedderChoicesIn } from '../../../src-shared/embedders';
import { WorkbenchError } from '../../../src-shared/errors';
import type { AnswererConfig, ExperimentConfig } from '../../../src-shared/experiment';
import type { RunManifest } from '../../../src-shared/runs';
import { ExtractiveAnswerer } from '../answer/extractive';
import { LlmAnswerer } from '../answer/llm-answerer';
import type { Answerer } from '../answer/types';

/** The answerer a config names. Exhaustive: a new `kind` fails the type check until handled. */
export function createAnswerer(config: AnswererConfig): Answerer {
  switch (config.kind) {
    case 'extractive':
      return new ExtractiveAnswerer();
    case 'llm':
      return new LlmAnswerer(config);
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
  return { kind: config.kind, name: answerer.name, model: null, prompts: null };
}

/**
 * Fails before a run is created when a config names an API-key variable that is not set: every
 * answer would otherwise become an [ERROR] row.
 */
export function requireApiKeys(config: ExperimentConfig): void {
  const named: Array<{ path: string[]; env: string | undefined }> = [
    { path: ['judge', 'apiKeyEnv'], env: config.judge?.apiKeyEnv },
  ];
  if (config.answerer.kind === 'llm')
    named.push({ path: ['answerer', 'apiKeyEnv'], env: config.answerer.apiKeyEnv });
  if (config.memory.llm)
    named.push({ path: ['memory', 'llm', 'apiKeyEnv'], env: config.memory.llm.apiKeyEnv });
  for (const { path, choice } of embedderChoicesIn(config.memory.config)) {
    if (choice !== WINK_EMBEDDER) {
      named.push({
        path: ['memory', 'config', ...path.map(String), 'apiKeyEnv'],
        env: choice.apiKeyEnv,
      });
    }
  }
  for (const { path, env } of named) {
    if (env !== undefined && !process.env[env]) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `${path.join('.')}: environment variable ${env} is not set (it should hold the API key)`,
        { path },
      );
    }
  }
}
