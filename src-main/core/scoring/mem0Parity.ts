import { z } from 'zod';
import { zodError } from '../../../src-shared/errors';
import { bleu1, setF1 } from '../../../src-shared/scoring/mem0';

/**
 * Checks our Mem0-style scores against a file Mem0's own `evaluation/evals.py` wrote (its
 * `evaluation_metrics.json`: `{conversation: [{question, answer, response, category, bleu_score,
 * f1_score, llm_score}]}`, categories 1-4). Each item is re-scored from its `answer` and `response`
 * exactly as evals.py calls `calculate_metrics` and `calculate_bleu_scores` (both as `str(...)`), so
 * the report says how many of Mem0's own per-item numbers this build reproduces.
 */

const itemSchema = z
  .object({
    question: z.unknown(),
    answer: z.union([z.string(), z.number()]),
    response: z.union([z.string(), z.number()]),
    category: z.union([z.string(), z.number()]),
    bleu_score: z.number(),
    f1_score: z.number(),
  })
  .loose();
const fileSchema = z.record(z.string(), z.array(itemSchema));

export interface ParityMismatch {
  conversation: string;
  index: number;
  answer: string;
  response: string;
  theirs: number;
  ours: number;
}

export interface MetricParity {
  agree: number;
  differ: ParityMismatch[];
  meanTheirs: number;
  meanOurs: number;
}

export interface Mem0Parity {
  items: number;
  setF1: MetricParity;
  bleu1: MetricParity;
}

/** Scores closer than this agree (both sides are IEEE doubles from the same arithmetic). */
const TOLERANCE = 1e-9;

export function checkMem0Parity(data: unknown, where = 'Mem0 evaluation file'): Mem0Parity {
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) throw zodError(parsed.error, where);
  const tally = (): MetricParity & { sumOurs: number; sumTheirs: number } => ({
    agree: 0,
    differ: [],
    meanTheirs: 0,
    meanOurs: 0,
    sumOurs: 0,
    sumTheirs: 0,
  });
  const f1 = tally();
  const b1 = tally();
  let items = 0;
  for (const [conversation, list] of Object.entries(parsed.data)) {
    list.forEach((item, index) => {
      // evals.py skips category 5 before scoring.
      if (String(item.category) === '5') return;
      items++;
      const answer = String(item.answer);
      const response = String(item.response);
      for (const [t, ours, theirs] of [
        [f1, setF1(response, answer), item.f1_score],
        [b1, bleu1(response, answer), item.bleu_score],
      ] as const) {
        t.sumOurs += ours;
        t.sumTheirs += theirs;
        if (Math.abs(ours - theirs) <= TOLERANCE) t.agree++;
        else t.differ.push({ conversation, index, answer, response, theirs, ours });
      }
    });
  }
  const done = (t: ReturnType<typeof tally>): MetricParity => ({
    agree: t.agree,
    differ: t.differ,
    meanTheirs: items === 0 ? 0 : t.sumTheirs / items,
    meanOurs: items === 0 ? 0 : t.sumOurs / items,
  });
  return { items, setF1: done(f1), bleu1: done(b1) };
}
