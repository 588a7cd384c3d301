import type { AnswerRecord } from './experiment';

/**
 * Is a comparison fair? Systems compared at different context sizes or on different questions
 * are not measuring the same thing, and the numbers alone do not say so. These warnings do.
 */

export type FairnessKind = 'top-k' | 'context' | 'questions';

export interface FairnessWarning {
  kind: FairnessKind;
  /** A sentence naming the runs and the values. */
  message: string;
}

export interface FairnessRun {
  label: string;
  topK: number;
  /** The equal-context-budget mode's word budget; null or absent: none. */
  contextWords?: number | null;
  answers: readonly Pick<
    AnswerRecord,
    'sampleId' | 'questionIndex' | 'retrieved' | 'usage' | 'error' | 'memoryTokens'
  >[];
}

/** Mean context sizes further apart than this share of the larger one are flagged. */
export const CONTEXT_TOLERANCE = 0.1;

function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

const differ = (a: number, b: number): boolean =>
  Math.abs(a - b) > CONTEXT_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));

/** Warnings for comparing `runs[i]` with `runs[baselineIndex]`, baseline first. */
export function fairnessWarnings(
  runs: readonly FairnessRun[],
  baselineIndex: number,
): FairnessWarning[] {
  const baseline = runs[baselineIndex];
  if (!baseline) return [];
  const warnings: FairnessWarning[] = [];
  const keys = (run: FairnessRun): Set<string> =>
    new Set(run.answers.map((a) => `${a.sampleId}\u0000${a.questionIndex}`));
  const baseKeys = keys(baseline);
  // Items actually retrieved (a service may return fewer than top_k), and for LLM answerers the
  // prompt tokens: the context the answer was written from.
  const items = (run: FairnessRun) =>
    mean(run.answers.filter((a) => a.error === null).map((a) => a.retrieved.length));
  const prompt = (run: FairnessRun) =>
    mean(run.answers.flatMap((a) => (a.usage ? [a.usage.promptTokens] : [])));
  // The retrieved context's own tokens (Mem0's Table 2 "memory tokens"), for every answerer: a
  // run that retrieves per speaker (mem0) or whole chunks reads more context at the same top_k.
  const memoryTokens = (run: FairnessRun) =>
    mean(
      run.answers.flatMap((a) =>
        a.error === null && typeof a.memoryTokens === 'number' ? [a.memoryTokens] : [],
      ),
    );
  const baseItems = items(baseline);
  const basePrompt = prompt(baseline);
  const baseMemoryTokens = memoryTokens(baseline);
  runs.forEach((run, i) => {
    if (i === baselineIndex) return;
    const pair = `${run.label} vs ${baseline.label}`;
    if (run.topK !== baseline.topK) {
      warnings.push({
        kind: 'top-k',
        message: `${pair}: top_k ${run.topK} vs ${baseline.topK}; the systems saw different numbers of memories`,
      });
    }
    if ((run.contextWords ?? null) !== (baseline.contextWords ?? null)) {
      const budget = (r: FairnessRun) => (r.contextWords ? `${r.contextWords} words` : 'none');
      warnings.push({
        kind: 'context',
        message: `${pair}: context budget ${budget(run)} vs ${budget(baseline)}`,
      });
    }
    const runItems = items(run);
    if (runItems !== null && baseItems !== null && differ(runItems, baseItems)) {
      warnings.push({
        kind: 'context',
        message: `${pair}: ${runItems.toFixed(1)} vs ${baseItems.toFixed(1)} memories retrieved per question on average`,
      });
    }
    const runMemoryTokens = memoryTokens(run);
    if (
      runMemoryTokens !== null &&
      baseMemoryTokens !== null &&
      differ(runMemoryTokens, baseMemoryTokens)
    ) {
      warnings.push({
        kind: 'context',
        message: `${pair}: ${Math.round(runMemoryTokens)} vs ${Math.round(baseMemoryTokens)} memory tokens (retrieved context) per question on average`,
      });
    }
    const runPrompt = prompt(run);
    if (runPrompt !== null && basePrompt !== null && differ(runPrompt, basePrompt)) {
      warnings.push({
        kind: 'context',
        message: `${pair}: ${Math.round(runPrompt)} vs ${Math.round(basePrompt)} answer prompt tokens per question on average`,
      });
    }
    const own = keys(run);
    let onlyRun = 0;
    for (const k of own) if (!baseKeys.has(k)) onlyRun++;
    let onlyBase = 0;
    for (const k of baseKeys) if (!own.has(k)) onlyBase++;
    if (onlyRun > 0 || onlyBase > 0) {
      warnings.push({
        kind: 'questions',
        message: `${pair}: different question sets (${onlyRun} only in ${run.label}, ${onlyBase} only in ${baseline.label}); compared on the questions every run answered`,
      });
    }
  });
  return warnings;
}

/** Words of a text as the context budget counts them: whitespace-separated, tokenizer-free. */
export function wordCount(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? 0 : trimmed.split(/\s+/).length;
}

/**
 * The equal-context-budget mode: memories best first until `budget` words are spent; the one
 * that crosses the budget is cut to fit, the rest are dropped. Two systems trimmed to the same
 * budget answer from the same amount of context, whatever their top_k or memory sizes.
 */
export function trimToWordBudget<T extends { text: string }>(
  memories: readonly T[],
  budget: number,
): T[] {
  const out: T[] = [];
  let left = budget;
  for (const memory of memories) {
    if (left <= 0) break;
    const words = wordCount(memory.text);
    if (words <= left) {
      out.push(memory);
      left -= words;
    } else {
      out.push({ ...memory, text: memory.text.trim().split(/\s+/).slice(0, left).join(' ') });
      left = 0;
    }
  }
  return out;
}
