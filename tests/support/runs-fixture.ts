import { ExperimentConfigSchema, type AnswerRecord } from '../../src-shared/experiment';
import type { RunManifest } from '../../src-shared/runs';
import type { RunStore } from '../../src-main/core/runs/store';

/**
 * Deterministic runs for runs-DB tests: each sample has `tests` tests, test t re-asks questions
 * 0..(t+1)*step-1 (as the pipeline does), and every answer's score depends on run, sample, test and
 * question, so a read that picks the wrong test or mixes runs gives different numbers.
 */
export interface FixtureRunOptions {
  runId: string;
  preset?: string;
  samples?: number;
  tests?: number;
  /** Questions that become visible per test. */
  step?: number;
  /** Retrieved refs per answer (what makes rows heavy). */
  retrieved?: number;
  /** The dataset the manifest says the run read (a report reads its turns and gold there). */
  dataset?: RunManifest['dataset'];
}

export function fixtureManifest(
  runId: string,
  preset = 'hybrid',
  samples: string[] = [],
): RunManifest {
  return {
    manifestVersion: 1,
    runId,
    config: ExperimentConfigSchema.parse({ datasetPath: 'locomo.json', memory: { preset } }),
    configHash: `hash-${preset}`,
    dataset: { path: 'locomo.json', sha256: 'x', bytes: 1, format: 'locomo' },
    samples,
    app: { version: '0', gitCommit: null },
    memory: { preset, notes: [] },
    embedder: null,
    answerer: { kind: 'extractive', name: 'extractive-v1' },
    seed: 42,
    parallel: 1,
    host: { platform: 'linux', arch: 'x64', node: 'v20', cores: 2 },
    startedAt: '2025-01-01T00:00:00.000Z',
    endedAt: null,
    errors: { insert: 0, answer: 0 },
  };
}

/** Writes one completed run through the real writer; returns how many answer rows it holds. */
export function writeFixtureRun(store: RunStore, options: FixtureRunOptions): number {
  const samples = options.samples ?? 2;
  const tests = options.tests ?? 3;
  const step = options.step ?? 4;
  const retrieved = options.retrieved ?? 3;
  const sampleIds = Array.from({ length: samples }, (_, i) => `conv-${i + 1}`);
  const seedOf = [...options.runId].reduce((a, c) => a + c.charCodeAt(0), 0);
  store.createRun(
    {
      ...fixtureManifest(options.runId, options.preset, sampleIds),
      ...(options.dataset ? { dataset: options.dataset } : {}),
    },
    sampleIds.map((sampleId) => ({
      sampleId,
      totalPackets: tests * 2,
      totalQuestions: tests * step,
      threshold: step,
      plannedTests: tests,
    })),
  );
  let rows = 0;
  sampleIds.forEach((sampleId, s) => {
    store.markSample(options.runId, sampleId, { status: 'running' });
    for (let t = 0; t < tests; t++) {
      const visible = (t + 1) * step;
      const answers: AnswerRecord[] = Array.from({ length: visible }, (_, q) => {
        const score = ((seedOf * 7 + s * 13 + t * 5 + q * 3) % 11) / 10;
        return {
          sampleId,
          testIndex: t,
          questionIndex: q,
          category: ((q % 5) + 1) as AnswerRecord['category'],
          question: `question ${q} of ${sampleId}?`,
          gold: q % 5 === 4 ? null : `gold ${q}`,
          prediction: `answer ${q} at test ${t} by ${options.runId}`,
          retrieved: Array.from({ length: retrieved }, (_, r) => ({
            id: `m${r}`,
            diaId: `D${t + 1}:${r + 1}`,
            score: 1 / (r + 1),
          })),
          scores: {
            officialF1: Math.min(1, score),
            evidenceRecall: q % 3 === 0 ? null : Math.min(1, score + 0.05),
            setF1: q % 5 === 4 ? null : Math.min(1, score),
            bleu1: q % 5 === 4 ? null : Math.min(1, score / 2),
          },
          retrieveMs: 1,
          answerMs: 2,
          error: null,
          judge: null,
          usage: null,
        };
      });
      store.commitTest(options.runId, {
        sampleId,
        testIndex: t,
        packetIdx: t * 2 + 1,
        dialogsInserted: (t + 1) * 4,
        visibleCount: visible,
        questionIndices: answers.map((a) => a.questionIndex),
        answers,
      });
      rows += answers.length;
    }
    store.markSample(options.runId, sampleId, { status: 'completed', insertErrors: 0 });
  });
  store.finishRun(options.runId, 'completed');
  return rows;
}
