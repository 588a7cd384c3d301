import type { PackResults } from '../src-shared/reproduce';
import { MINI, api, expect, openWithMini, runCli, screenshotPath, test } from './fixtures';

/**
 * Issue 38 item 1: a pack run by `cli reproduce` into the server's data folder is what the
 * Reproduce view shows: its Ours cells filled from the stored runs, each row's status, sample set
 * and the command on the user's file; `cli reproduce --show` reads the same results.
 */

test('a pack run by the CLI fills the Ours cells of the Reproduce view, naming the user’s file', async ({
  page,
  request,
  workbench,
}) => {
  // Five offline rows of one sample each, through the CLI's whole pack path.
  test.setTimeout(300_000);
  await openWithMini(page, workbench);
  const data = ['--data-dir', workbench.dataDir];
  await runCli(['reproduce', 'locomo-table2', '--data', MINI, '--samples', 'mini-1', ...data]);

  const results = await api(request, workbench.url)<PackResults>('reproduce.results', {
    packId: 'locomo-table2',
  });
  // The CLI's --show reads exactly what the API serves.
  const shown = JSON.parse(
    await runCli(['reproduce', 'locomo-table2', '--show', '--json', ...data]),
  ) as PackResults & { pack: string };
  expect(shown).toEqual({ pack: 'locomo-table2', ...results });
  const rows = results.rows.map((r) => r.row);
  expect(rows.length).toBeGreaterThan(0);

  // `reproduce list` says which packs hold runs; the view opens on the one just run, unasked
  // (it opened on the first runnable pack, mem0-table1, with nothing of the CLI's runs in sight).
  const listed = (await runCli(['reproduce', 'list', ...data])).split('\n');
  expect(listed.find((line) => line.startsWith('locomo-table2\t'))).toMatch(
    new RegExp(`\tstored runs: ${rows.length} of \\d+ rows$`),
  );
  expect(listed.find((line) => line.startsWith('mem0-table1\t'))).not.toContain('stored runs');
  await page.goto(`${workbench.url}#/reproduce`);
  await expect(page.getByLabel('Pack')).toHaveValue('locomo-table2');
  await expect(page.getByLabel('Pack').locator('option:checked')).toContainText(
    `stored runs: ${rows.length} of`,
  );
  await expect(
    page.getByRole('heading', { level: 2, name: /LoCoMo paper, Table 2/ }),
  ).toBeVisible();
  // The view's own command names the uploaded file by its name, not the data folder's copy.
  await expect(page.getByLabel('CLI command')).toHaveText(
    'npm run -s cli -- reproduce locomo-table2 --data mini.json',
  );

  const stored = page.getByRole('table', { name: 'Stored runs' });
  await expect(stored.getByRole('row')).toHaveCount(rows.length + 1);
  for (const row of rows) {
    const line = stored
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: row, exact: true }) });
    await expect(line).toContainText('complete: 1 run(s); sample(s) mini-1 only');
    await expect(line).toContainText("offline, not the paper's setting");
    // The command remakes the row on the file the CLI was given, with its sample set.
    await expect(line.getByRole('cell').nth(2)).toHaveText(
      `npm run -s cli -- reproduce locomo-table2 --data ${MINI} --samples mini-1`,
    );
  }

  const table = page.getByRole('table', { name: 'Paper vs ours' });
  const overall = (row: string) =>
    table
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: row, exact: true }) })
      .filter({ has: page.getByRole('cell', { name: 'overall', exact: true }) });
  for (const row of rows) {
    const cell = results.cells.find((c) => c.row === row && c.cell === 'overall')!;
    expect(cell.ours).not.toBeNull();
    // Cells: metric, cell, paper, ours, ours − paper; ours and the difference as stored.
    await expect(overall(row).getByRole('cell').nth(3)).toHaveText(cell.ours!.toFixed(1));
    await expect(overall(row).getByRole('cell').nth(4)).toHaveText(
      `${cell.diff! >= 0 ? '+' : ''}${cell.diff!.toFixed(1)}`,
    );
  }
  // A paper-only row keeps its figure beside no ours.
  await expect(overall('human').getByRole('cell').nth(2)).toHaveText('87.9');
  await expect(overall('human').getByRole('cell').nth(3)).toHaveText('–');
  // The view scrolls inside its pane: a viewport as tall as the page shows all of it.
  const height = await page.evaluate(
    () => (document.getElementById('main-content')?.scrollHeight ?? 0) + 40,
  );
  await page.setViewportSize({ width: 1400, height: Math.max(900, height) });
  await page.screenshot({ path: screenshotPath('reproduce-stored'), fullPage: true });
});
