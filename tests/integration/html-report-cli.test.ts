import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runColor } from '../../src-shared/runPalette';
import { REPO, runCli } from '../support/cli';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * `cli report <run> --html --out <file>`: one self-contained file to share. The run's answers come
 * from a fake OpenAI-compatible server on 127.0.0.1 whose every reply is hostile markup, and the
 * run's name tries to close a script: both must arrive as text, never as markup.
 */
const HOSTILE = '<img src=x onerror=alert(1)>';
const NAME = 'mine</script><script>alert(2)</script>';
const dir = mkdtempSync(join(tmpdir(), 'workbench-html-report-'));
const mini = join(REPO, 'tests/fixtures/locomo/mini.json');
const db = join(dir, 'runs.db');
const env = { MEMORY_WORKBENCH_DATA: join(dir, 'data'), MW_TEST_HTML_API_KEY: 'sk-test-html' };

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer({ chat: () => HOSTILE });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('cli report --html', () => {
  it('writes one offline HTML file with the headline, escaping every string from the run', async () => {
    const run = await runCli(
      [
        'experiment',
        ...['--data', mini, '--samples', 'mini-1', '--answerer', 'llm', '--model', 'fake-chat'],
        ...['--base-url', server.url, '--api-key-env', 'MW_TEST_HTML_API_KEY', '--name', NAME],
        ...['--runs-db', db, '--json', '--no-preflight'],
      ],
      env,
    );
    expect(run.code, run.err).toBe(0);
    const runId = (JSON.parse(run.out) as { runId: string }).runId;
    const out = join(dir, 'report.html');
    const report = await runCli(['report', runId, '--html', '--out', out, '--runs-db', db], env);
    expect(report.code, report.err).toBe(0);
    expect(report.err).toContain(`wrote ${out}`);

    const html = readFileSync(out, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain(
      `<title>mine&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt; (${runId})</title>`,
    );
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain(HOSTILE);
    expect(html).not.toContain('</script>');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?\s*https?:/i);
    for (const section of ['Headline', 'Per category', 'Curve', 'Manifest'])
      expect(html).toContain(`aria-label="${section}"`);
    expect(html).toMatch(/95% CI \d\.\d{3}–\d\.\d{3}/);
    expect(html).toContain('<svg role="img"');

    // A second run answered from memory: compared with the first, the extractive answers flip.
    const other = await runCli(
      ['experiment', '--data', mini, '--samples', 'mini-1', '--runs-db', db, '--json'],
      env,
    );
    expect(other.code, other.err).toBe(0);
    const otherId = (JSON.parse(other.out) as { runId: string }).runId;
    const compared = await runCli(['report', runId, otherId, '--html', '--runs-db', db], env);
    expect(compared.code, compared.err).toBe(0);
    const page = compared.out;
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).toMatch(new RegExp(`<title>Comparison: [^<]*${runId} vs [^<]*${otherId}</title>`));
    expect(page).toMatch(/<h2>Flips \([1-9]\d*\)<\/h2>/);
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).toMatch(/<b>improved<\/b>/);
    expect(page).toMatch(/Δ [+-]\d\.\d{3}, 95% CI \[/);
    // Runs are lettered and coloured as in the Compare view: each bar names its run's column.
    expect(page).toMatch(
      new RegExp(`<title>Comparison: A · [^<]*${runId} vs B · [^<]*${otherId}</title>`),
    );
    expect(page).toContain(`fill="${runColor(0)}"`);
    expect(page).toContain(`fill="${runColor(1)}"`);
    // The legend under the bars names each run by its letter.
    expect(page).toMatch(/<text[^>]*>B · [^<]*<\/text>/);
    expect(page).not.toContain(HOSTILE);
    expect(page).not.toMatch(/<script|(src|href)\s*=\s*["']?\s*https?:/i);

    const misuse = await runCli(['report', runId, '--out', out, '--runs-db', db], env);
    expect(misuse.code).not.toBe(0);
    expect(misuse.err).toContain('--out needs --html');
  });
});
