import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../main';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-sweep-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
  });
  return { code, out, err };
}

function spec(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('cli sweep', () => {
  it('plans a grid: one row per cell, the LLM calls and the estimated cost', async () => {
    const file = spec(
      'plan.yaml',
      [
        'name: plan',
        `base:`,
        `  datasetPath: ${JSON.stringify(mini)}`,
        // Keeps the arithmetic below: the questions without usable evidence are left out.
        '  includeNoEvidence: false',
        '  answerer: { kind: llm, baseUrl: "http://127.0.0.1:9/v1", model: m, prices: { inputPerMillion: 1, outputPerMillion: 4 } }',
        'axes:',
        '  retrieval.topK: [5, 10]',
        'repeats: 2',
        '',
      ].join('\n'),
    );
    const { code, out } = await cli('sweep', 'plan', file);
    expect(code).toBe(0);
    expect(out).toMatch(
      /^sweep plan-[0-9a-f]{10}: 4 cells \(retrieval\.topK = \[5, 10\]; repeats 2\)/,
    );
    expect(out).toContain('retrieval.topK=10 #1');
    // mini.json: 15 answers per cell (5 tests re-asking the visible questions), all LLM calls.
    expect(out).toMatch(/total \(4 cells\) +8 +20 +60 +60 +0 +\$0\.\d+/);
    expect(out).toMatch(/LLM calls: 60 answer \+ 0 judge/);
    const json = await cli('sweep', 'plan', file, '--json');
    expect(JSON.parse(json.out)).toMatchObject({ name: 'plan', totals: { answerCalls: 60 } });
  });

  it('refuses a bad cell before anything runs, naming the cell and the field', async () => {
    const file = spec(
      'bad.yaml',
      `name: bad\nbase: { datasetPath: ${JSON.stringify(mini)} }\naxes:\n  retrieval.topK: [5, 0]\n`,
    );
    const { code, err } = await cli('sweep', 'run', file, '--runs-db', join(dir, 'runs.db'));
    expect(code).toBe(1);
    expect(err).toMatch(
      /^error INVALID_INPUT: sweep spec .*bad\.yaml: cell retrieval\.topK=0 #0: retrieval\.topK: /,
    );
  });

  it('plan refuses a memory config its run would refuse (a designed preset without a design)', async () => {
    const file = spec(
      'designed.yaml',
      `name: designed\nbase:\n  datasetPath: ${JSON.stringify(mini)}\n  memory: { preset: designed, config: { indexes: [] } }\n`,
    );
    const { code, err } = await cli('sweep', 'plan', file);
    expect(code).toBe(1);
    expect(err).toMatch(
      /^error INVALID_INPUT: sweep spec .*designed\.yaml: cell #0: memory\.config\.name: /,
    );
  });

  it('names an unnamed cell by its sweep and grid point in runs show, compare and the HTML report', async () => {
    const db = join(dir, 'named.db');
    const file = spec(
      'named.yaml',
      `name: named\nbase: { datasetPath: ${JSON.stringify(mini)}, samples: [mini-1] }\naxes:\n  memory.preset: [hybrid, text]\n`,
    );
    const ran = await cli('sweep', 'run', file, '--runs-db', db);
    expect(ran.code, ran.err).toBe(0);
    const [hybrid, text] = ran.out
      .split('\n')
      .filter((l) => l.includes('\tcompleted\t'))
      .map((l) => l.split('\t')[2] ?? '');
    expect(text).toBeDefined();
    // The Runs list's name (runName), not the stored '' nor "preset · id".
    const show = await cli('runs', 'show', hybrid!, '--runs-db', db);
    expect(show.out).toContain('\nname named · memory.preset=hybrid\n');
    // Compare names each run as a named run is named: without its id tacked on.
    const compared = await cli('compare', hybrid!, text!, '--runs-db', db);
    expect(compared.code, compared.err).toBe(0);
    expect(compared.out).toContain(
      '\nflips named · memory.preset=text vs named · memory.preset=hybrid:',
    );
    const out = join(dir, 'named.html');
    const report = await cli('report', text!, '--html', '--out', out, '--runs-db', db);
    expect(report.code, report.err).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain(
      `<title>named · memory.preset=text (${text})</title>`,
    );
  });

  it('says what it needs on a usage mistake', async () => {
    const { code, err } = await cli('sweep', 'frob', 'x.yaml');
    expect(code).toBe(2);
    expect(err).toContain('sweep needs "plan" or "run" (got "frob")');
  });
});
