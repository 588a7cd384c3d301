/**
 * Parity of the word_tokenize port with NLTK 3.8 (Debian python3-nltk). Fixtures are written by
 * scripts/golden/generate-tokenize.py; see its header for what each one holds.
 */
import { describe, expect, it } from 'vitest';
import tokenizeGolden from '../../tests/fixtures/golden/tokenize.json';
import { PunktSentenceTokenizer, type PunktParameters } from './punkt';
import { nltkWordTokenize, treebankWordTokenize } from './treebank';

const params: PunktParameters = {
  abbrevTypes: new Set(tokenizeGolden.params.abbrevTypes),
  collocations: new Set(tokenizeGolden.params.collocations),
  sentStarters: new Set(tokenizeGolden.params.sentStarters),
  orthoContext: new Map(Object.entries(tokenizeGolden.params.orthoContext)),
};
const punkt = new PunktSentenceTokenizer(params);

describe('NLTKWordTokenizer (NLTK 3.8)', () => {
  it.each(tokenizeGolden.treebank)('$text', ({ text, tokens }) => {
    expect(treebankWordTokenize(text)).toEqual(tokens);
  });
});

describe('Punkt sentence splitting under synthetic parameters (NLTK 3.8)', () => {
  it.each(tokenizeGolden.punkt)('$text', ({ text, sentences, wordTokens }) => {
    expect(punkt.tokenize(text)).toEqual(sentences);
    expect(nltkWordTokenize(text, punkt)).toEqual(wordTokens);
  });
});
