import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Packet } from '../../../src-shared/dataset';
import { RecencyMemory } from '../../../tests/fixtures/experiment/test-presets';
import type { MemoryHit } from '../answer/types';
import type { MemoryServiceContext, RetrieveContext } from '../memory/types';
import { RunStore } from '../runs/store';
import { inlineExecutor } from './executors';
import { startRunBypassingLauncher } from '../launch/testSeam';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const lme = join(repo, 'tests/fixtures/longmemeval/longmemeval_s.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-lme-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Life {
  sampleId: string;
  packets: number[];
  questionDates: Array<string | null>;
  closed: boolean;
}

/** Records what each memory instance saw: its packets, the question dates, its close. */
class WatchedMemory extends RecencyMemory {
  constructor(
    ctx: MemoryServiceContext,
    private readonly life: Life,
  ) {
    super(ctx);
  }
  override async insert(packet: Packet): Promise<void> {
    this.life.packets.push(packet.packet_idx);
    await super.insert(packet);
  }
  override async retrieve(
    question: string,
    topK: number,
    context?: RetrieveContext,
  ): Promise<MemoryHit[]> {
    this.life.questionDates.push(context?.questionDate ?? null);
    return super.retrieve(question, topK);
  }
  override async close(): Promise<void> {
    this.life.closed = true;
    await super.close();
  }
}

function watched(lives: Life[]) {
  return inlineExecutor({
    createMemory: async (ctx) => {
      const life: Life = {
        sampleId: ctx.sample.sampleId,
        packets: [],
        questionDates: [],
        closed: false,
      };
      lives.push(life);
      return new WatchedMemory(ctx, life);
    },
  });
}

describe('a LongMemEval run', () => {
  it('gives each question its own memory, asks it after its haystack with its question date', async () => {
    const store = RunStore.open(join(root, 'runs-1.db'));
    const lives: Life[] = [];
    const handle = await startRunBypassingLauncher(
      { datasetPath: lme, memory: { preset: 'test-recency' } },
      { store, dataDir: join(root, 'd1'), executor: watched(lives) },
    );
    const outcome = await handle.done;
    expect(outcome.status).toBe('completed');
    expect(store.getRun(handle.runId).manifest.dataset.format).toBe('longmemeval');
    // One instance per question, each fed only its own haystack, then dropped.
    expect(lives.map((l) => l.sampleId)).toEqual([
      'e47becba',
      '6a1eabeb',
      'gpt4_59149c77',
      '0a995998_abs',
      '75832dbd',
      '1903aded',
    ]);
    expect(lives.every((l) => l.closed)).toBe(true);
    expect(lives[0]!.packets).toEqual([0, 1, 2, 3, 4]);
    expect(lives[0]!.questionDates).toEqual(['2023-05-30T23:40:00']);
    // Every question once, at its last packet, the abstention one included.
    const final = store.finalAnswers(handle.runId);
    expect(final.map((a) => [a.sampleId, a.testIndex, a.category])).toEqual([
      ['0a995998_abs', 0, 10],
      ['1903aded', 0, 2],
      ['6a1eabeb', 0, 5],
      ['75832dbd', 0, 3],
      ['e47becba', 0, 1],
      ['gpt4_59149c77', 0, 6],
    ]);
    // LongMemEval's recall where a user turn holds the answer; none for abstention, nor where
    // only an assistant turn does (single-session-assistant: the reference skips it).
    const abs = final[0]!;
    expect(abs.scores['lmeTurnRecall']).toBeNull();
    expect(final[1]!.scores['lmeSessionRecall']).toBeNull();
    expect(typeof final[2]!.scores['lmeSessionRecall']).toBe('number');
    expect(typeof final[2]!.scores['lmeTurnNdcg']).toBe('number');
    // Task-averaged beside overall, over the same metrics (LongMemEval reports both).
    const { all, taskAveraged } = outcome.summary.overall;
    expect(Object.keys(taskAveraged ?? {}).sort()).toEqual(Object.keys(all).sort());
    store.close();
  });

  it('with haystackCurvePoints asks each question along its haystack too', async () => {
    const store = RunStore.open(join(root, 'runs-2.db'));
    const lives: Life[] = [];
    const handle = await startRunBypassingLauncher(
      {
        datasetPath: lme,
        samples: ['e47becba'],
        memory: { preset: 'test-recency' },
        haystackCurvePoints: 2,
      },
      { store, dataDir: join(root, 'd2'), executor: watched(lives) },
    );
    await handle.done;
    expect(store.curve(handle.runId).map((p) => [p.testIndex, p.dialogsInserted])).toEqual([
      [0, 6],
      [1, 9],
    ]);
    expect(lives[0]!.questionDates).toEqual(['2023-05-30T23:40:00', '2023-05-30T23:40:00']);
    store.close();
  });
});
