import { beamFixtureTree } from '../../../tests/support/beam-fixture';
import { describe, expect, it } from 'vitest';
import { runCli } from '../main';

const BEAM = beamFixtureTree();

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
  });
  return { code, out, err };
}

describe('cli stats on a BEAM folder', () => {
  it('prints the chats, the abilities and a table per size', async () => {
    const { code, out, err } = await cli('stats', BEAM);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain('(beam, ');
    expect(out).toContain('100K-1  (user & assistant)');
    expect(out).toContain('Questions by category (BEAM paper names)');
    expect(out).toMatch(/ {2}3 event_ordering +3 +10\.0%/);
    expect(out).toContain('Samples and questions by size');
    // Two 100K chats and one 10M chat: one column each, one row per ability.
    expect(out).toMatch(/ {2}samples +2 +1\n/);
    expect(out).toMatch(/ {2}10 temporal_reasoning +2 +1\n/);
    // Questions citing nothing (abstention) are asked at the end by default, not excluded.
    expect(out).toContain('questions without usable evidence 9 (asked at the last packet)');
  });

  it('totals per size in --json', async () => {
    const { out } = await cli('stats', BEAM, '--json');
    const report = JSON.parse(out) as {
      totals: { byGroup: Array<{ group: string; samples: number; qa: number }> };
    };
    expect(report.totals.byGroup.map((g) => [g.group, g.samples, g.qa])).toEqual([
      ['100K', 2, 20],
      ['10M', 1, 10],
    ]);
  });
});
