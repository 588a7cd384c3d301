import { readFileSync } from 'node:fs';
import type { APIRequestContext, Page } from '@playwright/test';
import {
  api,
  expect,
  MINI,
  openWithMini,
  screenshotPath,
  test,
  type WorkbenchServer,
} from './fixtures';

type Call = ReturnType<typeof api>;

async function waitForRun(call: Call, runId: string): Promise<void> {
  await expect
    .poll(
      async () => (await call<{ info: { status: string } }>('runs.get', { runId })).info.status,
      { timeout: 90_000, intervals: [250, 500, 1000] },
    )
    .toBe('completed');
}

/** A hybrid and a text run on mini-1, named and tagged as a researcher would before a paper. */
async function namedRuns(
  request: APIRequestContext,
  workbench: WorkbenchServer,
): Promise<{ call: Call; hybrid: string; text: string }> {
  const call = api(request, workbench.url);
  const dataset = await call<{ datasetId: string }>('datasets.upload', {
    name: 'mini.json',
    content: readFileSync(MINI, 'utf8'),
  });
  const start = async (preset: string, name: string, tags: string[]) => {
    const { runId } = await call<{ runId: string }>('experiments.start', {
      datasetId: dataset.datasetId,
      samples: ['mini-1'],
      memory: { preset },
    });
    await waitForRun(call, runId);
    await call('runs.setIdentity', { runId, name, tags });
    return runId;
  };
  // One after the other: the runs share the data folder.
  const hybrid = await start('hybrid', 'Hybrid fusion', ['paper']);
  const text = await start('text', 'BM25 baseline', ['ablation']);
  return { call, hybrid, text };
}

/** The document itself never scrolls: the sidebar stays put and only the view's panel scrolls. */
async function expectNoPageScroll(page: Page): Promise<void> {
  const { scroll, viewport } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollHeight,
    viewport: window.innerHeight,
  }));
  expect(scroll, 'document height').toBeLessThanOrEqual(viewport);
}

test("the run page fits the window: the charts' screen-reader tables do not grow the document", async ({
  page,
  request,
  workbench,
}) => {
  const { hybrid } = await namedRuns(request, workbench);

  for (const width of [1400, 1024]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${workbench.url}#/runs?run=${hybrid}`);
    await expect(page.getByRole('figure', { name: /per category/ })).toBeVisible();
    await expect(
      page.getByRole('figure', { name: 'Accuracy as the conversation grows' }),
    ).toBeVisible();
    await expectNoPageScroll(page);
    await page.screenshot({ path: screenshotPath(`full-size-run-${width}`) });
  }
});

test('the runs search finds a run by the name and tags the table shows', async ({
  page,
  request,
  workbench,
}) => {
  const { hybrid, text } = await namedRuns(request, workbench);
  await page.goto(`${workbench.url}#/runs`);
  // Search by what the table shows: the name, then a tag.
  const runs = page.getByRole('table', { name: 'Runs' });
  const search = page.getByRole('searchbox', { name: 'Search runs' });
  await search.fill('bm25 base');
  await expect(runs.getByRole('row', { name: new RegExp(text) })).toBeVisible();
  await expect(runs.getByRole('row', { name: new RegExp(hybrid) })).toHaveCount(0);
  await search.fill('paper');
  await expect(runs.getByRole('row', { name: new RegExp(hybrid) })).toBeVisible();
  await expect(runs.getByRole('row', { name: new RegExp(text) })).toHaveCount(0);
});

test('Compare shows the whole Δ [95% CI] column at 1400 and 1024 px', async ({
  page,
  request,
  workbench,
}) => {
  const { call, hybrid, text } = await namedRuns(request, workbench);
  // A third run: two Δ columns, as a paper's ablation table has.
  const dataset = (await call<Array<{ datasetId: string }>>('datasets.list', {}))[0];
  const { runId: vector } = await call<{ runId: string }>('experiments.start', {
    datasetId: dataset?.datasetId,
    samples: ['mini-1'],
    memory: { preset: 'vector' },
  });
  await waitForRun(call, vector);
  for (const width of [1400, 1024]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${workbench.url}#/compare?runs=${text},${hybrid},${vector}&base=${text}`);
    const table = page.getByRole('table', { name: /per run/ });
    await expect(table.getByRole('columnheader', { name: 'Δ C − A [95% CI]' })).toBeVisible();
    // Nothing of the table hides behind its scroll box's edge.
    const { tableWidth, boxWidth } = await table.evaluate((el) => ({
      tableWidth: el.getBoundingClientRect().width,
      boxWidth: (el.parentElement as HTMLElement).clientWidth,
    }));
    expect(tableWidth, `table width at ${width} px`).toBeLessThanOrEqual(boxWidth);
    await table.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath(`full-size-compare-${width}`) });
  }
});

test('Datasets category headers read in order inside their own cells; a click anywhere in a header sorts', async ({
  page,
  workbench,
}) => {
  await openWithMini(page, workbench);
  const samples = page.getByRole('region', { name: 'Samples' }).getByRole('table');
  for (const width of [1400, 1024]) {
    await page.setViewportSize({ width, height: 900 });
    const headers = samples.getByRole('columnheader', { name: /^\d / });
    await expect(headers.first()).toBeVisible();
    const layout = await headers.evaluateAll((cells) =>
      cells.map((cell) => {
        const box = cell.getBoundingClientRect();
        const label = cell.querySelector('.nowrap') as HTMLElement;
        const digit = document.createRange();
        const digitNode = [...cell.querySelectorAll('*'), cell]
          .flatMap((el) => [...el.childNodes])
          .find((n) => n.nodeType === Node.TEXT_NODE && /^\d/.test(n.textContent ?? ''));
        if (!digitNode) return { text: cell.textContent, inside: false, inOrder: false };
        digit.selectNodeContents(digitNode);
        const d = digit.getBoundingClientRect();
        const l = label.getBoundingClientRect();
        return {
          text: cell.textContent,
          // Within its cell, give or take 2 px of the 8 px padding between it and the next label.
          inside: l.left >= box.left - 2 && l.right <= box.right + 2,
          // "3 open-domain": the number first, on the same line or the line above.
          inOrder: d.right <= l.left + 0.5 || d.bottom <= l.top + 0.5,
        };
      }),
    );
    const wrong = layout.filter((h) => !h.inside || !h.inOrder);
    expect(wrong, `category headers at ${width} px`).toEqual([]);
    await samples.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath(`full-size-datasets-${width}`) });
  }

  // A click at the far left of a right-aligned header, well away from its label, sorts.
  const qa = samples.getByRole('columnheader', { name: 'QA', exact: true });
  const box = await qa.boundingBox();
  if (!box) throw new Error('no QA header');
  await page.mouse.click(box.x + 3, box.y + box.height / 2);
  await expect(qa).not.toHaveAttribute('aria-sort', 'none');
});

test('the answers table: near the top of the run, j/k step through it, Esc closes after a mouse open', async ({
  page,
  request,
  workbench,
}) => {
  const { hybrid } = await namedRuns(request, workbench);
  await page.goto(`${workbench.url}#/runs?run=${hybrid}`);
  const answers = page.getByRole('table', { name: 'Questions' });
  await expect(answers.getByRole('row')).not.toHaveCount(0);
  const top = await answers.evaluate((el) => {
    const main = document.getElementById('main-content') as HTMLElement;
    return el.getBoundingClientRect().top - main.getBoundingClientRect().top + main.scrollTop;
  });
  // The link opened the run: the view is scrolled to it, as a researcher first sees it.
  await page.screenshot({ path: screenshotPath('full-size-run-answers-1400') });
  // Before: 2,066 px down here (1,773 px in issue 26), under the manifest; the provenance now
  // follows the answers and the two charts share a row (about 1,500 px with the headline's CI).
  // The judge-protocol form, with no protocol's scores in it, follows the answers too (issue 38:
  // 1,427 -> 1,276 px on one offline LoCoMo run alone in the list). The charts follow the
  // answers (issue 38 point 6): 1,312 -> 771 px here, two mini runs above in the list.
  expect(top).toBeLessThan(800);

  const panel = page.getByRole('complementary', { name: 'Retrieved memories' });
  const rows = answers.getByRole('rowgroup').nth(1).getByRole('row');
  await rows.nth(0).getByRole('button').click();
  await expect(panel).toContainText(/qa\[\d+\]/);
  const first = await panel.locator('.retrieved-head').textContent();
  await page.keyboard.press('j');
  await expect(rows.nth(1)).toHaveAttribute('aria-current', 'true');
  await expect(panel.locator('.retrieved-head')).not.toHaveText(first ?? '');
  await page.keyboard.press('k');
  await expect(rows.nth(0)).toHaveAttribute('aria-current', 'true');
  await expect(panel.locator('.retrieved-head')).toHaveText(first ?? '');
  // Focus is on the row's button (a mouse open), not in the panel: Escape still closes it.
  await page.keyboard.press('Escape');
  await expect(panel).toHaveCount(0);
});

test('Compare names runs by their names: the per-category table as Markdown and CSV, the question CSV', async ({
  page,
  context,
  request,
  workbench,
}) => {
  const { hybrid, text } = await namedRuns(request, workbench);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
    origin: new URL(workbench.url).origin,
  });
  await page.goto(`${workbench.url}#/compare?runs=${text},${hybrid}&base=${text}`);
  const categories = page.getByRole('region', { name: 'Per category' });
  await expect(categories.getByRole('table', { name: /per run/ })).toBeVisible();

  await categories.getByRole('button', { name: 'Copy as Markdown' }).click();
  await expect(categories.getByRole('status')).toHaveText(/Copied/);
  const markdown = await page.evaluate(() => navigator.clipboard.readText());
  // The table `cli compare --format md` prints (src-shared/compareTable.ts), runs by name.
  expect(markdown.split('\n')[0]).toBe(
    '| category | BM25 baseline (baseline) | Hybrid fusion | n | Δ | 95% CI | CI by conversation | McNemar p | MDE |',
  );
  expect(markdown).toMatch(/^\| All \| 0\.\d{3} \| 0\.\d{3} \| 7 \| .*\[.*\].* \|$/m);

  const perCategory = page.waitForEvent('download');
  await categories.getByRole('button', { name: 'Save per-category CSV' }).click();
  const csv = readFileSync(await (await perCategory).path(), 'utf8');
  expect(csv.split('\r\n')[0]).toBe(
    'category,n,mean[BM25 baseline],mean[Hybrid fusion],delta[Hybrid fusion - BM25 baseline],ciLow[Hybrid fusion - BM25 baseline],ciHigh[Hybrid fusion - BM25 baseline]',
  );

  const questions = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const questionCsv = readFileSync(await (await questions).path(), 'utf8');
  expect(questionCsv.split(/\r?\n/)[0]).toBe(
    'sampleId,questionIndex,category,question,gold,prediction[BM25 baseline],officialF1[BM25 baseline],prediction[Hybrid fusion],officialF1[Hybrid fusion],flip[Hybrid fusion]',
  );
});

/** WCAG 2 contrast ratio of two computed `rgb(…)` colours. */
function contrast(foreground: string, background: string): number {
  const luminance = (css: string) => {
    const [r, g, b] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
  };
  const [hi, lo] = [luminance(foreground), luminance(background)].sort((x, y) => y - x);
  return ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05);
}

test('the run page reads well: selected buttons at 4.5:1, charts not in the Tab order, latency in ms', async ({
  page,
  request,
  workbench,
}) => {
  const { hybrid } = await namedRuns(request, workbench);
  await page.goto(`${workbench.url}#/runs?run=${hybrid}`);
  const pressed = page.getByRole('button', { name: 'official LoCoMo', pressed: true }).first();
  await expect(pressed).toBeVisible();
  const colours = await pressed.evaluate((el) => {
    const style = getComputedStyle(el);
    return { color: style.color, background: style.backgroundColor };
  });
  expect(contrast(colours.color, colours.background)).toBeGreaterThanOrEqual(4.5);

  // A chart hidden from assistive technology must not take a Tab stop either.
  await expect(
    page.getByRole('figure', { name: 'Accuracy as the conversation grows' }),
  ).toBeVisible();
  const focusableHidden = await page.evaluate(
    () =>
      document.querySelectorAll(
        '[aria-hidden="true"] [tabindex]:not([tabindex="-1"]), [aria-hidden="true"] a[href], [aria-hidden="true"] button',
      ).length,
  );
  expect(focusableHidden).toBe(0);

  await expect(
    page
      .getByRole('table', { name: 'Questions' })
      .getByRole('columnheader', { name: 'Latency ms' }),
  ).toBeVisible();
});

test('every chart saves as SVG and PNG', async ({ page, request, workbench }) => {
  const { hybrid } = await namedRuns(request, workbench);
  await page.goto(`${workbench.url}#/runs?run=${hybrid}`);
  for (const name of ['Official F1 per category', 'Accuracy as the conversation grows']) {
    const save = page.getByRole('group', { name: `Save figure: ${name}` });
    const svgDownload = page.waitForEvent('download');
    await save.getByRole('button', { name: 'SVG' }).click();
    const svgFile = await svgDownload;
    const svg = readFileSync(await svgFile.path(), 'utf8');
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain('0.75');
    expect(svgFile.suggestedFilename()).toMatch(/\.svg$/);

    const pngDownload = page.waitForEvent('download');
    await save.getByRole('button', { name: 'PNG' }).click();
    const png = readFileSync(await (await pngDownload).path());
    // The PNG signature, and an image twice the chart's on-screen width.
    expect([...png.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
    expect(png.readUInt32BE(16)).toBeGreaterThan(600);
  }
});

test('the headline carries its 95% interval and the per-category bars their whiskers', async ({
  page,
  request,
  workbench,
}) => {
  const { hybrid } = await namedRuns(request, workbench);
  await page.goto(`${workbench.url}#/runs?run=${hybrid}`);
  const overall = page.getByRole('region', { name: 'Overall scores' });
  await expect(overall.locator('.overall-card').first()).toContainText(
    /95% CI \[\d\.\d{3}, \d\.\d{3}\] \(bootstrap, 2,000 resamples, seed 0\)/,
  );
  const chart = page.getByRole('figure', { name: 'Official F1 per category' });
  await expect(chart).toContainText('whiskers: 95% bootstrap interval of the mean');
  // One whisker per category bar that has questions.
  await expect(chart.locator('.recharts-errorBar')).not.toHaveCount(0);
  await page.screenshot({ path: screenshotPath('full-size-headline-1400') });
});
