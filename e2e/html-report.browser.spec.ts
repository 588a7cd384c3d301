import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, MINI, screenshotPath, test } from './fixtures';

/**
 * The HTML reports written by the CLI (`report <run> --html`, `report <a> <b> --html`), opened from
 * file:// in real Chromium: each is one self-contained file that asks for nothing but itself
 * (every request is intercepted and recorded), and what it shows renders (whiskers, legends,
 * a flip opened on its explanation).
 */
const dir = mkdtempSync(join(tmpdir(), 'mw-e2e-report-'));
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: readonly string[]): string {
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'src-main/cli/main.ts', ...args, '--runs-db', join(dir, 'runs.db')],
    { encoding: 'utf8', env: { ...process.env, MEMORY_WORKBENCH_DATA: join(dir, 'data') } },
  );
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

/** Opens the file with every request routed through here; returns the URLs it asked for. */
async function openRecorded(page: Page, file: string): Promise<string[]> {
  const requested: string[] = [];
  await page.route('**/*', async (route) => {
    requested.push(route.request().url());
    if (route.request().url() === pathToFileURL(file).href) await route.continue();
    else await route.abort();
  });
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  return requested;
}

test('the run and comparison reports open from file:// asking for nothing but themselves', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1200, height: 900 });
  const experiment = (preset: string): string =>
    (
      JSON.parse(
        cli([
          'experiment',
          '--data',
          MINI,
          '--preset',
          preset,
          '--name',
          `${preset} run`,
          '--json',
        ]),
      ) as { runId: string }
    ).runId;
  const a = experiment('text');
  const b = experiment('hybrid');
  const runReport = join(dir, 'run.html');
  const compareReport = join(dir, 'compare.html');
  cli(['report', a, '--html', '--out', runReport]);
  cli(['report', a, b, '--html', '--out', compareReport]);

  expect(await openRecorded(page, runReport)).toEqual([pathToFileURL(runReport).href]);
  const perCategory = page.getByRole('region', { name: 'Per category' });
  await expect(perCategory.locator('svg .whisker').first()).toBeVisible();
  await expect(page.getByRole('region', { name: 'Curve' }).locator('.axis-title')).toHaveText([
    'test # (samples averaged)',
    'mean score',
  ]);
  await page.screenshot({ path: screenshotPath('html-run-report'), fullPage: true });

  await page.unroute('**/*');
  expect(await openRecorded(page, compareReport)).toEqual([pathToFileURL(compareReport).href]);
  const legend = page.getByRole('region', { name: 'Per category' }).locator('.legend-item');
  await expect(legend).toHaveCount(2);
  await expect(legend.nth(1)).toContainText('B · hybrid run');
  const flip = page.locator('details.explain').first();
  await flip.locator('summary').click();
  await expect(flip.getByRole('region', { name: 'Run A' })).toContainText('Recall@');
  await expect(flip.getByRole('region', { name: 'Run B' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Manifests' })).toContainText('memory.preset');
  await page.screenshot({ path: screenshotPath('html-compare-report'), fullPage: true });
});
