import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../main';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const lme = join(repo, 'tests/fixtures/longmemeval/longmemeval_s.json');

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
  });
  return { code, out, err };
}

describe('cli retrieve', () => {
  it('--json prints one result per question with evidence, turn ids best first', async () => {
    const { code, out, err } = await cli('retrieve', '--data', mini, '--k', '3', '--json');
    expect(err).toBe('');
    expect(code).toBe(0);
    const parsed = JSON.parse(out) as {
      results: Array<{ sampleId: string; questionIndex: number; retrieved: string[] }>;
    };
    expect(Object.keys(parsed)).toEqual(['results']);
    // mini-1 has 7 questions; #4 ("D") and #6 have no usable evidence. mini-2 has one.
    expect(parsed.results.map((r) => `${r.sampleId}#${r.questionIndex}`)).toEqual([
      'mini-1#0',
      'mini-1#1',
      'mini-1#2',
      'mini-1#3',
      'mini-1#5',
      'mini-2#0',
    ]);
    for (const r of parsed.results) {
      expect(Object.keys(r)).toEqual(['sampleId', 'questionIndex', 'retrieved']);
      expect(r.retrieved.length).toBeLessThanOrEqual(3);
      for (const id of r.retrieved) expect(id).toMatch(/^D\d+:\d+$/);
    }
    // "Where did Ann move?": the only turn about moving is D1:1.
    expect(parsed.results[0]?.retrieved[0]).toBe('D1:1');
  });

  it('prints a recall@k report by category and sample', async () => {
    const { code, out } = await cli(
      'retrieve',
      '--data',
      mini,
      '--preset',
      'text',
      '--samples',
      'mini-1',
    );
    expect(code).toBe(0);
    expect(out).toMatch(
      /^Evidence recall, preset text, 1 samples, 8 turns, 5 questions with evidence/,
    );
    expect(out).toMatch(/R@1 +R@5 +R@10/);
    expect(out).toContain('by category (official LoCoMo names)');
    expect(out).toMatch(/ {2}mini-1 +5 /);
  });

  it('rejects an unknown preset, a bad k and an unknown sample with clear messages', async () => {
    const preset = await cli('retrieve', '--data', mini, '--preset', 'nope');
    expect(preset.code).toBe(2);
    expect(preset.err).toMatch(/^error: --preset: unknown preset "nope" \(presets: .*hybrid/);
    const k = await cli('retrieve', '--data', mini, '--k', '0');
    expect(k.code).toBe(2);
    expect(k.err).toContain('--k must be an integer from 1 to 1000 (got "0")');
    const sample = await cli('retrieve', '--data', mini, '--samples', 'mini-9');
    expect(sample.code).toBe(1);
    expect(sample.err).toContain(
      'retrieve: no sample "mini-9" in the dataset (samples: mini-1, mini-2)',
    );
    const none = await cli('retrieve');
    expect(none.code).toBe(2);
    expect(none.err).toContain('retrieve needs --data <file>');
  });

  it("names a LongMemEval dataset's categories by its question types, columns aligned", async () => {
    const { code, out, err } = await cli('retrieve', '--data', lme, '--k', '3', '--scheme', 'mem0');
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain('by category (LongMemEval paper names)');
    const lines = out.split('\n');
    const typeLine = lines.find((l) => l.startsWith('  3 single-session-preference'));
    expect(typeLine).toMatch(/^ {2}3 single-session-preference +1 +\d\.\d{3} +\d\.\d{3}$/);
    expect(out).not.toMatch(/multi-hop|open-domain|Mem0 paper/);
    // Every table row ends in the same column as the header.
    const header = lines.find((l) => l.trimStart().startsWith('n '));
    expect(typeLine?.length).toBe(header?.length);
  });
});
