import { describe, expect, it } from 'vitest';
import type { AnswerRequest, AnswerResult } from '../answer/types';
import { TestBatcher } from './testBatcher';

const request = (questionIndex: number): AnswerRequest => ({
  sampleId: 's',
  benchmark: 'locomo',
  questionIndex,
  question: `q${questionIndex}`,
  category: 4,
  speakers: ['A', 'B'],
  memories: [],
  seed: 1,
});

/** An answerBatch that records each call's question indices and answers "a<index>". */
function recorder(fail: ReadonlySet<number> = new Set()) {
  const calls: number[][] = [];
  return {
    calls,
    batchSize: 3,
    answerBatch: async (requests: readonly AnswerRequest[]) => {
      calls.push(requests.map((r) => r.questionIndex));
      return requests.map((r): AnswerResult | Error =>
        fail.has(r.questionIndex)
          ? new Error(`no answer for ${r.questionIndex}`)
          : { answer: `a${r.questionIndex}` },
      );
    },
  };
}

describe('TestBatcher', () => {
  it('asks consecutive questions in ascending order, one call a full chunk', async () => {
    const answerer = recorder();
    const questions = [7, 2, 5, 1, 9];
    const batcher = new TestBatcher(answerer, questions);
    expect(TestBatcher.launchOrder(questions)).toEqual([1, 2, 5, 7, 9]);
    // Asked out of order: the first chunk [1, 2, 5] goes once its last member is in.
    const p5 = batcher.answer(request(5));
    const p1 = batcher.answer(request(1));
    expect(answerer.calls).toEqual([]);
    const p2 = batcher.answer(request(2));
    expect(answerer.calls).toEqual([[1, 2, 5]]);
    const [a1, a2, a5] = await Promise.all([p1, p2, p5]);
    expect([a1.answer, a2.answer, a5.answer]).toEqual(['a1', 'a2', 'a5']);
    // The last chunk is shorter: [7, 9].
    const rest = await Promise.all([batcher.answer(request(9)), batcher.answer(request(7))]);
    expect(rest.map((r) => r.answer)).toEqual(['a9', 'a7']);
    expect(answerer.calls).toEqual([
      [1, 2, 5],
      [7, 9],
    ]);
  });

  it('asks a chunk without a question that withdrew, and fails only the questions the reply left out', async () => {
    const answerer = recorder(new Set([3]));
    const batcher = new TestBatcher(answerer, [1, 2, 3]);
    const p1 = batcher.answer(request(1));
    const p3 = batcher.answer(request(3));
    batcher.withdraw(2);
    expect(answerer.calls).toEqual([[1, 3]]);
    await expect(p1).resolves.toEqual({ answer: 'a1' });
    await expect(p3).rejects.toThrow('no answer for 3');
  });

  it('fails every question of a chunk whose call fails', async () => {
    const batcher = new TestBatcher(
      {
        batchSize: 2,
        answerBatch: () => Promise.reject(new Error('endpoint down')),
      },
      [4, 8],
    );
    const answers = [batcher.answer(request(4)), batcher.answer(request(8))];
    for (const a of answers) await expect(a).rejects.toThrow('endpoint down');
  });
});
