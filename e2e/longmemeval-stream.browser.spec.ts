import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { api, expect, screenshotPath, test } from './fixtures';

/**
 * A LongMemEval file over the whole-file limit (longmemeval_m.json is ~2.7 GB) opened in the app:
 * the server's limit is lowered through its environment variable, so the small hand-written file
 * stands in for M. Browser mode opens files by path inside its `--dataset-dir` folder.
 */
// In the test output folder (not committed), so every process that loads this spec reuses it.
const folder = resolve('test-results/longmemeval-m');
mkdirSync(folder, { recursive: true });
const file = join(folder, 'longmemeval_m.json');
copyFileSync(resolve('tests/fixtures/longmemeval/longmemeval_s.json'), file);
const LIMIT = 1000;

test.use({
  serveEnv: { MEMORY_WORKBENCH_MAX_DATASET_BYTES: String(LIMIT) },
  serveArgs: ['--dataset-dir', folder],
  viewport: { width: 1400, height: 1500 },
});

test('LongMemEval M: opened streamed, a question browsed, a run started from the form', async ({
  page,
  request,
  workbench,
}) => {
  expect(statSync(file).size).toBeGreaterThan(LIMIT);
  const call = api(request, workbench.url);
  const opened = await call<{ datasetId: string; stats: { totals: { samples: number } } }>(
    'datasets.open',
    { path: file },
  );
  expect(opened.stats.totals.samples).toBe(6);

  // Datasets: the per-question list from the streamed pass; a question read from the file.
  await page.goto(workbench.url);
  const samples = page.getByRole('region', { name: 'Samples' });
  await expect(samples.getByRole('row', { name: /0a995998_abs/ })).toBeVisible();
  await samples.getByRole('row', { name: /1903aded/ }).click();
  const detail = page.getByRole('region', { name: 'Sample 1903aded' });
  await expect(detail.getByRole('checkbox', { name: /6 temporal-reasoning/ })).toBeChecked();
  await page.screenshot({ path: screenshotPath('longmemeval-m-dataset'), fullPage: true });

  // Experiments: the form's estimate and run stream the file as the CLI does.
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Experiments' })
    .click();
  const form = page.getByRole('form', { name: 'New experiment' });
  await expect(form.getByRole('checkbox', { name: /1903aded/ })).toBeChecked();
  await form.getByRole('button', { name: 'Run', exact: true }).click();
  const card = page.getByRole('article').first();
  await expect(card.getByRole('progressbar', { name: /^Run .* progress$/ })).toHaveAttribute(
    'aria-valuenow',
    '100',
    { timeout: 90_000 },
  );
  await expect(card.locator('.status-badge')).toHaveText('completed');
  // The final chart comes with the run's end, not a throttled refetch a second or more later.
  await expect(card.getByRole('figure', { name: /per category/ })).toBeVisible({ timeout: 300 });
  await page.screenshot({ path: screenshotPath('longmemeval-m-run'), fullPage: true });

  const runId = (await card.getAttribute('data-run-id')) ?? '';
  const run = await call<{ summary: { questions: number } }>('runs.get', { runId });
  expect(run.summary.questions).toBeGreaterThan(0);
});
