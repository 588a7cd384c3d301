import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import golden from '../../../tests/fixtures/golden/prompts.json';
import type { Sample } from '../../../src-shared/dataset';
import { retrievedContext } from '../../../src-shared/experiment';
import { locomoEvidenceRecall } from '../../../src-shared/scoring/retrieval';
import { loadDatasetFile, loadDatasetValue } from '../dataset/load';
import { ragDatabase, type LocomoRagDatabase, type RagEntry } from '../memory/presets/locomo-rag';
import { answerProtocol, buildLocomoRagPrompt, interpretReply } from './protocols';
import { NOT_MENTIONED, type AnswerRequest, type MemoryHit } from './types';

/**
 * LoCoMo RAG against tests/fixtures/golden/prompts.json (`locomoRag`), written by
 * scripts/golden/generate-prompts.py from the reference's own prepare_for_rag (its databases),
 * get_rag_context + get_gpt_answers (the prompt bytes, with a stand-in retriever whose picks are
 * recorded) and evaluation.py eval_question_answering (its recall). Here the same picks go
 * through the presets' databases, the `locomo-rag` protocol and the LoCoMo recall convention.
 */

// The real dataset sits in ../shared beside the clone (never committed); absent, its test is skipped.
const DATASET = fileURLToPath(
  new URL('../../../../shared/datasets/locomo10.json', import.meta.url),
);

type GoldenDatabase = { date_time: string[]; dia_id: Array<string | string[]>; context: string[] };

/** What the memory service returns for an entry (the preset builds the same from its index). */
function hitOf(entry: RagEntry, db: LocomoRagDatabase): MemoryHit {
  return {
    id: entry.id,
    diaId: db === 'dialog' ? entry.id : null,
    text: entry.text,
    speaker: entry.speaker,
    score: 1,
    sessionDateTime: null,
    source: {
      kind: db === 'dialog' ? 'turn' : db,
      contextIds: entry.contextIds,
      dateTimeText: entry.dateTimeText,
    },
  };
}

function referenceOptions(draw: number, adversarial: string): { a: string; b: string } {
  return draw < 0.5 ? { a: NOT_MENTIONED, b: adversarial } : { a: adversarial, b: NOT_MENTIONED };
}

function requestFor(sample: Sample, qaIndex: number, memories: MemoryHit[]): AnswerRequest {
  const qa = sample.qa[qaIndex] as Sample['qa'][number];
  return {
    sampleId: sample.sampleId,
    benchmark: 'locomo',
    questionIndex: qaIndex,
    question: qa.question,
    category: qa.category,
    speakers: sample.speakers,
    memories,
    seed: 42,
    adversarialAnswer: qa.adversarialAnswer,
  };
}

/** `get_rag_context`'s expansion of a database's dia_id. */
function expand(id: string | string[]): string[] {
  if (Array.isArray(id)) return id;
  return id.includes(',') ? id.split(',').map((s) => s.trim()) : [id];
}

function madeUpSample(): Sample {
  const m = golden.locomoRag.madeUp.sample;
  const { samples } = loadDatasetValue(
    [
      {
        sample_id: 'made-up',
        conversation: m.conversation,
        qa: m.qa,
        observation: m.observation,
        session_summary: m.session_summary,
      },
    ],
    'golden made-up sample',
  );
  return samples[0] as Sample;
}

describe('golden: LoCoMo RAG', () => {
  it('builds the reference databases, prompt bytes, context ids and recall on a made-up sample', () => {
    const sample = madeUpSample();
    const { cases, replies, randomDraws } = golden.locomoRag.madeUp;
    expect(cases.map((c) => c.mode)).toEqual(['dialog', 'observation', 'summary']);
    for (const c of cases) {
      const db = c.mode as LocomoRagDatabase;
      const entries = ragDatabase(sample, db);
      const ref = c.database as GoldenDatabase;
      // prepare_for_rag's database, entry for entry.
      expect(entries.map((e) => e.text)).toEqual(ref.context);
      expect(entries.map((e) => e.dateTimeText)).toEqual(ref.date_time);
      expect(entries.map((e) => e.contextIds)).toEqual(ref.dia_id.map(expand));
      let draw = 0;
      c.picked.forEach((picked, i) => {
        const hits = picked.map((p) => hitOf(entries[p] as RagEntry, db));
        const request = requestFor(sample, i, hits);
        const qa = sample.qa[i] as Sample['qa'][number];
        const options =
          qa.category === 5
            ? referenceOptions(randomDraws[draw++] as number, qa.adversarialAnswer ?? '')
            : null;
        const built = buildLocomoRagPrompt(request, options);
        const sent = c.queries[i] as (typeof c.queries)[number];
        expect(built.messages, `${c.mode} q${i}`).toEqual([{ role: 'user', content: sent.query }]);
        expect(answerProtocol('locomo-rag').maxTokens).toBe(sent.maxTokens);
        expect(interpretReply(replies[i] as string, built, 'locomo')).toBe(c.predictions[i]);
        // The context ids LoCoMo saves with the prediction, and the recall its evaluation gives.
        const context = retrievedContext(
          hits.map((h) => ({ diaId: h.diaId, context: [...(h.source?.contextIds ?? [])] })),
          c.topK,
        );
        expect(context).toEqual(c.contexts[i]);
        expect(locomoEvidenceRecall(qa.evidenceRaw, context ?? null)).toBe(c.recall?.[i]);
      });
    }
  });

  it.skipIf(golden.locomoRag.realDataset === null || !existsSync(DATASET))(
    'matches the reference databases, prompt hashes and recall on the real dataset',
    async () => {
      const real = golden.locomoRag.realDataset;
      if (real === null) throw new Error('the golden file has no real-dataset entries');
      const { samples } = await loadDatasetFile(DATASET);
      const byId = new Map<string, Sample>(samples.map((s) => [s.sampleId, s]));
      let compared = 0;
      for (const entry of real) {
        const sample = byId.get(entry.sampleId) as Sample;
        const db = entry.mode as LocomoRagDatabase;
        const entries = ragDatabase(sample, db);
        const digest = entries
          .map((e) => [e.dateTimeText, e.text, e.contextIds.join(',')].join('\x1f'))
          .join('\x1e');
        expect(entries.length, `${entry.sampleId} ${db}`).toBe(entry.database.count);
        expect(createHash('sha256').update(digest).digest('hex')).toBe(entry.database.sha256);
        for (const q of entry.questions) {
          const hits = q.picked.map((p) => hitOf(entries[p] as RagEntry, db));
          const qa = sample.qa[q.qaIndex] as Sample['qa'][number];
          const options =
            qa.category === 5 ? referenceOptions(0.3, qa.adversarialAnswer ?? '') : null;
          const content = buildLocomoRagPrompt(requestFor(sample, q.qaIndex, hits), options)
            .messages[0]?.content as string;
          expect(
            createHash('sha256').update(content).digest('hex'),
            `${entry.sampleId} ${db}`,
          ).toBe(q.sha256);
          const context = retrievedContext(
            hits.map((h) => ({ diaId: h.diaId, context: [...(h.source?.contextIds ?? [])] })),
            entry.topK,
          );
          expect(locomoEvidenceRecall(qa.evidenceRaw, context ?? null)).toBe(q.recall);
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(140);
    },
  );
});
