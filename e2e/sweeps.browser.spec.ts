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

  const cells = page.getByRole('table', { name: 'Sweep cells' });
  await expect(cells.getByRole('row')).toHaveCount(5);
  await expect(cells.getByRole('row').nth(4)).toContainText('text');
  await page.screenshot({ path: screenshotPath('sweeps') });

  // The text × 10 cell opens its run in the Runs view.
  await heatmap.getByRole('row', { name: /^text/ }).getByRole('button').last().click();
  await expect(page).toHaveURL(new RegExp(`#/runs\\?run=${runIds[3]}`));
});
