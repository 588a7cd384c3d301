import type { AnswerRequest, AnswerResult, Answerer } from '../answer/types';

/**
 * One test's questions asked `batchSize` to a call (LoCoMo's batch prompt): the test's question
 * indices in ascending order, cut into consecutive chunks as the reference cuts its file's
 * questions. Each question still retrieves on its own (for its recall scores); its answer waits
 * until every question of its chunk has its request, then one call answers the chunk. A question
 * that fails before it asks (its retrieval) withdraws, and its chunk is asked without it.
 */
export class TestBatcher {
  readonly #answerer: Required<Pick<Answerer, 'answerBatch'>>;
  readonly #signal: AbortSignal | undefined;
  readonly #chunkOf = new Map<number, Chunk>();

  constructor(
    answerer: Required<Pick<Answerer, 'answerBatch' | 'batchSize'>>,
    questionIndices: readonly number[],
    signal?: AbortSignal,
  ) {
    this.#answerer = answerer;
    this.#signal = signal;
    const sorted = [...questionIndices].sort((a, b) => a - b);
    for (let start = 0; start < sorted.length; start += answerer.batchSize) {
      const chunk = new Chunk(sorted.slice(start, start + answerer.batchSize));
      for (const index of chunk.members) this.#chunkOf.set(index, chunk);
    }
  }

  /** The order to launch the questions in: chunk by chunk, so a chunk fills before the next. */
  static launchOrder(questionIndices: readonly number[]): number[] {
    return [...questionIndices].sort((a, b) => a - b);
  }

  answer(request: AnswerRequest): Promise<AnswerResult> {
    const chunk = this.#chunk(request.questionIndex);
    const answered = chunk.add(request);
    this.#askWhenFull(chunk);
    return answered;
  }

  /** The question will not ask (it failed first): its chunk goes without it. */
  withdraw(questionIndex: number): void {
    const chunk = this.#chunk(questionIndex);
    chunk.withdraw(questionIndex);
    this.#askWhenFull(chunk);
  }

  #chunk(questionIndex: number): Chunk {
    const chunk = this.#chunkOf.get(questionIndex);
    if (!chunk) throw new Error(`question ${questionIndex} is not in this test's batches`);
    return chunk;
  }

  #askWhenFull(chunk: Chunk): void {
    if (!chunk.full() || chunk.asked) return;
    chunk.asked = true;
    const asking = chunk.requests();
    if (asking.length === 0) return;
    this.#answerer
      .answerBatch(
        asking.map((a) => a.request),
        this.#signal,
      )
      .then(
        (results) =>
          asking.forEach((a, k) => {
            const result = results[k];
            if (result === undefined) a.reject(new Error('the batch returned fewer answers'));
            else if (result instanceof Error) a.reject(result);
            else a.resolve(result);
          }),
        (error: unknown) => asking.forEach((a) => a.reject(error)),
      );
  }
}

interface Pending {
  request: AnswerRequest;
  resolve: (result: AnswerResult) => void;
  reject: (error: unknown) => void;
}

class Chunk {
  readonly members: readonly number[];
  asked = false;
  readonly #pending = new Map<number, Pending>();
  readonly #withdrawn = new Set<number>();

  constructor(members: readonly number[]) {
    this.members = members;
  }

  add(request: AnswerRequest): Promise<AnswerResult> {
    return new Promise((resolve, reject) => {
      this.#pending.set(request.questionIndex, { request, resolve, reject });
    });
  }

  withdraw(questionIndex: number): void {
    this.#withdrawn.add(questionIndex);
  }

  full(): boolean {
    return this.members.every((m) => this.#pending.has(m) || this.#withdrawn.has(m));
  }

  /** The requests in question order, as the prompt numbers them. */
  requests(): Pending[] {
    return this.members.flatMap((m) => this.#pending.get(m) ?? []);
  }
}
