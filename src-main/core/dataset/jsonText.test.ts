import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError, lineColumn, parseJsonText } from './jsonText';

function errorAt(text: string): { line: number; column: number; reason: string } {
  const result = parseJsonText(text);
  if (result.ok) throw new Error(`expected ${JSON.stringify(text)} to be invalid`);
  const { line, column, reason } = result.error;
  return { line, column, reason };
}

describe('parseJsonText', () => {
  it('parses valid JSON', () => {
    expect(parseJsonText('[{"a": [1, -2.5e3, true, null, "x\\u00e9"]}]')).toEqual({
      ok: true,
      value: [{ a: [1, -2500, true, null, 'x\u00e9'] }],
    });
  });

  it('locates errors by line and column', () => {
    expect(errorAt('[\n  {"a": 1,}\n]')).toEqual({
      line: 2,
      column: 11,
      reason: 'expected a property name in double quotes',
    });
    expect(errorAt('[1, 2,\n]')).toEqual({
      line: 2,
      column: 1,
      reason: 'expected a value',
    });
    expect(errorAt('[1, 2')).toEqual({
      line: 1,
      column: 6,
      reason: "expected ',' or ']', found end of input",
    });
    expect(errorAt('{"a": "line\nbreak"}')).toMatchObject({
      line: 1,
      column: 12,
      reason: 'unescaped control character in string',
    });
    expect(errorAt('[1] [2]')).toMatchObject({ line: 1, column: 5 });
    expect(errorAt('{"a" 1}')).toMatchObject({ column: 6 });
    expect(errorAt('"unterminated')).toMatchObject({ reason: 'unterminated string' });
    expect(errorAt("['single']")).toMatchObject({ column: 2 });
    expect(errorAt('   ')).toMatchObject({ reason: 'expected a value, found end of input' });
  });

  it('counts columns from the start of the line', () => {
    expect(lineColumn('ab\ncd\nef', 7)).toEqual({ line: 3, column: 2 });
    expect(lineColumn('ab', 0)).toEqual({ line: 1, column: 1 });
  });

  it('agrees with JSON.parse on valid documents (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        expect(findJsonSyntaxError(text)).toBeNull();
      }),
    );
  });

  it('flags exactly the texts JSON.parse rejects (property)', () => {
    // Mutating valid JSON by one character yields mostly-plausible broken documents.
    const mutated = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom('', ',', '}', ']', '"', ':', 'x', '\n', '0'))
      .map(([text, at, ch]) => {
        const i = text.length === 0 ? 0 : at % text.length;
        return text.slice(0, i) + ch + text.slice(i + 1);
      });
    fc.assert(
      fc.property(mutated, (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(findJsonSyntaxError(text) === null).toBe(valid);
      }),
      { numRuns: 500 },
    );
  });
});
