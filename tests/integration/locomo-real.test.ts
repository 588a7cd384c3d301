import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LOCOMO_PROFILE } from '../../src-shared/benchmarks';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DatasetStats } from '../../src-shared/dataset/stats';
import type { DatasetLoadResult } from '../../src-shared/dataset/types';
import { datasetStats, loadDatasetFile, planTests } from '../../src-main/core/dataset/index';

/**
 * Checks against the real LoCoMo release. The file is CC BY-NC and is never committed: it lives
 * beside the repo (../shared/datasets/locomo10.json). Without it these tests are skipped, while
 * the fixture-based unit tests always run.
 */
const file = fileURLToPath(new URL('../../../shared/datasets/locomo10.json', import.meta.url));
const exists = existsSync(file);
const SKIP_REASON = `real dataset not found at ${file}`;

// Per sample: [sessions, turns, packets, plannedTests].
const EXPECTED: Record<string, [number, number, number, number]> = {
  'conv-26': [19, 419, 214, 11],
  'conv-30': [19, 369, 188, 10],
  'conv-41': [32, 663, 340, 10],
  'conv-42': [29, 629, 323, 10],
  'conv-43': [29, 680, 349, 10],
  'conv-44': [28, 675, 343, 10],
  'conv-47': [31, 689, 355, 10],
  'conv-48': [30, 681, 347, 11],
  'conv-49': [25, 509, 260, 10],
  'conv-50': [30, 568, 292, 10],
};

interface RawTurn {
  dia_id: string;
}
interface RawSample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Array<{ evidence: string[] }>;
}

/**
 * An independent, deliberately naive recount from the raw JSON: sessions by key, packets as
 * ceil(turns / 2), and the test plan by direct simulation with a regex that pulls every
 * `D<s>:<t>`-like id out of the evidence strings.
 */
function recount(raw: RawSample): [number, number, number, number] {
  const sessionKeys = Object.keys(raw.conversation)
    .filter((k) => /^session_\d+$/.test(k))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
  const packetOf = new Map<string, number>();
  let turns = 0;
  let packets = 0;
  for (const key of sessionKeys) {
    const list = raw.conversation[key] as RawTurn[];
    list.forEach((t, i) => packetOf.set(t.dia_id, packets + Math.floor(i / 2)));
    turns += list.length;
    packets += Math.ceil(list.length / 2);
  }
  const visibleAt: number[] = [];
  for (const qa of raw.qa) {
    const ids = [...qa.evidence.join(' ').matchAll(/D:?(\d+):(\d+)/g)].map(
      (m) => `D${Number(m[1])}:${Number(m[2])}`,
    );
    const at = ids.map((id) => packetOf.get(id)).filter((p): p is number => p !== undefined);
    if (at.length > 0) visibleAt.push(Math.max(...at));
  }
  const threshold = Math.max(1, Math.floor(visibleAt.length / 10));
  let tests = 0;
  let tested = 0;
  for (let p = 0; p < packets; p++) {
    const visible = visibleAt.filter((v) => v <= p).length;
    // The last packet is always tested (issue 12 item 5).
    if (visible - tested >= threshold || (p === packets - 1 && visible > 0)) {
      tests++;
      tested = visible;
    }
  }
  return [sessionKeys.length, turns, packets, tests];
}

describe('LoCoMo locomo10.json', () => {
  let result: DatasetLoadResult;
  let stats: DatasetStats;
  let raw: RawSample[];

  beforeAll(async () => {
    if (!exists) return;
    result = await loadDatasetFile(file);
    stats = datasetStats(result.samples, {}, LOCOMO_PROFILE);
    raw = JSON.parse(readFileSync(file, 'utf8')) as RawSample[];
  });

  it.skipIf(!exists)(`loads cleanly (${exists ? 'file present' : SKIP_REASON})`, () => {
    expect(result.problems).toEqual([]);
    expect(result.info.sha256).toBe(
      '79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4',
    );
  });

  it.skipIf(!exists)('matches the published totals (DESIGN.md §4)', () => {
    expect(stats.totals).toMatchObject({
      samples: 10,
      turns: 5882,
      imageTurns: 1226,
      qa: 1986,
      byCategory: { 1: 282, 2: 321, 3: 96, 4: 841, 5: 446 },
    });
    const cat5 = result.samples.flatMap((s) => s.qa).filter((q) => q.category === 5);
    expect(cat5.filter((q) => q.answer === null && q.adversarialAnswer !== null)).toHaveLength(444);
  });

  it.skipIf(!exists)(
    'has the expected sessions, turns, packets and planned tests per sample',
    () => {
      const got = Object.fromEntries(
        stats.samples.map((s) => [s.sampleId, [s.sessions, s.turns, s.packets, s.plannedTests]]),
      );
      expect(got).toEqual(EXPECTED);
      // And an independent recount from the raw JSON agrees.
      expect(Object.fromEntries(raw.map((s) => [s.sample_id, recount(s)]))).toEqual(EXPECTED);
    },
  );

  it.skipIf(!exists)('orders sessions numerically and ignores date-only keys', () => {
    const conv26 = result.samples.find((s) => s.sampleId === 'conv-26');
    // conv-26 has session_<n>_date_time up to 35 but sessions only up to 19.
    expect(conv26?.sessions.map((s) => s.index)).toEqual(
      Array.from({ length: 19 }, (_, i) => i + 1),
    );
    expect(conv26?.sessions[0]).toMatchObject({
      dateTimeText: '1:56 pm on 8 May, 2023',
      dateTime: '2023-05-08T13:56:00',
    });
    expect(result.samples.every((s) => s.sessions.every((x) => x.dateTime !== null))).toBe(true);
  });

  it.skipIf(!exists)('repairs and reports the known evidence oddities', () => {
    const details = stats.evidence.details.map((d) => ({
      sampleId: d.sampleId,
      raw: d.raw,
      problem: d.problem,
      repairedTo: d.repairedTo,
    }));
    expect(details).toEqual(
      expect.arrayContaining([
        { sampleId: 'conv-26', raw: 'D8:6; D9:17', problem: 'split', repairedTo: 'D8:6' },
        { sampleId: 'conv-26', raw: 'D8:6; D9:17', problem: 'split', repairedTo: 'D9:17' },
        { sampleId: 'conv-42', raw: 'D', problem: 'malformed', repairedTo: undefined },
        { sampleId: 'conv-42', raw: 'D10:19', problem: 'unresolved', repairedTo: undefined },
        { sampleId: 'conv-43', raw: 'D:11:26', problem: 'misplaced-colon', repairedTo: 'D11:26' },
        { sampleId: 'conv-47', raw: 'D4:36', problem: 'unresolved', repairedTo: undefined },
        { sampleId: 'conv-49', raw: 'D9:1 D4:4 D4:6', problem: 'split', repairedTo: 'D4:6' },
        { sampleId: 'conv-50', raw: 'D30:05', problem: 'zero-padded', repairedTo: 'D30:5' },
      ]),
    );
    expect(stats.evidence).toMatchObject({ unresolved: 3, questionsWithoutEvidence: 4 });
  });

  it.skipIf(!exists)('never asks a question before its evidence is in', () => {
    for (const sample of result.samples) {
      const plan = planTests(sample);
      const last = plan.tests.at(-1);
      expect(last?.visibleCount).toBe(plan.totalQuestions);
      for (const test of plan.tests) {
        for (const q of test.questionIndices) {
          expect(plan.visibleAtPacket[q]).toBeLessThanOrEqual(test.packetIdx);
        }
      }
    }
  });
});
