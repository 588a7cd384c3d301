import { describe, expect, it } from 'vitest';
import { listEvidenceRecall, recallAtK } from './evaluate';

/**
 * The playground's recall badge is the core's: one list's evidence recall, the same number
 * `recallAtK` (cli retrieve, the benchmarks) reads for a question, with its counts.
 */
describe('listEvidenceRecall', () => {
  it('counts each evidence turn once among the hits, turns without an id aside', () => {
    const retrieved = ['D1:1', 'D2:2', 'D1:1'];
    expect(listEvidenceRecall(['D2:2', 'D1:3'], retrieved)).toEqual({
      found: 1,
      total: 2,
      recall: 0.5,
    });
    expect(listEvidenceRecall(['D1:1', 'D1:1'], retrieved)).toEqual({
      found: 1,
      total: 1,
      recall: 1,
    });
    expect(listEvidenceRecall(['D9:9'], [])).toEqual({ found: 0, total: 1, recall: 0 });
  });

  it('is null without evidence (nothing to recall)', () => {
    expect(listEvidenceRecall([], ['D1:1'])).toBeNull();
  });

  it('is the recall cli retrieve reports for the same question at the list length', () => {
    const question = { evidence: ['D1:1', 'D3:4', 'D5:6'], retrieved: ['D3:4', 'D0:1', 'D1:1'] };
    const recall = listEvidenceRecall(question.evidence, question.retrieved);
    expect(recall?.recall).toBe(recallAtK([question], question.retrieved.length).mean);
    expect(recall).toMatchObject({ found: 2, total: 3 });
  });
});
