import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RecencyMemory } from '../../../tests/fixtures/experiment/test-presets';
import type { MemoryHit } from '../answer/types';
import { loadDatasetFile } from '../dataset/load';
import { inlineExecutor } from '../pipeline/executors';
import { startRunBypassingLauncher } from '../launch/testSeam';
import { buildRunExport } from './export';
import { RunStore } from './store';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-export-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * A memory whose every hit cites the conversation's opening turn beside its own (as an external
 * service's summary cites several turns).
 */
class TwoTurnMemory extends RecencyMemory {
  private readonly seen: string[] = [];
  override async insert(...args: Parameters<RecencyMemory['insert']>): Promise<void> {
    for (const t of args[0].dialogs) this.seen.push(t.diaId);
    await super.insert(...args);
  }
  override async retrieve(question: string, topK: number): Promise<MemoryHit[]> {
    const hits = await super.retrieve(question, topK);
    return hits.map((h) => {
      const opening = this.seen[0] as string;
      return opening === h.diaId ? h : { ...h, diaIds: [h.diaId as string, opening] };
    });
  }
}

describe('export --format json', () => {
  it("lists every turn each retrieved memory cites, so evidence recall recomputes to the run's", async () => {
    const store = RunStore.open(join(root, 'runs.db'));
    const handle = await startRunBypassingLauncher(
      { datasetPath: mini, memory: { preset: 'test-recency' }, retrieval: { topK: 2 } },
      {
        store,
        dataDir: join(root, 'data'),
        executor: inlineExecutor({ createMemory: async (ctx) => new TwoTurnMemory(ctx) }),
      },
    );
    expect((await handle.done).status).toBe('completed');
    const exported = buildRunExport(store, handle.runId);
    const dataset = await loadDatasetFile(mini);
    const evidenceOf = new Map(
      dataset.samples.flatMap((s) => s.qa.map((q) => [`${s.sampleId}/${q.index}`, q.evidence])),
    );
    let compared = 0;
    let secondCited = 0;
    for (const a of [...exported.answers, ...exported.testAnswers]) {
      const evidence = new Set(evidenceOf.get(`${a.sampleId}/${a.questionIndex}`) ?? []);
      if (evidence.size === 0) continue;
      // An independent recomputation: the share of the evidence among the cited turns.
      const cited = new Set(a.retrievedTurnIds);
      const recomputed = [...evidence].filter((id) => cited.has(id)).length / evidence.size;
      expect(recomputed, `${a.sampleId}/${a.questionIndex}`).toBeCloseTo(
        a['evidenceRecall'] as number,
        12,
      );
      compared++;
      // The second cited turn counts: the first ids alone (`retrieved`) would miss it.
      const first = new Set(a.retrieved);
      if ([...evidence].some((id) => cited.has(id) && !first.has(id))) secondCited++;
    }
    expect(compared).toBeGreaterThan(0);
    expect(secondCited).toBeGreaterThan(0);
    store.close();
  });
});

describe('export --format json: the ranking past the top-k', () => {
  it('carries the ranking LongMemEval retrieval was scored on, and nothing on LoCoMo', async () => {
    const store = RunStore.open(join(root, 'ranking.db'));
    const run = async (datasetPath: string) => {
      const handle = await startRunBypassingLauncher(
        { datasetPath, memory: { preset: 'test-recency' }, retrieval: { topK: 2 } },
        {
          store,
          dataDir: join(root, 'ranking-data'),
          executor: inlineExecutor({ createMemory: async (ctx) => new RecencyMemory(ctx) }),
        },
      );
      expect((await handle.done).status).toBe('completed');
      return buildRunExport(store, handle.runId);
    };
    const lme = await run(join(repo, 'tests/fixtures/longmemeval/retrieval.json'));
    const scored = lme.answers.filter((a) => typeof a['lmeTurnRecall'] === 'number');
    expect(scored.length).toBeGreaterThan(0);
    for (const a of scored) {
      // Read past the top-k: at least as deep as what the answerer saw.
      expect(a.scoringTurnIds, `${a.sampleId}`).not.toBeNull();
      expect(a.scoringTurnIds!.length).toBeGreaterThanOrEqual(a.retrievedTurnIds.length);
      expect(typeof a.scoringDepthReached).toBe('boolean');
    }
    const locomo = await run(mini);
    expect(locomo.answers.every((a) => a.scoringTurnIds === null)).toBe(true);
    expect(locomo.answers.every((a) => a.scoringDepthReached === null)).toBe(true);
    store.close();
  });
});
