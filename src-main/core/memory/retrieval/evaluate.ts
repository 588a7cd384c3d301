import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sample } from '../../../../src-shared/dataset';
import type { PlaygroundRecall } from '../../../../src-shared/designs';
import { evidenceRecallAtK, meanEvidenceRecall } from '../../../../src-shared/scoring';
import { packetsOf } from '../../dataset/packets';
import type { MemoryService, MemoryServiceContext } from '../types';
import { pathComponentOf } from '../../path-component';

/**
 * Retrieval over a whole sample, the way `cli retrieve` and the benchmarks measure it: every turn
 * inserted (packet by packet, as the pipeline does), then every question with evidence asked once.
 * Unlike an experiment there are no tests in between, so each question sees the full conversation.
 */

export interface QuestionRetrieval {
  sampleId: string;
  questionIndex: number;
  /** Turn ids (`D1:3`), best first; hits that are not turns are left out. */
  retrieved: string[];
  /** Wall time of the retrieve call, ms. */
  ms: number;
}

export interface SampleRetrieval {
  sampleId: string;
  turns: number;
  /** Wall time of all inserts (service creation excluded), ms. */
  insertMs: number;
  questions: QuestionRetrieval[];
}

export type ServiceFactory = (ctx: MemoryServiceContext) => Promise<MemoryService>;

export async function retrieveSample(
  sample: Sample,
  create: ServiceFactory,
  k: number,
  options: { dir?: string } = {},
): Promise<SampleRetrieval> {
  const owned = options.dir === undefined;
  const dir =
    options.dir ?? mkdtempSync(join(tmpdir(), `mw-retrieve-${pathComponentOf(sample.sampleId)}-`));
  const service = await create({ sample, dir });
  try {
    const packets = packetsOf(sample);
    let turns = 0;
    const t0 = performance.now();
    for (const packet of packets) {
      await service.insert(packet);
      turns += packet.dialogs.length;
    }
    const insertMs = performance.now() - t0;
    const questions: QuestionRetrieval[] = [];
    for (const qa of sample.qa) {
      if (qa.evidence.length === 0) continue;
      const q0 = performance.now();
      const hits = await service.retrieve(qa.question, k);
      const ms = performance.now() - q0;
      const retrieved: string[] = [];
      for (const hit of hits) if (hit.diaId !== null) retrieved.push(hit.diaId);
      questions.push({ sampleId: sample.sampleId, questionIndex: qa.index, retrieved, ms });
    }
    return { sampleId: sample.sampleId, turns, insertMs, questions };
  } finally {
    await service.close();
    if (owned) rmSync(dir, { recursive: true, force: true });
  }
}

/** One question's retrieval with what recall is measured against: its evidence and category. */
export interface EvaluatedQuestion extends QuestionRetrieval {
  evidence: string[];
  category: number;
}

export interface RetrievalEvaluation {
  /** Every question with evidence, sample by sample, in question order. */
  questions: EvaluatedQuestion[];
  turns: number;
  /** Wall time of all inserts, ms. */
  insertMs: number;
  /** Each sample's own retrieval (its turns, insert time and questions). */
  samples: SampleRetrieval[];
}

/**
 * Retrieval evaluation, the one entry `cli retrieve`, the benchmarks and the playground share:
 * each sample retrieved as `retrieveSample` does (a fresh service from `create`, top k), its
 * questions joined to their evidence and category so recall@k can be read at any k <= `k`.
 */
export async function evaluateRetrieval(
  samples: readonly Sample[],
  create: ServiceFactory,
  k: number,
  options: { onSample?: (result: SampleRetrieval) => void } = {},
): Promise<RetrievalEvaluation> {
  const out: RetrievalEvaluation = { questions: [], turns: 0, insertMs: 0, samples: [] };
  for (const sample of samples) {
    const result = await retrieveSample(sample, create, k);
    out.samples.push(result);
    out.turns += result.turns;
    out.insertMs += result.insertMs;
    const qa = new Map(sample.qa.map((q) => [q.index, q]));
    for (const q of result.questions) {
      const item = qa.get(q.questionIndex);
      if (item) out.questions.push({ ...q, evidence: item.evidence, category: item.category });
    }
    options.onSample?.(result);
  }
  return out;
}

/**
 * Mean evidence recall@k over questions (src-shared/scoring's definition; a question without
 * evidence is left out, n counts the rest): the number `cli retrieve`, the benchmarks and the
 * playground report.
 */
export function recallAtK(
  questions: ReadonlyArray<Pick<EvaluatedQuestion, 'evidence' | 'retrieved'>>,
  k: number,
): { mean: number; n: number } {
  return meanEvidenceRecall(questions.map((q) => evidenceRecallAtK(q.evidence, q.retrieved, k)));
}

/**
 * One list's evidence recall with its counts (the playground's badge, `recall@k 0.50 (1/2)`):
 * `evidenceRecallAtK` over the whole list, as `recallAtK` reads each question. Null without
 * evidence (nothing to recall).
 */
export function listEvidenceRecall(
  evidence: readonly string[],
  retrieved: readonly string[],
): PlaygroundRecall | null {
  const recall = evidenceRecallAtK(evidence, retrieved);
  if (recall === undefined) return null;
  const gold = new Set(evidence);
  const found = [...gold].filter((id) => retrieved.includes(id)).length;
  return { found, total: gold.size, recall };
}
