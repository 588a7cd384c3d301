import { readFileSync } from 'node:fs';
import { api, expect, MINI, screenshotPath, test } from './fixtures';

test('compares a hybrid and a text run on mini-1: deltas, flips, config diff and CSV export', async ({
  page,
  request,
  workbench,
}) => {
  const call = api(request, workbench.url);
  const presets = await call<Array<{ name: string }>>('memory.presets', {});
  expect(presets.map((p) => p.name)).toEqual(expect.arrayContaining(['hybrid', 'text']));

  const dataset = await call<{ datasetId: string }>('datasets.upload', {
    name: 'mini.json',
    content: readFileSync(MINI, 'utf8'),
  });
  const start = (preset: string) =>
    call<{ runId: string }>('experiments.start', {
      datasetId: dataset.datasetId,
      samples: ['mini-1'],
      memory: { preset },
    });
  // One after the other: the runs share the data folder, and the order makes "first" stable.
  const hybrid = (await start('hybrid')).runId;
  await waitForRun(call, hybrid);
  const text = (await start('text')).runId;
  await waitForRun(call, text);

  await page.goto(`${workbench.url}#/compare`);
  await expect(page.getByRole('heading', { level: 1, name: 'Compare' })).toBeVisible();
  await expect(page.getByText('Pick at least two runs to compare.')).toBeVisible();

  // A pick shows at once, within the click's own event: the route store hears of the new hash
  // before 'hashchange' fires, so the controlled checkbox is never reset (and a quick next click
  // is never lost).
  const checkedRightAfterClick = await page
    .getByRole('checkbox', { name: `Compare hybrid · ${hybrid}` })
    .evaluate((box: HTMLInputElement) => {
      box.click();
      return box.checked;
    });
  expect(checkedRightAfterClick).toBe(true);
  await expect(page.getByRole('radio', { name: `Baseline hybrid · ${hybrid}` })).toBeChecked();
  await page.getByRole('checkbox', { name: `Compare text · ${text}` }).check();
  await page.getByRole('radio', { name: `Baseline hybrid · ${hybrid}` }).check();
  await expect(page.getByRole('radio', { name: `Baseline hybrid · ${hybrid}` })).toBeChecked();

  // Per category: All, then mini-1's categories in official names. Its two category-5 questions
  // have no evidence and are asked at the last packet by default: 7 questions.
  const categories = page.getByRole('region', { name: 'Per category' });
  // By its caption: the shared chart carries a screen-reader table of its own.
  const table = categories.getByRole('table', { name: /per run/ });
  await expect(table.getByRole('rowheader')).toHaveText([
    'All',
    '1 multi-hop',
    '2 temporal',
    '3 open-domain',
    '4 single-hop',
    '5 adversarial',
  ]);
  await expect(table.getByRole('row', { name: /^All/ }).getByRole('cell').first()).toHaveText('7');
  await expect(table.getByRole('columnheader', { name: 'Δ B − A [95% CI]' })).toBeVisible();
  // The delta cell: a signed difference and its interval, then the interval by conversation,
  // McNemar's test on the flips and the smallest difference this n detects.
  const delta = table.getByRole('row', { name: /^All/ }).getByRole('cell').last();
  await expect(delta.locator('.delta-diff')).toHaveText(/^[+−]?\d\.\d{3}$/);
  await expect(delta.locator('.delta-interval')).toHaveText(/^\[[+−]?\d\.\d{3}, [+−]?\d\.\d{3}\]$/);
  await expect(delta).toContainText(/\[[+−]?\d\.\d{3}, [+−]?\d\.\d{3}\] by 1 conversation/);
  await expect(delta).toContainText(/McNemar p=\d\.\d{3} \(\d+ up, \d+ down\)/);
  await expect(delta).toContainText(/detectable ±\d\.\d{3}/);
  await expect(table).toContainText('paired bootstrap, 2,000 resamples, seed 0');
  await expect(categories.getByRole('figure')).toContainText('official LoCoMo');
  // Each run's bars carry the 95% interval of their mean, as the run view's chart does.
  await expect(categories.getByRole('figure')).toContainText(
    'whiskers: 95% bootstrap interval of the mean',
  );
  await expect(categories.locator('.recharts-errorBar')).not.toHaveCount(0);

  // Scheme switch relabels the table.
  await page
    .getByRole('group', { name: 'Category names' })
    .getByRole('button', { name: 'Mem0 paper' })
    .click();
  await expect(table.getByRole('rowheader').nth(1)).toHaveText('1 single-hop');

  // Config diff: the preset is the difference.
  const config = page.getByRole('region', { name: 'Config differences' });
  await expect(config.getByRole('row', { name: /memory\.preset/ })).toContainText('"hybrid"');
  await expect(config.getByRole('row', { name: /memory\.preset/ })).toContainText('"text"');

  // Cost and speed: offline runs use no tokens and have no prices; latencies are measured.
  const cost = page.getByRole('table', { name: 'Cost and speed' });
  await expect(cost.getByRole('row')).toHaveCount(3);
  // The memory LLM's tokens and the retrieved context per question are told apart by their heads.
  await expect(
    cost.getByRole('columnheader', { name: 'Memory LLM tokens (ingest)' }),
  ).toBeVisible();
  await expect(
    cost.getByRole('columnheader', { name: /^Retrieved memory tokens \/ question/ }),
  ).toBeVisible();
  const costA = cost.getByRole('row', { name: /^A/ }).getByRole('cell');
  await expect(costA.nth(0)).toHaveText('–');
  await expect(costA.nth(3)).toHaveText('–');
  await expect(costA.nth(4)).toHaveText(/^\d+(\.\d{2})?$/);
  await expect(costA.nth(5)).toHaveText(/^\d+(\.\d{2})?$/);
  // Mem0 Table 2's columns: search and total p50 / p95, memory tokens per question mean / p50;
  // no memory LLM, so no ingest cost.
  await expect(costA.nth(6)).toHaveText(/^\d+(\.\d{2})? \/ \d+(\.\d{2})?$/);
  await expect(costA.nth(7)).toHaveText(/^\d+(\.\d{2})? \/ \d+(\.\d{2})?$/);
  await expect(costA.nth(8)).toHaveText(/^[\d,]+ \/ [\d,]+$/);
  await expect(costA.nth(9)).toHaveText('–');

  await page.screenshot({ path: screenshotPath('compare-overview'), fullPage: true });

  // Flip filters: each chip shows as many rows as its count says; all 7 questions unfiltered.
  const questions = page.getByRole('region', { name: 'Questions' });
  const grid = questions.getByRole('table', { name: 'Questions compared' });
  await expect(questions.getByText('7 of 7 questions')).toBeVisible();
  await expect(grid.getByRole('row')).toHaveCount(8);
  await questions.screenshot({ path: screenshotPath('compare-questions') });
  const flips = questions.getByRole('group', { name: 'Flip filter' });
  const counts: Record<string, number> = {};
  for (const flip of ['improved', 'regressed', 'unchanged', 'missing']) {
    const chip = flips.getByRole('button', { name: new RegExp(`^${flip}`) });
    counts[flip] = Number((await chip.textContent())?.replace(/\D/g, ''));
  }
  // Both runs answered all seven questions, so every one is improved, regressed or unchanged.
  expect(counts.improved! + counts.regressed! + counts.unchanged!).toBe(7);
  expect(counts.missing).toBe(0);

  for (const flip of ['regressed', 'improved'] as const) {
    const chip = flips.getByRole('button', { name: new RegExp(`^${flip}`) });
    await chip.click();
    await expect(chip).toHaveAttribute('aria-pressed', 'true');
    await expect(questions.getByText(`${counts[flip]} of 7 questions`)).toBeVisible();
    const badges = grid.getByText(flip === 'regressed' ? '▼ regressed' : '▲ improved');
    await expect(badges).toHaveCount(counts[flip]!);
    // The content pane scrolls, not the page: a full-page shot would stop at the fold.
    if (flip === 'regressed')
      await questions.screenshot({ path: screenshotPath('compare-questions-regressed') });
    await chip.click();
  }

  // Search narrows by text; the URL keeps the state, so a reload reopens the view as it was.
  // Two of mini-1's questions start "Where d…" (move, live); no gold or prediction says it.
  await questions.getByRole('searchbox', { name: 'Search questions' }).fill('where d');
  await expect(questions.getByText('2 of 7 questions')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('checkbox', { name: `Compare text · ${text}` })).toBeChecked();
  await expect(page.getByRole('radio', { name: `Baseline hybrid · ${hybrid}` })).toBeChecked();
  await expect(questions.getByRole('searchbox', { name: 'Search questions' })).toHaveValue(
    'where d',
  );
  await expect(table.getByRole('rowheader').nth(1)).toHaveText('1 single-hop');

  // Export: the engine writes the CSV; the page saves it.
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(`compare-${hybrid}-vs-${text}.csv`);
  const csv = readFileSync(await file.path(), 'utf8');
  expect(csv.split(/\r?\n/)[0]).toBe(
    'sampleId,questionIndex,category,question,gold,prediction[hybrid],officialF1[hybrid],prediction[text],officialF1[text],flip[text]',
  );

  // Export report: the comparison as one self-contained HTML file (cli report --html's).
  const reporting = page.waitForEvent('download');
  await page
    .getByRole('group', { name: 'Export comparison' })
    .getByRole('button', { name: 'Export report' })
    .click();
  const report = await reporting;
  expect(report.suggestedFilename()).toBe(`compare-${hybrid}-vs-${text}.html`);
  const html = readFileSync(await report.path(), 'utf8');
  expect(html).toMatch(/^<!doctype html>/i);
  expect(html).toContain(hybrid);
  expect(html).toContain(text);
  expect(html).not.toMatch(/<script|(src|href)="https?:/i);
});

async function waitForRun(
  call: <T>(name: string, input: unknown) => Promise<T>,
  runId: string,
): Promise<void> {
  await expect
    .poll(
      async () => (await call<{ info: { status: string } }>('runs.get', { runId })).info.status,
      { timeout: 90_000, intervals: [250, 500, 1000] },
    )
    .toBe('completed');
}
