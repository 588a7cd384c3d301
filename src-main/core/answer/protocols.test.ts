import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ANSWER_PROTOCOLS, LlmAnswererConfigSchema } from '../../../src-shared/experiment';
import {
  ESTIMATE_TOKEN_PATTERN,
  answerProtocol,
  assertAnswererMirrorsReference,
  estimateTokens,
  memoryTokensOf,
  memoryTokensOfLines,
} from './protocols';
import type { AnswerRequest } from './types';

/**
 * The answer protocol registry's contract: every name the config schema accepts resolves to a
 * complete protocol that builds a prompt. Each protocol's prompts are pinned byte for byte in the
 * golden tests; this one walks them all, so a new protocol needs no edit here.
 */
describe('answer protocol registry', () => {
  const request: AnswerRequest = {
    sampleId: 's',
    benchmark: 'locomo',
    questionIndex: 0,
    question: 'Where did Caroline go in May?',
    category: 4,
    speakers: ['Caroline', 'Melanie'],
    memories: [
      {
        id: 'm1',
        diaId: 'D1:1',
        text: 'Caroline: I went to Sweden.',
        speaker: 'Caroline',
        score: 1,
        sessionDateTime: '2023-05-08T13:56:00',
      },
    ],
    seed: 42,
    conversation: [
      {
        dateTimeText: '1:56 pm on 8 May, 2023',
        turns: [{ speaker: 'Caroline', text: 'I went to Sweden.' }],
      },
    ],
    questionDate: '2023-05-20T10:00:00',
    questionDateText: '2023/05/20 (Sat) 10:00',
  };

  it.each(ANSWER_PROTOCOLS)('%s resolves to a complete protocol that builds a prompt', (name) => {
    const protocol = answerProtocol(name);
    expect(protocol.name).toBe(name);
    expect(protocol.record.style).not.toBe('');
    expect(protocol.record.sha256).toMatch(/^[0-9a-f]{64}$/);
    if (protocol.maxTokens !== null) expect(protocol.maxTokens).toBeGreaterThan(0);
    const built = protocol.build(request, { contextTokens: 1000 });
    expect(built.messages.length).toBeGreaterThan(0);
    const sent = built.messages.map((m) => m.content).join('\n');
    expect(sent).toContain('Where did Caroline go in May?');
    // The context it reads (memories or the conversation), whose memory tokens the run stores.
    expect(built.context).toContain('Sweden');
  });

  it.each(ANSWER_PROTOCOLS)(
    '%s refuses an endpoint temperature exactly when its reference sends another',
    (name) => {
      const reference = answerProtocol(name).reference;
      const at = (temperature: number) => () =>
        assertAnswererMirrorsReference(
          LlmAnswererConfigSchema.parse({
            kind: 'llm',
            baseUrl: 'http://127.0.0.1:1/v1',
            model: 'm',
            temperature,
            answerProtocol: name,
          }),
        );
      if (reference === undefined) {
        expect(at(0.5)).not.toThrow();
        return;
      }
      expect(at(reference.params.temperature)).not.toThrow();
      expect(at(reference.params.temperature + 0.5)).toThrow(
        expect.objectContaining({ code: 'INVALID_INPUT', path: ['answerer', 'temperature'] }),
      );
    },
  );
});

describe('memoryTokensOfLines', () => {
  it('counts the texts as memoryTokensOf counts them joined by newlines', () => {
    // Digit runs count in threes and symbols one each: a text ending in "12" and one starting with
    // "3" must not be counted as the run "123".
    const texts = ['Caroline: I ran 12', '345 km!', '', 'Mélanie: ¿qué?', '12'];
    expect(memoryTokensOfLines(texts)).toBe(memoryTokensOf(texts.join('\n')));
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme-composite' })), (lines) => {
        expect(memoryTokensOfLines(lines)).toBe(memoryTokensOf(lines.join('\n')));
        // Asked again, from the cache: the same.
        expect(memoryTokensOfLines(lines)).toBe(memoryTokensOf(lines.join('\n')));
      }),
    );
  });
});

describe('estimateTokens', () => {
  const byPattern = (text: string): number => text.match(ESTIMATE_TOKEN_PATTERN)?.length ?? 0;

  it('counts words, digit runs of up to three and each other symbol', () => {
    expect(estimateTokens('')).toBe(0);
    // caroline | 's | 2023 -> 202 3 | , | 100 | % | café | 😀 | ½ (a number, alone)
    expect(estimateTokens("Caroline's 2023, 100% café 😀 ½")).toBe(11);
    expect(estimateTokens('a1b 1234567\n\t x')).toBe(7);
  });

  it('counts what its pattern matches, on any string (astral, lone surrogates, marks, spaces)', () => {
    const pieces = fc.constantFrom(
      'a',
      'Z',
      '7',
      ' ',
      '\n',
      '\u00a0',
      '\u2028',
      '\ufeff',
      '\u001f',
      '_',
      '"',
      'é',
      'e\u0301',
      '½',
      'Ⅻ',
      '٣',
      '😀',
      '𝟘',
      '𐐀',
      '\ud800',
      '\udc00',
      '中',
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(pieces, fc.string({ unit: 'binary' })), { maxLength: 40 }),
        (parts) => {
          const text = parts.join('');
          expect(estimateTokens(text)).toBe(byPattern(text));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
