import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import golden from '../../../tests/fixtures/golden/prompts.json';
import type { CategoryId, Sample } from '../../../src-shared/dataset';
import { pySplit } from '../../../src-shared/scoring/pytext';
import { loadDatasetFile } from '../dataset/load';
import {
  MEM0_ACCURACY_PROMPT,
  UnparseableJudgeReply,
  extractJson,
  judgeProtocolOf,
  parseMem0Verdict,
} from './judge-protocols';
import {
  LOCOMO_BATCH_TRIALS,
  buildLocomoBatchPrompt,
  locomoBatchReplyReads,
  readLocomoBatchReply,
} from './locomoBatch';
import {
  LOCOMO_CONV_START_PROMPT,
  LOCOMO_PER_QA_TOKEN_BUDGET,
  LOCOMO_QA_PROMPT,
  LOCOMO_QA_PROMPT_BATCH,
  LOCOMO_QA_PROMPT_CAT_5,
  MEM0_ANSWER_PROMPT,
  answerProtocol,
  buildLocomoFullContextPrompt,
  buildMem0Prompt,
  interpretReply,
  locomoCategory5Answer,
  type TokenCounter,
} from './protocols';
import { NOT_MENTIONED, type AnswerRequest, type ConversationSession } from './types';

/**
 * Byte-for-byte checks against tests/fixtures/golden/prompts.json, which
 * scripts/golden/generate-prompts.py writes by running the references' own code (mem0
 * llm_judge.py, utils.extract_json, memzero/search.py; LoCoMo evaluate_gpts.get_gpt_answers).
 * Token counts on both sides are whitespace words, so the LoCoMo truncation walk is compared
 * exactly, not only its output on conversations that fit.
 */

const words: TokenCounter = Object.assign((text: string) => pySplit(text).length, {
  splitsOnWhitespace: true,
});
/** The same counter without the running-total shortcut: the reference's walk, recounting. */
const wordsRecounted: TokenCounter = (text) => pySplit(text).length;
// The real dataset sits in ../shared beside the clone (never committed); absent, its test is skipped.
const DATASET = fileURLToPath(
  new URL('../../../../shared/datasets/locomo10.json', import.meta.url),
);

function baseRequest(partial: Partial<AnswerRequest>): AnswerRequest {
  return {
    sampleId: 's',
    benchmark: 'locomo',
    questionIndex: 0,
    question: '',
    category: 4,
    speakers: ['Ann', 'Bob'],
    memories: [],
    seed: 42,
    ...partial,
  };
}

describe('golden: Mem0 judge', () => {
  it('has ACCURACY_PROMPT byte for byte and fills it as str.format does', () => {
    expect(MEM0_ACCURACY_PROMPT).toBe(golden.mem0Judge.accuracyPrompt);
    for (const item of golden.mem0Judge.filled) {
      expect(judgeProtocolOf('mem0').messages(item)).toEqual([
        { role: 'user', content: item.content },
      ]);
    }
  });

  it('reads replies as extract_json + json.loads(...)["label"] == "CORRECT"', () => {
    for (const { reply, extracted, outcome } of golden.mem0Judge.replies) {
      expect(extractJson(reply), reply).toBe(extracted);
      if (outcome.startsWith('unparseable')) {
        expect(() => parseMem0Verdict(reply), reply).toThrow(UnparseableJudgeReply);
      } else {
        expect(parseMem0Verdict(reply).label, reply).toBe(outcome);
      }
    }
  });
});

describe('golden: Mem0 answer prompt', () => {
  it('has ANSWER_PROMPT byte for byte and renders memories as search.py does', () => {
    expect(MEM0_ANSWER_PROMPT).toBe(golden.mem0Answer.answerPrompt);
    for (const c of golden.mem0Answer.cases) {
      // Mem0 searches each speaker (top_k 30); here the hits arrive as one list and are split.
      expect(c.searches.map((s) => s.top_k)).toEqual([30, 30]);
      const memories = Object.entries(c.memories).flatMap(([speaker, list]) =>
        list.map((m, i) => ({
          id: `${speaker}-${i}`,
          diaId: null,
          text: m.memory,
          speaker,
          score: m.score,
          sessionDateTime: m.iso,
        })),
      );
      const request = baseRequest({
        question: c.question,
        speakers: c.speakers as [string, string],
        memories,
      });
      expect(buildMem0Prompt(request).messages).toEqual(c.messages);
      expect(c.temperature).toBe(0);
    }
  });
});

type MadeUpTurn = { speaker: string; text: string; blip_caption?: string };

function madeUpSessions(): ConversationSession[] {
  const conv = golden.locomo.madeUp.conversation as unknown as Record<string, unknown>;
  const sessions: ConversationSession[] = [];
  for (let i = 1; Array.isArray(conv[`session_${i}`]); i++) {
    sessions.push({
      dateTimeText: conv[`session_${i}_date_time`] as string,
      turns: (conv[`session_${i}`] as MadeUpTurn[]).map((t) => ({
        speaker: t.speaker,
        text: t.text,
        ...(t.blip_caption !== undefined ? { blipCaption: t.blip_caption } : {}),
      })),
    });
  }
  return sessions;
}

/** The reference's option order from its random draw: below 0.5, "Not mentioned" is (a). */
function referenceOptions(draw: number, adversarial: string): { a: string; b: string } {
  return draw < 0.5 ? { a: NOT_MENTIONED, b: adversarial } : { a: adversarial, b: NOT_MENTIONED };
}

/** The made-up questions as requests, each category-5 one with the reference's drawn options. */
function madeUpQuestions(
  speakers: readonly string[],
  conversation: ConversationSession[],
  randomDraws: readonly number[],
): Array<{ request: AnswerRequest; options: { a: string; b: string } | null }> {
  let draw = 0;
  return golden.locomo.madeUp.qa.map((q, i) => {
    const adversarial = 'adversarial_answer' in q ? q.adversarial_answer : null;
    const options =
      q.category === 5 && adversarial
        ? referenceOptions(randomDraws[draw++] as number, adversarial)
        : null;
    const request = baseRequest({
      questionIndex: i,
      question: q.question,
      category: q.category as CategoryId,
      speakers: speakers as [string, string],
      conversation,
      adversarialAnswer: adversarial,
    });
    return { request, options };
  });
}

describe('golden: LoCoMo full context', () => {
  it('has the reference constants', () => {
    const k = golden.locomo.constants;
    expect(LOCOMO_CONV_START_PROMPT).toBe(k.CONV_START_PROMPT);
    expect(LOCOMO_QA_PROMPT).toBe(k.QA_PROMPT);
    expect(LOCOMO_QA_PROMPT_CAT_5).toBe(k.QA_PROMPT_CAT_5);
    expect(LOCOMO_QA_PROMPT_BATCH).toBe(k.QA_PROMPT_BATCH);
    expect(LOCOMO_PER_QA_TOKEN_BUDGET).toBe(k.PER_QA_TOKEN_BUDGET);
  });

  it('builds the same query bytes on a made-up conversation, cut or not, and maps replies', () => {
    const { cases, replies, randomDraws } = golden.locomo.madeUp;
    const conversation = madeUpSessions();
    expect(cases.length).toBe(3);
    for (const c of cases) {
      madeUpQuestions(c.speakers, conversation, randomDraws).forEach(({ request, options }, i) => {
        const built = buildLocomoFullContextPrompt(request, c.contextTokens, words, options);
        const sent = c.queries[i] as (typeof c.queries)[number];
        expect(built.messages, `${c.model} q${i}`).toEqual([{ role: 'user', content: sent.query }]);
        expect(
          buildLocomoFullContextPrompt(request, c.contextTokens, wordsRecounted, options).messages,
        ).toEqual(built.messages);
        expect(answerProtocol('locomo-full-context').maxTokens).toBe(sent.maxTokens);
        expect(interpretReply(replies[i] as string, built, 'locomo')).toBe(c.predictions[i]);
      });
    }
  });

  it('builds the batch prompt and reads its replies as the reference does (batch size 3)', () => {
    const { cases, randomDraws } = golden.locomo.batchMadeUp;
    const conversation = madeUpSessions();
    expect(new Set(cases.map((c) => c.name)).size).toBe(5);
    for (const c of cases) {
      const items = madeUpQuestions(c.speakers, conversation, randomDraws);
      // The reference's chunks: consecutive questions, batchSize at a time.
      const predictions: Array<string | null> = [];
      let reply = 0;
      let call = 0;
      for (let start = 0; start < items.length; start += c.batchSize) {
        const chunk = items.slice(start, start + c.batchSize);
        const built = buildLocomoBatchPrompt(
          chunk.map((x) => x.request),
          c.batchSize,
          c.contextTokens,
          words,
          chunk.map((x) => x.options),
        );
        const recounted = buildLocomoBatchPrompt(
          chunk.map((x) => x.request),
          c.batchSize,
          c.contextTokens,
          wordsRecounted,
          chunk.map((x) => x.options),
        );
        expect(recounted.messages).toEqual(built.messages);
        // A reply that does not read is asked again (the same prompt), up to 5 calls.
        let text = '';
        for (let trial = 0; trial < LOCOMO_BATCH_TRIALS; trial++) {
          const sent = c.queries[call++] as (typeof c.queries)[number];
          expect(built.messages, `${c.name} ${c.model} call ${call}`).toEqual([
            { role: 'user', content: sent.query },
          ]);
          expect(built.maxTokens).toBe(sent.maxTokens);
          text = c.replies[reply++] as string;
          if (locomoBatchReplyReads(text)) break;
        }
        predictions.push(...readLocomoBatchReply(text, built));
      }
      expect(call, `${c.name} ${c.model}: every call the reference made`).toBe(c.queries.length);
      expect(predictions, `${c.name} ${c.model}`).toEqual(c.predictions);
    }
  });

  it('ports get_cat_5_answer exactly', () => {
    for (const { reply, mapped } of golden.locomo.category5) {
      expect(locomoCategory5Answer(reply, { a: 'A-option', b: 'B-option' }), reply).toBe(mapped);
    }
  });

  it.skipIf(golden.locomo.realDataset === null || !existsSync(DATASET))(
    'matches the reference prompt hashes on the real dataset when it is present',
    async () => {
      const real = golden.locomo.realDataset;
      expect(real === null || real.length > 0).toBe(true);
      if (real === null) throw new Error('the golden file has no real-dataset entries');
      const { samples } = await loadDatasetFile(DATASET);
      const byId = new Map<string, Sample>(samples.map((s) => [s.sampleId, s]));
      let compared = 0;
      let expected = 0;
      for (const entry of real) {
        expected += entry.questions.length;
        const sample = byId.get(entry.sampleId) as Sample;
        const conversation = sample.sessions.map((s) => ({
          dateTimeText: s.dateTimeText ?? '',
          turns: s.turns.map((t) => ({
            speaker: t.speaker,
            text: t.rawText,
            ...(t.blipCaption !== undefined ? { blipCaption: t.blipCaption } : {}),
          })),
        }));
        for (const q of entry.questions) {
          const qa = sample.qa[q.qaIndex] as Sample['qa'][number];
          const options =
            qa.category === 5 ? referenceOptions(0.3, qa.adversarialAnswer ?? '') : null;
          const request = baseRequest({
            question: qa.question,
            category: qa.category,
            speakers: entry.speakers as [string, string],
            conversation,
            adversarialAnswer: qa.adversarialAnswer,
          });
          const content = buildLocomoFullContextPrompt(request, entry.contextTokens, words, options)
            .messages[0]?.content as string;
          const hash = createHash('sha256').update(content).digest('hex');
          expect(hash, `${entry.sampleId} qa ${q.qaIndex} at ${entry.contextTokens}`).toBe(
            q.sha256,
          );
          compared++;
        }
      }
      expect(compared).toBe(expected);
      expect(expected).toBeGreaterThan(90);
    },
  );
});
