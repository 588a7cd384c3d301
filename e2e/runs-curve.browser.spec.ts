import { readFileSync } from 'node:fs';
import { FIGURES_FIXTURE } from '../scripts/figure-gallery';
import { readSvgFigure } from '../tests/support/svgFigure';
import { expect, runCli, screenshotPath, test } from './fixtures';

/**
 * The curve's x axis on screen and as saved at one-column width, on the gallery's fixture (tests
 * after 2 to 48 dialogs): 4 to 6 round ticks where it had two (20 and 40).
 */
const numeric = (texts: readonly string[]): number[] =>
  texts.filter((t) => /^[\d,]+$/.test(t.trim())).map((t) => Number(t.replace(/,/g, '')));

function expectReadable(ticks: readonly number[], where: string): void {
  expect(ticks.length, `${where}: ${ticks.join(' ')}`).toBeGreaterThanOrEqual(4);
  expect(ticks.length, `${where}: ${ticks.join(' ')}`).toBeLessThanOrEqual(6);
  const step = (ticks[1] ?? 0) - (ticks[0] ?? 0);
  ticks.forEach((t, i) => expect(t, where).toBe((ticks[0] ?? 0) + i * step));
}

test('the curve has 4 to 6 round x ticks on screen and in the saved one-column figure', async ({
  page,
  workbench,
}) => {
  const made = await runCli([
    'experiment',
    '--data',
    FIGURES_FIXTURE,
    '--data-dir',
    workbench.dataDir,
    '--json',
  ]);
  const { runId } = JSON.parse(made) as { runId: string };

  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`${workbench.url}#/runs?run=${runId}&curve=each`);
  // Step by step, as the view fills in: the list, then the run's detail (its curve comes with
  // it), then the chart, drawn a task later.
  await expect(page.getByRole('table', { name: 'Runs' })).toContainText(runId);
  await expect(page.getByRole('status').filter({ hasText: 'Loading run…' })).toHaveCount(0);
  const curve = page.getByRole('figure', { name: 'Accuracy as the conversation grows' });
  // recharts draws tick labels in a layer of their own: the x axis' are the row below the plot.
  const labels = curve.locator('.recharts-cartesian-axis-tick-value');
  await expect(labels.first()).toBeVisible();
  await curve.scrollIntoViewIfNeeded();
  const placed = await labels.evaluateAll((nodes) =>
    nodes.map((n) => [n.textContent ?? '', Math.round(n.getBoundingClientRect().top)] as const),
  );
  const bottomRow = Math.max(...placed.map(([, top]) => top));
  expectReadable(
    numeric(placed.filter(([, top]) => top === bottomRow).map(([text]) => text)),
    'on screen',
  );
  await page.screenshot({ path: screenshotPath('runs-curve-ticks') });

  const group = page.getByRole('group', {
    name: 'Save figure: Accuracy as the conversation grows',
  });
  await group.getByLabel('Figure width').selectOption('one-column');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    group.getByRole('button', { name: 'SVG', exact: true }).click(),
  ]);
  const saved = readSvgFigure(readFileSync((await download.path()) ?? '', 'utf8'));
  expectReadable(
    numeric(saved.items.filter((i) => i.role === 'tick').map((i) => i.text ?? '')),
    'saved',
  );
});
