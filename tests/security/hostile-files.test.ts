import { describe, expect, it } from 'vitest';
import { parseYamlOrJson } from '../../src-main/core/structured-file';

/** Files a user is handed (sweep specs, errata, reproduce packs) may be built to hurt the reader. */

/** The "billion laughs": nine levels of nine aliases each, 9^9 strings once expanded. */
function aliasBomb(): string {
  const lines = ['a0: &a0 "lol"'];
  for (let level = 1; level <= 9; level++) {
    const refs = Array.from({ length: 9 }, () => `*a${level - 1}`).join(', ');
    lines.push(`a${level}: &a${level} [${refs}]`);
  }
  return `${lines.join('\n')}\n`;
}

describe('a YAML alias bomb', () => {
  it('is refused as INVALID_INPUT naming the file, not expanded and not an INTERNAL crash', () => {
    let caught: unknown;
    try {
      parseYamlOrJson('spec.yaml', aliasBomb(), 'sweep spec');
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/^sweep spec spec\.yaml: YAML refused \(.*alias/i),
    });
  });

  it('still lets a file use aliases the ordinary way', () => {
    expect(parseYamlOrJson('spec.yaml', 'base: &b { k: 1 }\ncopy: *b\n')).toEqual({
      base: { k: 1 },
      copy: { k: 1 },
    });
  });
});
