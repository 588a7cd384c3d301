import type {
  PlannedTest,
  ProtocolMode,
  TestPlan,
  TestPlanOptions,
} from '../../../src-shared/dataset/packets';
import type { Sample } from '../../../src-shared/dataset/types';
import { WorkbenchError } from '../../../src-shared/errors';
import { packetsOf } from './packets';
import { questionVisibility } from './visibility';

/** DESIGN §3: test every time another tenth of the questions has become visible. */
export function testThreshold(totalQuestions: number): number {
  return Math.max(1, Math.floor(totalQuestions / 10));
}

/**
 * The test trigger as a pure function of numbers, so it can be checked on hand-made inputs.
 *
 * - `visibleAtPacket[q]`: the packet at which question q becomes visible, or null if excluded.
 * - `packetSizes[p]`: turns in packet p.
 *
 * After each packet, v = questions visible so far. A test fires when v - lastTested >= threshold
 * (one packet crossing several thresholds fires once and covers them all), and always at the last
 * packet (when there is a question), so every question's final answer is asked of the whole
 * conversation whatever the counts. A test covers the first v questions in visibility order: the
 * same questions are re-asked as the conversation grows, which gives the curve. In `ingest-all`
 * mode the last packet's test is the only one.
 */
export function planTestTrigger(
  visibleAtPacket: ReadonlyArray<number | null>,
  packetSizes: readonly number[],
  mode: ProtocolMode = 'stream',
): TestPlan {
  const totalPackets = packetSizes.length;
  const order: number[] = [];
  visibleAtPacket.forEach((at, q) => {
    if (at === null) return;
    if (!Number.isInteger(at) || at < 0 || at >= totalPackets) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `test plan: question ${q} is visible at packet ${at}, but there are ${totalPackets} packets`,
      );
    }
    order.push(q);
  });
  // Stable sort by packet; ties keep qa order because `order` was built in qa order.
  order.sort((a, b) => (visibleAtPacket[a] as number) - (visibleAtPacket[b] as number));

  const threshold = testThreshold(order.length);
  const tests: PlannedTest[] = [];
  let inserted = 0;
  let visible = 0;
  let lastTested = 0;
  for (let p = 0; p < totalPackets; p++) {
    inserted += packetSizes[p] as number;
    while (visible < order.length && visibleAtPacket[order[visible] as number] === p) visible++;
    const isLast = p === totalPackets - 1;
    const due = mode === 'stream' && visible - lastTested >= threshold;
    if (due || (isLast && visible > 0)) {
      tests.push({
        testIndex: tests.length,
        packetIdx: p,
        dialogsInserted: inserted,
        visibleCount: visible,
        questionIndices: order.slice(0, visible),
      });
      lastTested = visible;
    }
  }
  return {
    threshold,
    totalQuestions: order.length,
    questionOrder: order,
    visibleAtPacket: [...visibleAtPacket],
    tests,
    completionPacketIdx: totalPackets > 0 ? totalPackets - 1 : null,
  };
}

/**
 * A haystack benchmark's plan (LongMemEval): every question is asked once the whole haystack is
 * in, whatever its evidence. With `haystackCurvePoints` n > 1 the questions are also asked after
 * each n-th of the packets, the curve of accuracy as its haystack grows.
 */
export function planHaystackTests(
  questionIndices: readonly number[],
  packetSizes: readonly number[],
  curvePoints = 1,
): TestPlan {
  const totalPackets = packetSizes.length;
  const last = totalPackets > 0 ? totalPackets - 1 : null;
  const order = [...questionIndices];
  const tests: PlannedTest[] = [];
  if (last !== null && order.length > 0) {
    const points = Math.max(1, Math.floor(curvePoints));
    const at = new Set<number>();
    for (let k = 1; k <= points; k++) at.add(Math.ceil((k * totalPackets) / points) - 1);
    let inserted = 0;
    for (let p = 0; p < totalPackets; p++) {
      inserted += packetSizes[p] as number;
      if (!at.has(p)) continue;
      tests.push({
        testIndex: tests.length,
        packetIdx: p,
        dialogsInserted: inserted,
        visibleCount: order.length,
        questionIndices: [...order],
      });
    }
  }
  const visibleAtPacket: Array<number | null> = [];
  for (const q of order) visibleAtPacket[q] = last;
  return {
    threshold: testThreshold(order.length),
    totalQuestions: last === null ? 0 : order.length,
    questionOrder: last === null ? [] : order,
    visibleAtPacket: Array.from(visibleAtPacket, (v) => v ?? null),
    tests,
    completionPacketIdx: last,
  };
}

/** The tests a run over this sample will perform. */
export function planTests(sample: Sample, options: TestPlanOptions = {}): TestPlan {
  const packets = packetsOf(sample);
  if (sample.askAfter === 'haystack') {
    return planHaystackTests(
      sample.qa.map((q) => q.index),
      packets.map((p) => p.dialog_len),
      options.haystackCurvePoints,
    );
  }
  return planTestTrigger(
    questionVisibility(sample, packets, options),
    packets.map((p) => p.dialog_len),
    options.mode,
  );
}
