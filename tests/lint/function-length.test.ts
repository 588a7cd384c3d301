import { describe, expect, it } from 'vitest';
import { functionLengths, functionLengthsOf } from '../../scripts/function-lengths';

/**
 * Issue 24 step 4: the run's life in small pieces. A function of core/pipeline over 120 lines is
 * one a reader cannot hold at once; split it into named steps (scripts/function-lengths.ts lists
 * the longest: `npx tsx scripts/function-lengths.ts src-main/core/pipeline`).
 */
const MAX_PIPELINE_FUNCTION_LINES = 120;

describe('function lengths', () => {
  it('no function in core/pipeline is over 120 lines', () => {
    const measured = functionLengths(['src-main/core/pipeline']);
    expect(measured.length).toBeGreaterThan(50);
    const tooLong = measured
      .filter((f) => f.lines > MAX_PIPELINE_FUNCTION_LINES)
      .map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`);
    expect(tooLong).toEqual([]);
  });

  it('measures each function from its first line to its closing brace, nested ones too', () => {
    const text = [
      'export function outer(): number {',
      '  const inner = () => {',
      '    return 1;',
      '  };',
      '  return inner();',
      '}',
      'class C {',
      '  method(): void {}',
      '}',
    ].join('\n');
    expect(functionLengthsOf('a.ts', text)).toEqual([
      { file: 'a.ts', name: 'outer', line: 1, lines: 6 },
      { file: 'a.ts', name: 'inner', line: 2, lines: 3 },
      { file: 'a.ts', name: 'method', line: 8, lines: 1 },
    ]);
  });
});
