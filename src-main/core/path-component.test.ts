import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathComponentOf } from './path-component';

describe('pathComponentOf (issue 39 item 3)', () => {
  it('every id gives one safe folder name: no separator, never . or .., never empty, bounded', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (id) => {
        const name = pathComponentOf(id);
        expect(name).toMatch(/^[a-z0-9_.-]{1,72}$/);
        expect(['.', '..']).not.toContain(name);
      }),
      { numRuns: 300 },
    );
    for (const id of ['', '.', '..', '../..', 'a/../b', 'a\\b', '\u0000', 'CON', 'nul'])
      expect(pathComponentOf(id)).toMatch(/^[a-z0-9_-]*\.[0-9a-f]{24}$/);
  });

  it('distinct ids give distinct names, also when they differ only in case or in dropped characters', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ unit: 'binary', maxLength: 80 }), { maxLength: 50 }),
        (ids) => {
          expect(new Set(ids.map(pathComponentOf)).size).toBe(ids.length);
        },
      ),
      { numRuns: 300 },
    );
    const lookAlikes = [
      'conv-1',
      'Conv-1',
      'conv_1',
      'conv.1',
      'conv/1',
      'conv-1 ',
      'x'.repeat(72),
      'x'.repeat(73),
    ];
    expect(new Set(lookAlikes.map(pathComponentOf)).size).toBe(lookAlikes.length);
  });

  it('an ordinary id is its own folder name', () => {
    for (const id of ['conv-26', '20250101-120000-123-ab12cd', 'gpt4_2655b836', 'job-0a1b'])
      expect(pathComponentOf(id)).toBe(id);
  });
});
