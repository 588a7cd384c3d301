import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type JSHandle, type Page } from '@playwright/test';
import { REPO, fmt, machineLine, median } from './common';
import { buildManyRunsDb, MANY_RUNS } from './manyRuns';

/** Issue 26's performance budget, ms. */
export const BUDGET = {
  list: 1000,
  detail: 1500,
  compare: 2000,
  sortFilter: 150,
  longTask: 200,
} as const;
export const BUDGET_ROUNDS = 3;
const STEP_TIMEOUT_MS = 120_000;

type Step = 'list' | 'detail' | 'sort' | 'filter' | 'compare';
const STEPS: ReadonlyArray<{ step: Step; what: string; budget: number }> = [
  {
    step: 'list',
    what: 'Runs list usable (rows with their F1), from navigation',
    budget: BUDGET.list,
  },
  {
    step: 'detail',
    what: "a full run's detail to its first answer row, from the click on its row",
    budget: BUDGET.detail,
  },
  {
    step: 'sort',
    what: 'sort the 1,986 answers by F1, click to rows re-rendered',
    budget: BUDGET.sortFilter,
  },
  {
    step: 'filter',
    what: 'filter the 1,986 answers (leave category 5 out), click to rows re-rendered',
    budget: BUDGET.sortFilter,
  },
  {
    step: 'compare',
    what: 'Compare of two full runs to its question rows, from the click picking the second',
    budget: BUDGET.compare,
  },
];

interface StepResult {
  ms: number;
  /** The longest main-thread task overlapping the step (PerformanceObserver 'longtask'); 0: none over 50 ms. */
  longTaskMs: number;
  /**
   * What ran in the animation frame of the step's longest task ('long-animation-frame' with its
   * scripts): where a long task comes from, without a trace; '' when none.
   */
  longestFrame: string;
}

/** A long animation frame as the page records it: start, duration, its scripts in words. */
type Frame = [number, number, string];
interface BenchState {
  longTasks: Array<[number, number]>;
  frames: Frame[];
  lastClick: number;
}
type Round = Record<Step, StepResult>;

/** Before the app's scripts: long tasks and the last click's time, read back by `timed`. */
function instrument(): void {
  const w = window as unknown as { __bench: BenchState };
  w.__bench = { longTasks: [], frames: [], lastClick: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__bench.longTasks.push([e.startTime, e.duration]);
  }).observe({ type: 'longtask', buffered: true });
  // Chromium's Long Animation Frames name the scripts behind a long frame (file, entry point,
  // time, forced layout); the type is newer than TypeScript's DOM library.
  interface FrameScript {
    sourceURL: string;
    invoker: string;
    duration: number;
    forcedStyleAndLayoutDuration: number;
  }
  new PerformanceObserver((list) => {
    for (const e of list.getEntries() as unknown as Array<
      PerformanceEntry & { scripts: FrameScript[] }
    >) {
      const scripts = [...e.scripts]
        .sort((a, b) => b.duration - a.duration)
        .slice(0, 2)
        .map(
          (x) =>
            `${x.sourceURL.replace(/.*\//, '') || '(page)'} ${x.invoker.replace(/^https?:\/\/\S*\//, '')} ` +
            `${Math.round(x.duration)} ms (forced layout ${Math.round(x.forcedStyleAndLayoutDuration)})`,
        );
      w.__bench.frames.push([e.startTime, e.duration, scripts.join('; ') || 'rendering only']);
    }
  }).observe({ type: 'long-animation-frame', buffered: true });
  // The event's own time stamp: when the input reached the page, before any handler ran.
  document.addEventListener('click', (event) => (w.__bench.lastClick = event.timeStamp), true);
}

/** A condition checked in the page each frame: the frame's time once it holds, else false. */
type Done<A> = (arg: A) => number | false;

const EACH_FRAME = { polling: 'raf', timeout: STEP_TIMEOUT_MS } as const;

/**
 * Runs `act` (a click, or a navigation: start 0), then waits until `done` (a waitForFunction of a
 * Done, EACH_FRAME) holds in the page, and returns the time from the click (or navigation start) to that frame, with the
 * longest task that overlapped it.
 */
async function timed(
  step: Step,
  page: Page,
  act: () => Promise<unknown>,
  done: () => Promise<JSHandle<number | false>>,
  fromNavigation = false,
): Promise<StepResult> {
  let endMs: number;
  try {
    await act();
    endMs = (await (await done()).jsonValue()) as number;
  } catch (error) {
    const shot = join(tmpdir(), `mw-bench-budget-${step}.png`);
    await page.screenshot({ path: shot }).catch(() => undefined);
    throw new Error(`bench ui: step ${step} (screenshot ${shot}): ${String(error)}`);
  }
  return page.evaluate(
    ([stop, fromStart]) => {
      const b = (window as unknown as { __bench: BenchState }).__bench;
      const start = fromStart ? 0 : b.lastClick;
      const overlapping = b.longTasks.filter(([s, d]) => s < stop && s + d > start);
      const longest = [...overlapping].sort((x, y) => y[1] - x[1])[0];
      // The frame the longest task ran in (a frame also counts the idle time between its tasks).
      const frame =
        longest === undefined
          ? undefined
          : b.frames.find(([s, d]) => s <= longest[0] && longest[0] < s + d);
      return {
        ms: stop - start,
        longTaskMs: longest?.[1] ?? 0,
        longestFrame: frame
          ? `${Math.round(frame[1])} ms frame: ${frame[2]}`
          : longest === undefined
            ? ''
            : `${Math.round(longest[1])} ms task outside any long animation frame (a script's load or a timer)`,
      };
    },
    [endMs, fromNavigation] as const,
  );
}

// Conditions run in the page as they are written (Playwright sends their source): no helpers.
/** The first rows of the Runs list, each with its overall F1. */
const listReady: Done<number> = (runs) => {
  const rows = [
    ...document.querySelectorAll(
      '[role="table"][aria-label="Runs"] [role="rowgroup"]:nth-child(2) [role="row"]',
    ),
  ];
  return rows.length >= Math.min(runs, 8) &&
    rows.every((r) => /\d\.\d{3}/.test(r.textContent ?? '') && !r.textContent?.includes('…'))
    ? performance.now()
    : false;
};
/** The run's title names it and its answers table has a row. */
const detailReady: Done<string> = (runId) =>
  document.querySelector('#run-title code')?.textContent === runId &&
  document.querySelector(
    '[role="table"][aria-label="Questions"] [role="rowgroup"]:nth-child(2) [role="row"]',
  ) !== null
    ? performance.now()
    : false;
/** The F1 header says the rows are sorted (the rows render in the same commit). */
const sorted: Done<string> = (unsorted) =>
  [...document.querySelectorAll('[aria-label="Questions"] [role="columnheader"]')].some(
    (h) =>
      h.querySelector('button[title="Sort by F1"]') !== null &&
      h.getAttribute('aria-sort') !== unsorted,
  )
    ? performance.now()
    : false;
/** The answers' count has changed from `before` (the rows render in the same commit). */
const countChanged: Done<string> = (before) =>
  [...document.querySelectorAll('.answers-panel [aria-live="polite"]')].some(
    (el) => /^\d+ of \d+$/.test(el.textContent?.trim() ?? '') && el.textContent?.trim() !== before,
  )
    ? performance.now()
    : false;
const compared: Done<null> = () =>
  document.querySelector(
    '[role="table"][aria-label="Questions compared"] [role="rowgroup"]:nth-child(2) [role="row"]',
  ) !== null
    ? performance.now()
    : false;

async function round(browser: Browser, url: string, fullRunIds: readonly string[]): Promise<Round> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  try {
    const page = await context.newPage();
    await page.addInitScript(instrument);
    const [a, b] = fullRunIds as [string, string];

    const list = await timed(
      'list',
      page,
      () => page.goto(`${url}#/runs`, { waitUntil: 'commit' }),
      () => page.waitForFunction(listReady, MANY_RUNS, EACH_FRAME),
      true,
    );

    const runs = page.getByRole('table', { name: 'Runs' });
    const detail = await timed(
      'detail',
      page,
      () => runs.getByRole('button', { name: a, exact: true }).click(),
      () => page.waitForFunction(detailReady, a, EACH_FRAME),
    );

    // Sorting and filtering cover every answer once the last page is in.
    await page
      .locator('.answers-panel [aria-live="polite"]')
      .filter({ hasText: /^1986 of 1986$/ })
      .waitFor({ timeout: STEP_TIMEOUT_MS });
    const sort = await timed(
      'sort',
      page,
      () => page.getByRole('button', { name: /^F1/ }).first().click(),
      () => page.waitForFunction(sorted, 'none', EACH_FRAME),
    );
    // Every category is shown at first: the click on category 5 leaves it out.
    const filter = await timed(
      'filter',
      page,
      () =>
        page
          .locator('.answer-filters .chip')
          .filter({ hasText: /^5 / })
          .getByRole('checkbox')
          .click(),
      () => page.waitForFunction(countChanged, '1986 of 1986', EACH_FRAME),
    );

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Compare' })
      .click();
    const picker = page.getByRole('table', { name: 'Runs to compare' });
    await picker.getByRole('checkbox', { name: new RegExp(`${a}$`) }).click();
    const compare = await timed(
      'compare',
      page,
      () => picker.getByRole('checkbox', { name: new RegExp(`${b}$`) }).click(),
      () => page.waitForFunction(compared, null, EACH_FRAME),
    );
    return { list, detail, sort, filter, compare };
  } finally {
    await context.close();
  }
}

function tsxArgs(args: string[]): string[] {
  return ['--import', 'tsx', 'src-main/cli/main.ts', ...args];
}

async function run(args: string[], what: string): Promise<void> {
  const child = spawn(process.execPath, tsxArgs(args), { cwd: REPO, stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`bench ui: ${what} exited with ${code}`);
}

const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

type Serve = (dataDir: string, staticDir?: string) => Promise<{ url: string; stop: () => void }>;

export interface UiBudgetOptions {
  /** A runs DB holding one full offline run; made with `cli experiment` when not given. */
  fullRunDb?: string | undefined;
  /**
   * Another renderer build (a copy of an older out/renderer): its rounds alternate with this
   * build's against the same runs DB and server code, so the machine's load hits both alike.
   */
  baselineRenderer?: string | undefined;
}

/**
 * Issue 26's budget in real Chromium against `cli serve`: a runs DB of MANY_RUNS runs (made from
 * one full offline run of `data`, or `fullRunDb` when given), BUDGET_ROUNDS fresh browser
 * contexts, each timing the Runs list, a full run's detail, a sort and a filter of its answers and
 * a Compare of two full runs. Returns the section's Markdown.
 */
export async function uiBudget(
  data: string,
  serve: Serve,
  chromiumPath: string,
  { fullRunDb, baselineRenderer }: UiBudgetOptions = {},
): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), 'mw-bench-budget-'));
  try {
    let source = fullRunDb;
    if (source === undefined) {
      source = join(work, 'full.db');
      await run(
        ['experiment', '--data', data, '--runs-db', source, '--data-dir', join(work, 'cli')],
        'cli experiment',
      );
    }
    const dataDir = join(work, 'data');
    mkdirSync(dataDir);
    const built = buildManyRunsDb(source, join(dataDir, 'runs.db'));
    const loadBefore = load();
    const server = await serve(dataDir);
    const baseline = baselineRenderer === undefined ? null : await serve(dataDir, baselineRenderer);
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu'],
    });
    const rounds: Array<Round & { load: string }> = [];
    const baselineRounds: Round[] = [];
    try {
      // A first visit warms the server's read workers and the OS file cache; it is not counted.
      await round(browser, server.url, built.fullRunIds);
      if (baseline) await round(browser, baseline.url, built.fullRunIds);
      for (let i = 0; i < BUDGET_ROUNDS; i++) {
        if (baseline) {
          const before = await round(browser, baseline.url, built.fullRunIds);
          baselineRounds.push(before);
          process.stderr.write(`bench ui: baseline round ${i + 1}: ${JSON.stringify(before)}\n`);
        }
        const result = await round(browser, server.url, built.fullRunIds);
        rounds.push({ ...result, load: load() });
        process.stderr.write(`bench ui: budget round ${i + 1}: ${JSON.stringify(result)}\n`);
      }
    } finally {
      await browser.close();
      server.stop();
      baseline?.stop();
    }
    const cells = (of: Round[], step: Step): string => {
      const ms = of.map((r) => r[step].ms);
      const long = of.map((r) => r[step].longTaskMs);
      return `${fmt(median(ms), 0)} | ${fmt(Math.max(...ms), 0)} | ${fmt(Math.max(...long), 0)}`;
    };
    const row = ({ step, what, budget }: (typeof STEPS)[number]): string => {
      const ms = rounds.map((r) => r[step].ms);
      const long = rounds.map((r) => r[step].longTaskMs);
      const held = Math.max(...ms) <= budget && Math.max(...long) <= BUDGET.longTask;
      const before = baseline ? ` ${cells(baselineRounds, step)} |` : '';
      return `| ${what} | ${budget} |${before} ${cells(rounds, step)} | ${held ? 'yes' : '**no**'} |`;
    };
    const header = baseline
      ? [
          '| step | budget ms | baseline median ms | baseline max ms | baseline longest task ms | median ms | max ms | longest task ms | holds |',
          '|---|---|---|---|---|---|---|---|---|',
        ]
      : [
          '| step | budget ms | median ms | max ms | longest task ms | holds |',
          '|---|---|---|---|---|---|',
        ];
    return [
      '## UI budget (issue 26: 200 runs in Chromium)',
      '',
      'Reproduce: `npm run build && npm run bench -- ui --budget-only` (the full `ui` suite runs it ' +
        'after the run-from-the-UI rounds; `--full-run-db <runs.db>` reuses a runs DB holding one ' +
        'full offline run instead of making one; `--baseline-renderer <dir>` alternates each round ' +
        'with one of an older renderer build, a copy of its out/renderer, served by the same server code).',
      '',
      `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}; load average before ` +
        `${loadBefore}, after each round ${rounds.map((r) => r.load.split(' ')[0]).join(', ')}.`,
      '',
      `${MANY_RUNS} runs (${built.fullRunIds.length} full LoCoMo runs, the rest one sample, built by ` +
        'benchmarks/manyRuns.ts from one offline run), `cli serve` in a child process, headless ' +
        `Chromium at 1400x900, ${BUDGET_ROUNDS} rounds in fresh browser contexts after one uncounted ` +
        "warm-up. Times run from the click (the event's time stamp) or the navigation start to the " +
        "first frame where the result shows; long tasks are the page's PerformanceObserver " +
        "'longtask' entries overlapping the step (0: none over 50 ms)." +
        (baseline ? ` Baseline: ${baselineRenderer}, its round just before each counted one.` : ''),
      '',
      ...header,
      ...STEPS.map(row),
      '',
      `Longest-task budget: ${BUDGET.longTask} ms in every step.`,
      '',
      "Where each step's longest task came from (the animation frame it ran in, in the round with " +
        "the longest task; Chromium's Long Animation Frames: script file, entry point, time):",
      '',
      ...STEPS.map(({ step }) => {
        const worst = [...rounds].sort((a, b) => b[step].longTaskMs - a[step].longTaskMs)[0];
        return `- ${step}: ${worst?.[step].longestFrame || 'no task over 50 ms'}`;
      }),
    ].join('\n');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
