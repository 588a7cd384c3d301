/**
 * NLTK 3.8's word tokenizer on every LoCoMo answer, adversarial answer and question, lowercased as
 * Mem0 tokenises them for BLEU. The fixture holds only hashes (scripts/golden/generate-tokenize.py),
 * so it runs where the dataset is present (../shared/datasets/locomo10.json).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import locomoGolden from '../fixtures/golden/tokenize-locomo.json';
import { treebankWordTokenize } from '../../src-shared/scoring/treebank';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const dataset = new URL('../../../shared/datasets/locomo10.json', import.meta.url);

describe.runIf(existsSync(dataset))('NLTKWordTokenizer on every LoCoMo answer and question', () => {
  it('gives NLTK 3.8 tokens for all of them', () => {
    const bytes = readFileSync(dataset);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(locomoGolden.dataset_sha256);
    const samples = JSON.parse(bytes.toString('utf8')) as Array<{
      qa: Array<Record<string, unknown>>;
    }>;
    const texts = new Set<string>();
    for (const sample of samples) {
      for (const qa of sample.qa) {
        for (const key of ['answer', 'adversarial_answer', 'question']) {
          if (key in qa) texts.add(String(qa[key]).toLowerCase());
        }
      }
    }
    const cases = locomoGolden.cases as Record<string, string>;
    const mismatches = [...texts].filter(
      (text) => cases[sha256(text)] !== sha256(treebankWordTokenize(text).join('\u0001')),
    );
    expect(texts.size).toBe(Object.keys(cases).length);
    expect(mismatches).toEqual([]);
  });
});
