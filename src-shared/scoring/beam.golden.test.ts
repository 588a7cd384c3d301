/**
 * Parity with BEAM's own scoring code (b2a3ee8) and json_repair 0.44.1, from
 * tests/fixtures/golden/beam.json (scripts/golden/generate-beam.py): Kendall tau-b against
 * scipy's kendalltau(variant="b") on tied ranks, `event_ordering_score` over an LLM alignment,
 * the judge reply reader, and `report_llms_accuracies`' row. Floats compared exactly.
 */
import { describe, expect, it } from 'vitest';
import golden from '../../tests/fixtures/golden/beam.json';
import { BeamReplyUnread, readBeamReply } from './beam-json';
import {
  alignWithLlm,
  beamReportRow,
  eventOrderingScore,
  kendallTauB,
  type BeamQuestionScore,
} from './beam';

const ABILITIES = golden.report.columns.slice(1);
const nanAsNull = (value: number): number | null => (Number.isNaN(value) ? null : value);

describe('golden: BEAM Kendall tau-b', () => {
  it('equals scipy kendalltau(variant="b") on every case, ties and constant sides included', () => {
    const cases = golden.tau as { x: number[]; y: number[]; tau: number | null }[];
    expect(cases.some((c) => c.tau === null)).toBe(true);
    expect(cases.some((c) => new Set(c.x).size < c.x.length && c.tau !== null)).toBe(true);
    for (const c of cases) {
      expect(nanAsNull(kendallTauB(c.x, c.y)), JSON.stringify(c)).toBe(c.tau);
    }
  });
});

describe('golden: BEAM event_ordering_score', () => {
  it('aligns, counts and ranks as the reference does (duplicates, blanks, unmatched lines)', async () => {
    for (const c of golden.ordering) {
      // The generator's stand-in judge: YES when the line is the item itself.
      const system = await alignWithLlm(c.reference, c.system, (r, s) =>
        Promise.resolve(r.split(' ')[0] === s),
      );
      const score = eventOrderingScore(c.reference, system);
      const got = Object.fromEntries(Object.entries(score).map(([k, v]) => [k, nanAsNull(v)]));
      expect(got, JSON.stringify(c)).toEqual(c.score);
    }
  });
});

describe('golden: BEAM judge reply reader', () => {
  // json_repair cases the workbench refuses rather than reproduce (see beam-json.ts).
  const NOT_REPRODUCED = [
    "{'score': 1.0, 'reason': 'single quotes'}",
    '{score: 1.0}',
    '{"score": .5}',
  ];

  it('reads every reply as parse_json_response, then json.loads(repair_json(...)), do', () => {
    const refused: string[] = [];
    for (const c of golden.repair as { reply: string; value?: unknown }[]) {
      let got: unknown;
      try {
        got = readBeamReply(c.reply);
      } catch (error) {
        expect(error, c.reply).toBeInstanceOf(BeamReplyUnread);
        const problem = (error as BeamReplyUnread).problem;
        if (problem === 'repair-not-reproduced') refused.push(c.reply);
        // repair_json's "" for a reply without JSON: the reference's `""['score']` raises.
        else expect(c.value, c.reply).toBe('');
        continue;
      }
      expect(got, c.reply).toEqual(c.value);
    }
    // Every other case is read as the reference reads it.
    expect(refused).toEqual(NOT_REPRODUCED);
  });
});

describe('golden: BEAM report_results.py', () => {
  it('per chat the mean over its questions, then the mean over chats, tau_norm for event ordering', () => {
    const chats = golden.report.chats.map(
      (chat) =>
        new Map(Object.entries(chat as Record<string, BeamQuestionScore[]>)) as ReadonlyMap<
          string,
          readonly BeamQuestionScore[]
        >,
    );
    expect(beamReportRow(ABILITIES, chats)).toEqual(golden.report.row);
  });
});
