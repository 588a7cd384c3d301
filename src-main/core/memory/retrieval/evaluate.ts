import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sample } from '../../../../src-shared/dataset';
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
