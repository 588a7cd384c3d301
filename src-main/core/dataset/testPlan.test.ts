import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Sample } from '../../../src-shared/dataset/types';
import { WorkbenchError } from '../../../src-shared/errors';
import { loadDatasetValue } from './load';
import { packetCount, packetsOf } from './packets';
import { planTestTrigger, planTests, testThreshold } from './testPlan';
import { questionVisibility } from './visibility';

const miniPath = fileURLToPath(
  new URL('../../../tests/fixtures/locomo/mini.json', import.meta.url),
);
const [mini1, mini2] = loadDatasetValue(
  JSON.parse(readFileSync(miniPath, 'utf8')) as unknown,
  'mini.json',
).samples as [Sample, Sample];

describe('packetsOf', () => {
  it('pairs consecutive turns within a session, never across sessions', () => {
    const packets = packetsOf(mini1);
    // Sessions 1 (3 turns), 2 (2 turns), 10 (3 turns): odd sessions end with a one-turn packet.
    expect(packets.map((p) => [p.session_id, p.dialogs.map((d) => d.diaId)])).toEqual([
      [1, ['D1:1', 'D1:2']],
      [1, ['D1:3']],
      [2, ['D2:1', 'D2:2']],
      [10, ['D10:1', 'D10:2']],
      [10, ['D10:3']],
    ]);
    expect(packets[1]).toMatchObject({
      task_id: 'mini-1',
      session_id: 1,
      dialog_id: 'D1:3',
      dialog_len: 1,
      packet_idx: 1,
      total_packets: 5,
    });
    expect(packets.every((p) => p.total_packets === 5 && p.dialog_len === p.dialogs.length)).toBe(
      true,
    );
    // Packets carry the model's turns, caption already inlined.
    expect(packets[0]?.dialogs[1]?.text).toBe(
      '[Image: a photo of a dog on a beach] Look at my dog!',
    );
    expect(packetCount(mini1)).toBe(5);
    expect(packetCount(mini2)).toBe(packetsOf(mini2).length);
  });
});

describe('questionVisibility', () => {
  const packets = packetsOf(mini1);

  it('is the packet that completes the normalised evidence', () => {
    // q1's evidence "D2:2; D1:3" spans packets 2 and 1: it needs both, so packet 2.
    // q4 ("D") and q6 ([]) have no usable evidence and are excluded.
    expect(questionVisibility(mini1, packets)).toEqual([0, 2, 4, 3, null, 0, null]);
  });

  it('puts questions without evidence at the last packet when asked to', () => {
    expect(questionVisibility(mini1, packets, { includeNoEvidence: true })).toEqual([
      0, 2, 4, 3, 4, 0, 4,
    ]);
  });

  it('asks only the categories named, whatever their evidence', () => {
    const categories = mini1.qa.map((qa) => qa.category);
    const kept = [...new Set(categories)].slice(0, 2);
    const visibility = questionVisibility(mini1, packets, {
      includeNoEvidence: true,
      questionCategories: kept,
    });
    expect(visibility).toEqual(
      [0, 2, 4, 3, 4, 0, 4].map((at, i) => (kept.includes(categories[i]!) ? at : null)),
    );
    // The fixture has questions of other categories, so some are left out.
    expect(visibility.filter((v) => v === null).length).toBeGreaterThan(0);
    expect(
      planTests(mini1, { includeNoEvidence: true, questionCategories: kept }).totalQuestions,
    ).toBe(categories.filter((c) => kept.includes(c)).length);
  });
});

describe('planTests on a sample', () => {
  it('orders by visibility and fires one test per newly visible question when N < 10', () => {
    const plan = planTests(mini1);
    expect(plan).toEqual({
      threshold: 1,
      totalQuestions: 5,
      // q0 and q5 tie at packet 0: the tie goes to the lower qa index.
      questionOrder: [0, 5, 1, 3, 2],
      visibleAtPacket: [0, 2, 4, 3, null, 0, null],
      tests: [
        {
          testIndex: 0,
          packetIdx: 0,
          dialogsInserted: 2,
          visibleCount: 2,
          questionIndices: [0, 5],
        },
        {
          testIndex: 1,
          packetIdx: 2,
          dialogsInserted: 5,
          visibleCount: 3,
          questionIndices: [0, 5, 1],
        },
        {
          testIndex: 2,
          packetIdx: 3,
          dialogsInserted: 7,
          visibleCount: 4,
          questionIndices: [0, 5, 1, 3],
        },
        {
          testIndex: 3,
          packetIdx: 4,
          dialogsInserted: 8,
          visibleCount: 5,
          questionIndices: [0, 5, 1, 3, 2],
        },
      ],
      completionPacketIdx: 4,
    });
  });

  it('counts and asks no-evidence questions only when included', () => {
    const plan = planTests(mini1, { includeNoEvidence: true });
    expect(plan.totalQuestions).toBe(7);
    expect(plan.questionOrder).toEqual([0, 5, 1, 3, 2, 4, 6]);
    expect(plan.tests.at(-1)).toMatchObject({ packetIdx: 4, visibleCount: 7 });
  });
});

describe('planTestTrigger', () => {
  const sizes = (n: number): number[] => Array.from({ length: n }, () => 2);
  const fired = (plan: ReturnType<typeof planTestTrigger>): Array<[number, number]> =>
    plan.tests.map((t) => [t.packetIdx, t.visibleCount]);

  it('uses max(1, floor(N / 10)) as the threshold', () => {
    expect([0, 1, 9, 10, 19, 20, 199, 260].map(testThreshold)).toEqual([1, 1, 1, 1, 1, 2, 19, 26]);
  });

  it('fires once when a single packet crosses several thresholds', () => {
    // 25 questions -> threshold 2. Packet 1 makes 7 visible at once (3.5 thresholds): one test.
    const visible = [0, ...Array<number>(6).fill(1), ...Array<number>(18).fill(3)];
    const plan = planTestTrigger(visible, sizes(5));
    expect(plan.threshold).toBe(2);
    expect(fired(plan)).toEqual([
      [1, 7],
      [3, 25],
      // The last packet (4) is always tested.
      [4, 25],
    ]);
    expect(plan.tests[0]?.questionIndices).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('tests at the last packet when something visible is still untested', () => {
    // 20 questions -> threshold 2; the last packet adds one question, below the threshold.
    const visible = [...Array<number>(19).fill(0), 2];
    expect(fired(planTestTrigger(visible, sizes(3)))).toEqual([
      [0, 19],
      [2, 20],
    ]);
  });

  it('tests after the last packet even when it brings nothing new (issue 12 item 5)', () => {
    const visible = Array<number>(20).fill(0);
    const plan = planTestTrigger(visible, sizes(3));
    // Every question's final answer is asked of the whole conversation, not of packet 0's.
    expect(fired(plan)).toEqual([
      [0, 20],
      [2, 20],
    ]);
    expect(plan.completionPacketIdx).toBe(2);
  });

  it('ingest-all: one test after the last packet, every question once', () => {
    const visible = [...Array.from({ length: 30 }, (_, q) => q % 31), null];
    const plan = planTestTrigger(visible, sizes(31), 'ingest-all');
    expect(fired(plan)).toEqual([[30, 30]]);
    expect(plan.tests[0]?.questionIndices).toEqual(plan.questionOrder);
    expect(plan.tests[0]?.dialogsInserted).toBe(62);
    expect(planTestTrigger([null], sizes(2), 'ingest-all').tests).toEqual([]);
  });

  it('waits for the threshold between tests', () => {
    // 30 questions -> threshold 3; one becomes visible per packet.
    const visible = Array.from({ length: 30 }, (_, q) => q);
    const plan = planTestTrigger(visible, sizes(31));
    expect(fired(plan).map(([, v]) => v)).toEqual([3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 30]);
    expect(plan.tests[0]).toMatchObject({ packetIdx: 2, dialogsInserted: 6 });
    // Packet 30 adds nothing, and is still tested: the final answers see every turn.
    expect(plan.tests.at(-2)?.packetIdx).toBe(29);
    expect(plan.tests.at(-1)).toMatchObject({ packetIdx: 30, visibleCount: 30 });
    expect(plan.completionPacketIdx).toBe(30);
  });

  it('excludes null entries from N and from every test', () => {
    const plan = planTestTrigger([null, 1, null, 0], sizes(2));
    expect(plan.totalQuestions).toBe(2);
    expect(plan.questionOrder).toEqual([3, 1]);
    expect(fired(plan)).toEqual([
      [0, 1],
      [1, 2],
    ]);
  });

  it('plans nothing without questions or packets', () => {
    expect(planTestTrigger([null, null], sizes(3))).toMatchObject({
      threshold: 1,
      totalQuestions: 0,
      tests: [],
      completionPacketIdx: 2,
    });
    expect(planTestTrigger([], [])).toMatchObject({ tests: [], completionPacketIdx: null });
  });

  it('refuses a visibility that points past the last packet', () => {
    expect(() => planTestTrigger([3], sizes(3))).toThrow(WorkbenchError);
    expect(() => planTestTrigger([3], sizes(3))).toThrow(
      'test plan: question 0 is visible at packet 3, but there are 3 packets',
    );
  });

  it('keeps its invariants on random inputs (property)', () => {
    const input = fc.integer({ min: 1, max: 40 }).chain((packets) =>
      fc.record({
        sizes: fc.array(fc.integer({ min: 1, max: 2 }), { minLength: packets, maxLength: packets }),
        visible: fc.array(fc.option(fc.integer({ min: 0, max: packets - 1 }), { nil: null }), {
          maxLength: 120,
        }),
      }),
    );
    fc.assert(
      fc.property(input, ({ sizes: packetSizes, visible }) => {
        const plan = planTestTrigger(visible, packetSizes);
        const n = visible.filter((v) => v !== null).length;
        expect(plan.totalQuestions).toBe(n);
        let last = 0;
        for (const [i, test] of plan.tests.entries()) {
          const isFinal = test.packetIdx === packetSizes.length - 1;
          // Every test but a final one waits for a full threshold of new questions.
          if (!isFinal) expect(test.visibleCount - last).toBeGreaterThanOrEqual(plan.threshold);
          // Only the final test may re-ask without anything new.
          if (!isFinal) expect(test.visibleCount).toBeGreaterThan(last);
          expect(test.testIndex).toBe(i);
          expect(test.questionIndices).toEqual(plan.questionOrder.slice(0, test.visibleCount));
          // Nothing is asked before its evidence has been inserted.
          for (const q of test.questionIndices) {
            expect(visible[q] as number).toBeLessThanOrEqual(test.packetIdx);
          }
          last = test.visibleCount;
        }
        // The final test always covers every participating question, after the last packet.
        expect(last).toBe(n);
        if (n > 0) expect(plan.tests.at(-1)?.packetIdx).toBe(packetSizes.length - 1);
      }),
    );
  });
});
