import { describe, expect, it } from 'vitest';
import scoresGolden from '../../../tests/fixtures/golden/scores.json';
import { checkMem0Parity } from './mem0Parity';

/**
 * A file in the shape Mem0's evals.py writes, whose f1_score and bleu_score come from the Python
 * references (scripts/golden/generate.py: Mem0's calculate_metrics and calculate_bleu_scores over
 * NLTK), so full agreement means this build reproduces Mem0's per-item numbers.
 */
function mem0File(): Record<string, Array<Record<string, unknown>>> {
  const items = scoresGolden.items
    .filter((item) => item.gold !== null && item.category !== 5)
    .map((item) => ({
      question: item.note,
      answer: item.gold,
      response: item.prediction,
      category: String(item.category),
      bleu_score: item.bleu1,
      f1_score: item.mem0_f1,
      llm_score: 1,
    }));
  return { '0': items.slice(0, 100), '1': items.slice(100) };
}

describe("parity with Mem0's own evals.py scores", () => {
  it('reproduces every set F1 and BLEU-1 of a file scored by the reference code', () => {
    const report = checkMem0Parity(mem0File());
    expect(report.items).toBeGreaterThan(200);
    expect(report.setF1.differ).toEqual([]);
    expect(report.bleu1.differ).toEqual([]);
    expect(report.bleu1.meanOurs).toBeCloseTo(report.bleu1.meanTheirs, 12);
  });

  it('names the item that differs, and skips category 5 as evals.py does', () => {
    const file = mem0File();
    const first = file['0']?.[0] as Record<string, unknown>;
    first['bleu_score'] = (first['bleu_score'] as number) + 0.5;
    file['0']?.push({ ...first, category: '5', bleu_score: 99 });
    const report = checkMem0Parity(file);
    expect(report.bleu1.differ).toHaveLength(1);
    expect(report.bleu1.differ[0]).toMatchObject({ conversation: '0', index: 0 });
    expect(report.items).toBe(checkMem0Parity(mem0File()).items);
  });

  it('refuses a file that is not in evals.py shape, naming where', () => {
    expect(() => checkMem0Parity({ '0': [{ answer: 'x' }] }, 'evaluation_metrics.json')).toThrow(
      /evaluation_metrics\.json/,
    );
  });
});
