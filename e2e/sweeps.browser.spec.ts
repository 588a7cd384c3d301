import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, MINI, screenshotPath, test } from './fixtures';

test('shows a sweep run from the CLI as a heatmap and a cells table, and opens a cell’s run', async ({
  page,
  workbench,
}) => {
  // The sweep runs as a user would run it: `cli sweep run` into the server's runs database.
  const spec = join(workbench.dataDir, 'grid.yaml');
  writeFileSync(
    spec,
    [
      'name: grid',
      `base: { datasetPath: ${JSON.stringify(MINI)}, samples: [mini-1] }`,
      'axes:',
      '  memory.preset: [hybrid, text]',
      '  retrieval.topK: [1, 10]',
      '',
    ].join('\n'),
  );
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'src-main/cli/main.ts',
      'sweep',
      'run',
      spec,
      '--data-dir',
      workbench.dataDir,
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  expect(run.status, run.stderr).toBe(0);
  const runIds = run.stdout
    .split('\n')
    .filter((l) => l.includes('\tcompleted\t'))
    .map((l) => l.split('\t')[2]);
  expect(runIds).toHaveLength(4);

  await page.goto(`${workbench.url}#/sweeps`);
  await expect(page.getByRole('heading', { level: 1, name: 'Sweeps' })).toBeVisible();
  const heatmap = page.getByRole('table', { name: 'Sweep heatmap' });
  // Rows: the first axis; columns: the last, in the spec's order.
  await expect(heatmap.getByRole('rowheader')).toHaveText(['hybrid', 'text']);
  await expect(heatmap.getByRole('columnheader')).toHaveText(['memory.preset', '1', '10']);
  await expect(heatmap.getByRole('cell').first()).toHaveText(/^\d\.\d{3}$/);
  await expect(heatmap.getByRole('cell').first()).toHaveAttribute(
    'title',
    /Official F1 .* over 1 run/,
  );

  // The colours span the metric's registered range (F1: 0-1) unless the cells' range is chosen;
  // the note under the title says which, and the choice is kept in the URL.
  const note = page.getByRole('note').filter({ hasText: 'colour scale' });
  await expect(note).toHaveText("The colour scale spans the metric's full range, 0.00–1.00.");
  const alphas = async (): Promise<Array<[number, number]>> =>
    heatmap
      .getByRole('cell')
      .evaluateAll((tds) =>
        tds.map((td) => [
          Number(td.textContent),
          Number(/rgba\([^)]*,\s*([\d.]+)\)/.exec((td as HTMLElement).style.background)?.[1]),
        ]),
      );
  // On the metric's range a cell's shade is its value's: 0.08 + 0.27 × value.
  for (const [value, alpha] of await alphas()) expect(alpha).toBeCloseTo(0.08 + 0.27 * value, 2);
  await page.getByLabel('Colour scale').selectOption('data');
  await expect(page).toHaveURL(/scale=data/);
  await expect(note).toHaveText(
    /^The colour scale spans only the cells' range, \d\.\d{3}–\d\.\d{3}, so a small difference looks large\.$/,
  );
  // On the cells' range the lowest cell is the palest and the highest the deepest.
  const spread = (await alphas()).map(([, alpha]) => alpha);
  expect(Math.min(...spread)).toBeCloseTo(0.08, 2);
  expect(Math.max(...spread)).toBeCloseTo(0.35, 2);
  await page.screenshot({ path: screenshotPath('sweeps-data-scale') });
  await page.getByLabel('Colour scale').selectOption('metric');
  await expect(page).not.toHaveURL(/scale=/);

  const cells = page.getByRole('table', { name: 'Sweep cells' });
  await expect(cells.getByRole('row')).toHaveCount(5);
  await expect(cells.getByRole('row').nth(4)).toContainText('text');
  await page.screenshot({ path: screenshotPath('sweeps') });

  // The text × 10 cell opens its run in the Runs view.
  await heatmap.getByRole('row', { name: /^text/ }).getByRole('button').last().click();
  await expect(page).toHaveURL(new RegExp(`#/runs\\?run=${runIds[3]}`));
  // The cell reads as the Runs list names it, from its sweep and grid point: in the run's header
  // and in the Compare picker, never "(no name)".
  const cellName = 'grid · memory.preset=text,retrieval.topK=10';
  const header = page.getByRole('region', { name: 'Run name, tags and notes' });
  await expect(header.locator('strong').first()).toHaveText(cellName);
  await expect(
    page.getByRole('table', { name: 'Runs' }).getByRole('row', { name: new RegExp(runIds[3]!) }),
  ).toContainText(cellName);
  await page.goto(`${workbench.url}#/compare`);
  const picker = page.getByRole('table', { name: 'Runs to compare' });
  await expect(
    picker.getByRole('row', { name: new RegExp(runIds[3]!) }).locator('.run-picker-label strong'),
  ).toHaveText(cellName);
});
