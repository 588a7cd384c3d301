import { readFileSync } from 'node:fs';
import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { api, expect, MINI, screenshotPath, test, type WorkbenchServer } from './fixtures';

type Call = ReturnType<typeof api>;

/**
 * Ten samples, each a copy of mini-1 (so a run takes seconds); s-01 asks its questions 15 times
 * over (105 questions), so question indices reach three digits.
 */
function tenSamples(): string {
  const [mini1] = JSON.parse(readFileSync(MINI, 'utf8')) as Array<Record<string, unknown>>;
  if (!mini1) throw new Error('mini.json has no sample');
  const qa = mini1.qa as unknown[];
  return JSON.stringify(
    Array.from({ length: 10 }, (_, i) => ({
      ...mini1,
      sample_id: `s-${String(i + 1).padStart(2, '0')}`,
      qa: i === 0 ? Array.from({ length: 15 }, () => qa).flat() : qa,
    })),
  );
}

async function waitForRun(call: Call, runId: string): Promise<void> {
  await expect
    .poll(
      async () => (await call<{ info: { status: string } }>('runs.get', { runId })).info.status,
      { timeout: 120_000, intervals: [250, 500, 1000] },
    )
    .toBe('completed');
}

/** A text and a hybrid run over the ten samples, one after the other (they share the folder). */
async function twoRuns(
  request: APIRequestContext,
  workbench: WorkbenchServer,
): Promise<{ text: string; hybrid: string }> {
  const call = api(request, workbench.url);
  const dataset = await call<{ datasetId: string }>('datasets.upload', {
    name: 'ten.json',
    content: tenSamples(),
  });
  const samples = Array.from({ length: 10 }, (_, i) => `s-${String(i + 1).padStart(2, '0')}`);
  const start = async (preset: string) => {
    const { runId } = await call<{ runId: string }>('experiments.start', {
      datasetId: dataset.datasetId,
      samples,
      memory: { preset },
    });
    await waitForRun(call, runId);
    return runId;
  };
  const text = await start('text');
  const hybrid = await start('hybrid');
  return { text, hybrid };
}

/** Console warnings and errors over the whole test: the app should print none. */
function watchConsole(page: Page): string[] {
  const messages: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'warning' || message.type() === 'error')
      messages.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => messages.push(`pageerror: ${error.message}`));
  return messages;
}

const bodyRows = (table: Locator) => table.getByRole('rowgroup').nth(1).getByRole('row');

/** The text of column `index` in every body row, top to bottom. */
async function column(table: Locator, index: number): Promise<string[]> {
  return bodyRows(table).evaluateAll(
    (rows, i) =>
      rows.map((row) => row.querySelectorAll('[role="cell"]')[i]?.textContent?.trim() ?? ''),
    index,
  );
}

/** The column's position among the headers shown, by its name. */
async function columnIndex(table: Locator, name: string): Promise<number> {
  const names = await table.getByRole('columnheader').allTextContents();
  const index = names.findIndex((n) => n.replace(/[▲▼↕]/g, '').trim() === name);
  expect(index, `column ${name} among ${names.join(' | ')}`).toBeGreaterThanOrEqual(0);
  return index;
}

async function sortBy(table: Locator, name: string, direction: 'ascending' | 'descending') {
  const header = table.getByRole('columnheader', { name, exact: true });
  for (let i = 0; i < 3; i++) {
    if ((await header.getAttribute('aria-sort')) === direction) return;
    await header.getByRole('button').click();
  }
  await expect(header).toHaveAttribute('aria-sort', direction);
}

const numbers = (cells: string[]) => cells.map((c) => Number(c.replace('−', '-')));
const sortedDesc = (xs: number[]) => [...xs].sort((a, b) => b - a);

test('runs, answers, compared questions and samples sort by any column and filter; the URL keeps it', async ({
  page,
  request,
  workbench,
}) => {
  test.setTimeout(300_000);
  const warnings = watchConsole(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  const { text, hybrid } = await twoRuns(request, workbench);

  // Runs list: sorted by overall F1, then searched; a reload reopens it as it was.
  await page.goto(`${workbench.url}#/runs?run=${text}`);
  const runs = page.getByRole('table', { name: 'Runs' });
  await expect(bodyRows(runs)).toHaveCount(2);
  await expect(runs.getByRole('row', { name: new RegExp(text) })).toContainText(/\d\.\d{3}/);
  await sortBy(runs, 'Overall F1', 'descending');
  const f1 = numbers(await column(runs, await columnIndex(runs, 'Overall F1')));
  expect(f1).toEqual(sortedDesc(f1));
  await sortBy(runs, 'Overall F1', 'ascending');
  expect(numbers(await column(runs, await columnIndex(runs, 'Overall F1')))).toEqual(
    [...f1].reverse(),
  );
  await page.getByRole('searchbox', { name: 'Search runs' }).fill('hybrid');
  await expect(bodyRows(runs)).toHaveCount(1);
  await expect(bodyRows(runs).first()).toContainText(hybrid);
  await page.reload();
  await expect(page.getByRole('searchbox', { name: 'Search runs' })).toHaveValue('hybrid');
  await expect(bodyRows(runs)).toHaveCount(1);
  await expect(runs.getByRole('columnheader', { name: 'Overall F1' })).toHaveAttribute(
    'aria-sort',
    'ascending',
  );
  await page.getByRole('searchbox', { name: 'Search runs' }).fill('');
  await expect(bodyRows(runs)).toHaveCount(2);

  // Answers: filtered by sample, sorted by F1, latency and category.
  const questions = page.getByRole('table', { name: 'Questions' });
  await page.getByRole('combobox', { name: 'Sample', exact: true }).selectOption('s-02');
  await expect(page.getByText('7 of 168')).toBeVisible();
  expect(new Set(await column(questions, await columnIndex(questions, 'Sample')))).toEqual(
    new Set(['s-02']),
  );
  for (const name of ['F1', 'Latency ms']) {
    await sortBy(questions, name, 'descending');
    const values = numbers(await column(questions, await columnIndex(questions, name)));
    expect(values, name).toEqual(sortedDesc(values));
  }
  await sortBy(questions, 'Category', 'ascending');
  const categories = (await column(questions, await columnIndex(questions, 'Category'))).map((c) =>
    Number(c.split(' ')[0]),
  );
  expect(categories).toEqual([...categories].sort((a, b) => a - b));
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Sample', exact: true })).toHaveValue('s-02');
  await expect(questions.getByRole('columnheader', { name: 'Category' })).toHaveAttribute(
    'aria-sort',
    'ascending',
  );
  await expect(bodyRows(questions)).toHaveCount(7);

  // Three-digit question indices stay on one line.
  await page.getByRole('combobox', { name: 'Sample', exact: true }).selectOption('s-01');
  await sortBy(questions, 'Q#', 'descending');
  const qIndex = await columnIndex(questions, 'Q#');
  const top = bodyRows(questions).first().getByRole('cell').nth(qIndex);
  await expect(top).toHaveText('104');
  const lines = await top.evaluate((cell) => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  });
  expect(lines).toBe(1);
  await questions.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('tables-answers-1440') });

  // Ten samples' curves: ten colour-and-dash pairs (the palette has eight colours), and dashes
  // that differ between neighbours.
  await page.getByRole('combobox', { name: 'Samples', exact: true }).selectOption('each');
  const curve = page.getByRole('figure', { name: 'Accuracy as the conversation grows' });
  const paths = curve.locator('.recharts-line-curve');
  await expect(paths).toHaveCount(10);
  const styles = await paths.evaluateAll((els) =>
    els.map((el) => ({
      stroke: el.getAttribute('stroke'),
      dash: el.getAttribute('stroke-dasharray') ?? 'solid',
    })),
  );
  expect(new Set(styles.map((s) => `${s.stroke} ${s.dash}`)).size).toBe(10);
  for (let i = 1; i < styles.length; i++) expect(styles[i]!.dash).not.toBe(styles[i - 1]!.dash);
  await curve.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('tables-curve-ten-samples') });

  // Compare: sorted by the difference to the baseline; a reload keeps the sort.
  await page.goto(
    `${workbench.url}#/compare?runs=${text},${hybrid}&base=${text}&sort=delta-1.desc`,
  );
  const compared = page.getByRole('table', { name: 'Questions compared' });
  const delta = compared.getByRole('columnheader', { name: 'ΔF1 B−A' });
  await expect(delta).toHaveAttribute('aria-sort', 'descending');
  const deltas = numbers(await column(compared, await columnIndex(compared, 'ΔF1 B−A')));
  expect(deltas.length).toBeGreaterThan(0);
  expect(deltas).toEqual(sortedDesc(deltas));
  await sortBy(compared, 'ΔF1 B−A', 'ascending');
  await expect(page).toHaveURL(/sort=delta-1\.asc/);
  await page.reload();
  await expect(delta).toHaveAttribute('aria-sort', 'ascending');
  await compared.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('tables-compare-1440') });

  // Samples: sorted by QA count, s-01 (105 questions) first.
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Datasets' })
    .click();
  const samples = page.getByRole('region', { name: 'Samples' }).getByRole('table');
  await sortBy(samples, 'QA', 'descending');
  await expect(bodyRows(samples).first()).toContainText('s-01');
  await page.reload();
  await expect(samples.getByRole('columnheader', { name: 'QA' })).toHaveAttribute(
    'aria-sort',
    'descending',
  );
  await expect(bodyRows(samples).first()).toContainText('s-01');

  expect(warnings).toEqual([]);
});

test('at 1024×700 gold, prediction, F1 and B’s answer stay in view; the side panel overlays', async ({
  page,
  request,
  workbench,
}) => {
  test.setTimeout(300_000);
  const warnings = watchConsole(page);
  const { text, hybrid } = await twoRuns(request, workbench);
  await page.setViewportSize({ width: 1024, height: 700 });

  await page.goto(`${workbench.url}#/runs?run=${text}`);
  const questions = page.getByRole('table', { name: 'Questions' });
  await questions.scrollIntoViewIfNeeded();
  const box = await questions.locator('xpath=..').boundingBox();
  if (!box) throw new Error('the questions table has no box');
  for (const name of ['Question', 'Gold', 'Prediction', 'F1']) {
    const header = questions.getByRole('columnheader', { name, exact: true });
    await expect(header).toBeVisible();
    const h = await header.boundingBox();
    expect(h!.x + h!.width, `${name} inside the table's box`).toBeLessThanOrEqual(
      box.x + box.width + 1,
    );
  }
  // The lower-priority columns gave way, and the table says which.
  await expect(page.getByText(/^Hidden at this width: .*Latency/)).toBeVisible();
  await page.screenshot({ path: screenshotPath('tables-answers-1024') });

  // Opening a question's memories does not squeeze the table: the panel lies over it.
  await questions.getByRole('button', { name: 'Where did Ann move?' }).first().click();
  const panel = page.getByRole('complementary', { name: 'Retrieved memories' });
  await expect(panel).toBeVisible();
  const after = await questions.locator('xpath=..').boundingBox();
  expect(after!.width).toBeCloseTo(box.width, 0);
  const p = await panel.boundingBox();
  expect(p!.x).toBeLessThan(box.x + box.width);
  await page.screenshot({ path: screenshotPath('tables-answers-panel-1024') });
  await panel.getByRole('button', { name: 'Close retrieved memories' }).focus();
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();

  await page.goto(`${workbench.url}#/compare?runs=${text},${hybrid}&base=${text}`);
  const compared = page.getByRole('table', { name: 'Questions compared' });
  await compared.scrollIntoViewIfNeeded();
  const cbox = await compared.locator('xpath=..').boundingBox();
  for (const name of ['Gold', 'A prediction', 'B prediction', 'B F1']) {
    const header = compared.getByRole('columnheader', { name, exact: true });
    await expect(header).toBeVisible();
    const h = await header.boundingBox();
    expect(h!.x + h!.width, `${name} inside the table's box`).toBeLessThanOrEqual(
      cbox!.x + cbox!.width + 1,
    );
  }
  await page.screenshot({ path: screenshotPath('tables-compare-1024') });

  expect(warnings).toEqual([]);
});

test('a skip link leads past the sidebar, whose links show a focus ring', async ({
  page,
  workbench,
}) => {
  const warnings = watchConsole(page);
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.goto(workbench.url);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();

  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.screenshot({ path: screenshotPath('shell-skip-link') });
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main')).toBeFocused();
  // The route did not change: the link moves focus, not the hash router.
  await expect(page).not.toHaveURL(/main-content/);

  await skip.focus();
  await page.keyboard.press('Tab');
  const first = page.getByRole('navigation', { name: 'Main' }).getByRole('link').first();
  await expect(first).toBeFocused();
  const ring = await first.evaluate((el) => {
    const style = getComputedStyle(el);
    return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
  });
  expect(ring.style).not.toBe('none');
  expect(ring.width).toBeGreaterThanOrEqual(2);
  await page.screenshot({ path: screenshotPath('shell-sidebar-focus') });

  expect(warnings).toEqual([]);
});
