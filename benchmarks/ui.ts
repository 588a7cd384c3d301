import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { REPO, fmt, machineLine, median, writeSection } from './common';
import { uiBudget } from './uiBudget';

/** Issue 15 item 12's target: a run started from the Experiments view within 1.2× the CLI. */
const TARGET_RATIO = 1.2;
/** CLI and UI runs alternate, so a change in the machine's load hits both paths alike. */
const ROUNDS = 2;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const RUN_TIMEOUT_MS = 10 * 60_000;

interface CliResult {
  wallMs: number;
  elapsedMs: number;
}

interface UiResult {
  /** From the click on Run until the card shows the run ended. */
  wallMs: number;
  /** The engine's own run time, as the card shows it (whole seconds). */
  elapsedText: string;
  /** WebSocket frames the page received during the run. */
  frames: number;
  /** Chromium's renderer main thread: all tasks, and script alone (CDP Performance metrics). */
  rendererTaskS: number;
  rendererScriptS: number;
}

function tsxArgs(args: string[]): string[] {
  return ['--import', 'tsx', 'src-main/cli/main.ts', ...args];
}

async function cliRun(data: string): Promise<CliResult> {
  const dir = mkdtempSync(join(tmpdir(), 'mw-bench-ui-cli-'));
  try {
    const started = Date.now();
    const child = spawn(
      process.execPath,
      tsxArgs(['experiment', '--data', data, '--runs-db', join(dir, 'runs.db'), '--json']),
      { cwd: REPO, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const wallMs = Date.now() - started;
    if (code !== 0) throw new Error(`bench ui: cli experiment exited with ${code}`);
    const { elapsedMs } = JSON.parse(out) as { elapsedMs: number };
    return { wallMs, elapsedMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `cli serve` of `dataDir`, hosting out/renderer or the renderer build in `staticDir`. */
async function serve(
  dataDir: string,
  staticDir?: string,
): Promise<{ url: string; stop: () => void }> {
  const args = ['serve', '--port', '0', '--data-dir', dataDir];
  if (staticDir !== undefined) args.push('--static', staticDir);
  const child = spawn(process.execPath, tsxArgs(args), {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /serving at (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`bench ui: serve exited with ${code}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

/** The user's path: upload the file, open Experiments, press Run with every sample chosen. */
async function uiRun(data: string): Promise<UiResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mw-bench-ui-'));
  const server = await serve(dataDir);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    let frames = 0;
    page.on('websocket', (ws) => ws.on('framereceived', () => frames++));
    await page.goto(server.url);
    await page.getByLabel('Dataset file').setInputFiles(data);
    await page.getByRole('region', { name: 'Samples' }).getByRole('row').nth(1).waitFor();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Experiments' })
      .click();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const metric = async (): Promise<Record<string, number>> =>
      Object.fromEntries(
        (await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]),
      );
    const before = await metric();
    frames = 0;
    const started = Date.now();
    await page
      .getByRole('form', { name: 'New experiment' })
      .getByRole('button', { name: 'Run', exact: true })
      .click();
    const card = page.getByRole('article').first();
    await card
      .locator('.status-badge', { hasText: /^(completed|degraded|failed)$/ })
      .waitFor({ timeout: RUN_TIMEOUT_MS });
    const wallMs = Date.now() - started;
    const after = await metric();
    const elapsedText = (await card.getByRole('definition').nth(5).textContent())?.trim() ?? '?';
    const delta = (name: string): number => (after[name] ?? 0) - (before[name] ?? 0);
    return {
      wallMs,
      elapsedText,
      frames,
      rendererTaskS: delta('TaskDuration'),
      rendererScriptS: delta('ScriptDuration'),
    };
  } finally {
    await browser.close();
    server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * A full run from the Experiments view in real Chromium against `cli serve`, versus the same run
 * from the CLI, alternating ROUNDS times; then issue 26's budget over 200 runs (uiBudget.ts), alone
 * with `budget-only`. Needs `npm run build` first (serve hosts out/renderer).
 */
export async function uiSuite(data: string, write: boolean, extra: string[]): Promise<void> {
  if (!extra.includes('budget-only')) await runFromUiSuite(data, write);
  const option = (name: string): string | undefined =>
    extra.find((x) => x.startsWith(`${name}=`))?.slice(name.length + 1);
  const budget = await uiBudget(data, serve, CHROMIUM, {
    fullRunDb: option('full-run-db'),
    baselineRenderer: option('baseline-renderer'),
  });
  process.stdout.write(`${budget}\n`);
  if (write) await writeSection('ui-budget', budget);
}

async function runFromUiSuite(data: string, write: boolean): Promise<void> {
  const loadBefore = loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  const cli: CliResult[] = [];
  const ui: UiResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    cli.push(await cliRun(data));
    ui.push(await uiRun(data));
  }
  const ratio = median(ui.map((u) => u.wallMs)) / median(cli.map((c) => c.wallMs));
  const lines = [
    '## UI run (a full run from the Experiments view vs the CLI)',
    '',
    'Reproduce: `npm run build && npm run bench -- ui` (same dataset resolution as above; Chromium ' +
      'at `$CHROMIUM_PATH` or /usr/bin/chromium).',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}; load average before ` +
      `${loadBefore}.`,
    '',
    'All samples, default config (hybrid, extractive answers). CLI: `cli experiment --json`, wall ' +
      'time of the process. UI: `cli serve` in a child process, the page uploads the file, ' +
      'presses Run, and the time runs until the card shows the run ended; renderer CPU is the ' +
      "page's main thread over that span (CDP Performance metrics). The two paths alternate, " +
      `${ROUNDS} rounds.`,
    '',
    '| round | CLI wall s | CLI engine s | UI wall s | UI engine (card) | WebSocket frames | renderer tasks s | renderer script s |',
    '|---|---|---|---|---|---|---|---|',
    ...cli.map((c, i) => {
      const u = ui[i] as UiResult;
      return (
        `| ${i + 1} | ${fmt(c.wallMs / 1000, 1)} | ${fmt(c.elapsedMs / 1000, 1)} | ${fmt(u.wallMs / 1000, 1)} | ` +
        `${u.elapsedText} | ${u.frames} | ${fmt(u.rendererTaskS, 1)} | ${fmt(u.rendererScriptS, 1)} |`
      );
    }),
    '',
    `UI / CLI (median wall): **${fmt(ratio, 2)}×** (target <= ${TARGET_RATIO}×).`,
  ];
  const body = lines.join('\n');
  process.stdout.write(`${body}\n`);
  if (write) await writeSection('ui', body);
}
