import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Locator, Page } from '@playwright/test';
import { contrastOf } from './contrast';
import { expect, MINI, screenshotPath, test } from './fixtures';

/**
 * Issue 38 items 5 and 6 on the Runs and Sweeps views, with runs made the way a researcher makes
 * them at scale: a sweep from the CLI on a dataset in the server's folder, and a full run beside
 * it. Sweep cells are named from their grid point and found by sweep and sample; a one-sample
 * cell is marked beside its score; a damaged run says what is damaged.
 */
// In the test output folder (not committed), so every process that loads this spec reuses it.
const folder = resolve('test-results/runs-sweep-scale/datasets');
mkdirSync(folder, { recursive: true });
const DATA = join(folder, 'mini.json');
copyFileSync(MINI, DATA);

test.use({ serveArgs: ['--dataset-dir', folder] });

function cli(args: string[]): string {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src-main/cli/main.ts', ...args], {
    encoding: 'utf8',
    timeout: 180_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

const bodyRows = (table: Locator) => table.getByRole('rowgroup').nth(1).getByRole('row');

async function sameLine(page: Page, group: Locator): Promise<number> {
  void page;
  const tops = await group
    .getByRole('button')
    .evaluateAll((buttons) => buttons.map((b) => Math.round(b.getBoundingClientRect().top)));
  return new Set(tops).size;
}

test('the runs list at sweep scale: named cells, found by sweep and sample, marked by sample set', async ({
  page,
  workbench,
}) => {
  test.setTimeout(300_000);
  const spec = join(workbench.dataDir, 'grid.yaml');
  writeFileSync(
    spec,
    [
      'name: grid',
      `base: { datasetPath: ${JSON.stringify(DATA)}, samples: [mini-1] }`,
      'axes:',
      '  memory.preset: [hybrid, text]',
      '',
    ].join('\n'),
  );
  const sweepOut = cli(['sweep', 'run', spec, '--data-dir', workbench.dataDir]);
  const cells = sweepOut
    .split('\n')
    .filter((l) => l.includes('\tcompleted\t'))
    .map((l) => l.split('\t')[2] ?? '');
  expect(cells).toHaveLength(2);
  // A full run on both samples, from the same file.
  const full = (
    JSON.parse(cli(['experiment', '--data', DATA, '--data-dir', workbench.dataDir, '--json'])) as {
      runId: string;
    }
  ).runId;
  // A third run whose stored summary got damaged: the list must say so, not hide it.
  const damaged = (
    JSON.parse(
      cli([
        'experiment',
        '--data',
        DATA,
        '--samples',
        'mini-2',
        '--data-dir',
        workbench.dataDir,
        '--json',
      ]),
    ) as { runId: string }
  ).runId;
  const db = new Database(join(workbench.dataDir, 'runs.db'));
  db.prepare('UPDATE runs SET summary = ? WHERE id = ?').run('{"not a summary', damaged);
  db.close();
  const sweepId = /\nsweep (\S+?):/.exec(sweepOut)?.[1] ?? '';

  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`${workbench.url}#/runs?run=${cells[0]}`);
  const table = page.getByRole('table', { name: 'Runs' });
  await expect(bodyRows(table)).toHaveCount(4);

  // Samples is shown at 1400 px, with which samples a run answered.
  await expect(table.getByRole('columnheader', { name: 'Samples' })).toBeVisible();
  const hybridCell = table.getByRole('row', { name: new RegExp(cells[0]!) });
  const textCell = table.getByRole('row', { name: new RegExp(cells[1]!) });
  const fullRow = table.getByRole('row', { name: new RegExp(full) });
  // Named from the sweep and the grid point, not "—".
  await expect(hybridCell).toContainText('grid · memory.preset=hybrid');
  await expect(textCell).toContainText('grid · memory.preset=text');
  await expect(hybridCell).toContainText('1 sample: mini-1');
  await expect(fullRow).toContainText('2 samples: mini-1, mini-2');
  // The one-sample cells are marked beside their score; the full run is not.
  await expect(hybridCell.locator('.run-mark')).toHaveText('1 sample');
  await expect(fullRow.locator('.run-mark')).toHaveCount(0);
  // The damaged run shows what is damaged.
  await expect(table.getByRole('row', { name: new RegExp(damaged) })).toContainText(
    /damaged: summary/,
  );
  await page.screenshot({ path: screenshotPath('runs-sweep-scale-1400') });

  // Sorted by score, no one-sample run stands unmarked among full runs; grouped by sample set,
  // the full runs come first whatever their score.
  const f1Head = table.getByRole('columnheader', { name: 'Overall F1' });
  for (let i = 0; i < 3 && (await f1Head.getAttribute('aria-sort')) !== 'descending'; i++)
    await f1Head.getByRole('button').click();
  await expect(f1Head).toHaveAttribute('aria-sort', 'descending');
  for (const row of await bodyRows(table).all()) {
    const text = (await row.textContent()) ?? '';
    if (text.includes('1 sample:')) await expect(row.locator('.run-mark')).toHaveCount(1);
  }
  await page.getByRole('checkbox', { name: 'Group by sample set' }).check();
  await expect(bodyRows(table).first()).toContainText(full);
  await expect(page).toHaveURL(/rgroup=set/);
  await page.screenshot({ path: screenshotPath('runs-sweep-grouped-1400') });

  // Found by sweep name, sweep id and sample id.
  const search = page.getByRole('searchbox', { name: 'Search runs' });
  await search.fill('grid');
  await expect(bodyRows(table)).toHaveCount(2);
  await search.fill(sweepId);
  await expect(bodyRows(table)).toHaveCount(2);
  await search.fill('mini-2');
  await expect(bodyRows(table)).toHaveCount(2);
  await expect(table.getByRole('row', { name: new RegExp(full) })).toBeVisible();
  await search.fill('');

  // Run ids read at 4.5:1, plain and on the selected row, in both themes.
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const [what, row] of [
      ['selected', hybridCell],
      ['plain', fullRow],
    ] as const) {
      const { ratio } = await contrastOf(row.getByRole('button', { name: /^\d{8}-/ }));
      expect(ratio, `${colorScheme} ${what} run id: ${ratio.toFixed(2)}:1`).toBeGreaterThanOrEqual(
        4.5,
      );
    }
    await page.screenshot({ path: screenshotPath(`runs-sweep-scale-${colorScheme}-1400`) });
    await page.setViewportSize({ width: 1024, height: 768 });
    await expect(table.getByRole('columnheader', { name: 'Samples' })).toBeVisible();
    await page.screenshot({ path: screenshotPath(`runs-sweep-scale-${colorScheme}-1024`) });
    await page.setViewportSize({ width: 1400, height: 900 });
  }
  await page.emulateMedia({ colorScheme: 'light' });

  // The metric switch stays on one row of its half-width panel.
  const byCategory = page.getByRole('region', { name: 'Per category' });
  const metric = byCategory.getByRole('group', { name: 'Metric' });
  await expect(metric.getByRole('button', { name: 'Set F1', exact: true })).toBeVisible();
  expect(await metric.getByRole('button').count()).toBeGreaterThanOrEqual(6);
  expect(await sameLine(page, metric)).toBe(1);

  // The dataset lies in the server's folder: an answer's evidence shows its turns without a
  // trip to the Datasets view.
  await page
    .getByRole('table', { name: 'Questions' })
    .getByRole('button', { name: 'Where did Ann move?' })
    .click();
  const panel = page.getByRole('complementary', { name: 'Retrieved memories' });
  await expect(panel.getByText('Evidence', { exact: true })).toBeVisible();
  await expect(panel).not.toContainText('is not open');
  await expect(panel.getByRole('list', { name: 'Retrieved memories in rank order' })).toContainText(
    'I moved to Paris.',
  );

  // The heatmap offers only what the sweep's runs have: no judge, no LongMemEval metric.
  await page.goto(`${workbench.url}#/sweeps`);
  const heatmapMetric = page.getByRole('combobox', { name: 'Metric' });
  await expect(heatmapMetric.getByRole('option', { name: 'Official F1' })).toBeAttached();
  const offered = await heatmapMetric.getByRole('option').allTextContents();
  expect(
    offered.some((o) => /judge|LongMemEval|recall_any/i.test(o)),
    offered.join(', '),
  ).toBe(false);
});
