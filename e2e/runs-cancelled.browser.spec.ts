import { resolve } from 'node:path';
import type { Locator } from '@playwright/test';
import { api, expect, MINI, openWithMini, runCli, screenshotPath, test } from './fixtures';

/**
 * Issue 38 item 5 for a cancelled run, in the browser: a run cancelled with its card's Cancel
 * button (after some tests, so it has a score) is marked "partial" in the Runs list, and a sort
 * by F1 never ranks it unmarked beside a full run on the same samples.
 */
test.use({
  viewport: { width: 1400, height: 900 },
  // The test-only presets (an insert that never settles on request) load in `serve` through this.
  serveEnv: {
    MEMORY_WORKBENCH_EXTRA_PRESETS: resolve('tests/fixtures/experiment/test-presets.ts'),
  },
});

const bodyRows = (table: Locator) => table.getByRole('rowgroup').nth(1).getByRole('row');

test('a cancelled run is marked partial in the Runs list, also when sorted by F1', async ({
  page,
  workbench,
  request,
}) => {
  test.setTimeout(180_000);
  // A full run on both samples of the same file, made as a researcher makes one: the CLI.
  const made = await runCli([
    'experiment',
    '--data',
    MINI,
    '--data-dir',
    workbench.dataDir,
    '--json',
  ]);
  const full = (JSON.parse(made) as { runId: string }).runId;

  await openWithMini(page, workbench);
  const call = api(request, workbench.url);
  const datasets = await call<{ datasetId: string }[]>('datasets.list', {});
  const { runId: cancelled } = await call<{ runId: string }>('experiments.start', {
    datasetId: datasets[0]?.datasetId,
    samples: ['mini-1', 'mini-2'],
    // The fourth insert of each sample hangs until its timeout, with some tests committed: the run
    // holds there for 20 s, time enough to cancel it. A cancel waits for the insert in flight
    // (it is not aborted), so the run is cancelled when that insert times out.
    memory: { preset: 'test-recency', config: { hangInsertPackets: [3] } },
    answerer: { kind: 'extractive' },
    timeouts: { insertMs: 20_000, answerMs: 5000 },
  });
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Experiments' })
    .click();
  const card = page.getByRole('article', { name: `Run ${cancelled}` });
  // "Tests committed" reads "n / m": wait for a committed test, so the run has answers to score.
  await expect(card.getByRole('definition').nth(2)).toHaveText(/^[1-9]\d* \/ \d+$/, {
    timeout: 60_000,
  });
  await card.getByRole('button', { name: 'Cancel' }).click();
  await expect(card.locator('.status-badge')).toHaveText('cancelled', { timeout: 30_000 });

  await page.goto(`${workbench.url}#/runs?run=${full}`);
  const table = page.getByRole('table', { name: 'Runs' });
  await expect(bodyRows(table)).toHaveCount(2);
  const cancelledRow = table.getByRole('row', { name: new RegExp(cancelled) });
  const fullRow = table.getByRole('row', { name: new RegExp(full) });
  // Both ran the same two samples: only the cancel sets the cancelled run apart.
  await expect(cancelledRow).toContainText('2 samples: mini-1, mini-2');
  await expect(fullRow).toContainText('2 samples: mini-1, mini-2');
  const mark = cancelledRow.locator('.run-mark');
  await expect(mark).toHaveText('partial');
  await expect(mark).toHaveAttribute('title', /^cancelled: \d+ of \d+ questions answered$/);
  await expect(fullRow.locator('.run-mark')).toHaveCount(0);

  // Sorted by F1 either way, the cancelled run has a score to rank by and keeps its mark there.
  const f1Head = table.getByRole('columnheader', { name: 'Overall F1' });
  for (const order of ['descending', 'ascending'] as const) {
    for (let i = 0; i < 3 && (await f1Head.getAttribute('aria-sort')) !== order; i++)
      await f1Head.getByRole('button').click();
    await expect(f1Head).toHaveAttribute('aria-sort', order);
    await expect(bodyRows(table)).toHaveCount(2);
    for (const row of await bodyRows(table).all()) {
      const text = (await row.textContent()) ?? '';
      if (text.includes(cancelled)) {
        await expect(row.locator('.run-mark')).toHaveText('partial');
        await expect(row).toContainText(/partial\s*\d\.\d{3}/);
      } else {
        await expect(row.locator('.run-mark')).toHaveCount(0);
      }
    }
  }
  await page.screenshot({ path: screenshotPath('runs-cancelled-sorted') });
  // Grouped by sample set, the full run leads its set and the partial one follows it.
  await page.getByRole('checkbox', { name: 'Group by sample set' }).check();
  await expect(bodyRows(table).first()).toContainText(full);
  await expect(bodyRows(table).last()).toContainText(cancelled);
});
