import type { AnswererConfig } from '../../../src-shared/experiment';
import { ExtractiveAnswerer } from '../answer/extractive';
import type { Answerer } from '../answer/types';

/** The answerer a config names. Exhaustive: a new `kind` fails the type check until handled. */
export function createAnswerer(config: AnswererConfig): Answerer {
  switch (config.kind) {
    case 'extractive':
      return new ExtractiveAnswerer();
  }
}
