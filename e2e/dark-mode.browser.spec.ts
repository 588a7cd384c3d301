import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Locator, Page } from '@playwright/test';
import { contrastOf } from './contrast';
import { api, expect, MINI, screenshotPath, test } from './fixtures';

/**
 * The app follows the OS theme (prefers-color-scheme): in dark mode the surfaces are dark, and
 * the text on them keeps WCAG's 4.5:1 contrast, as it does in light mode.
 */

/** Every legend entry's text in `chart` (recharts writes it in its series' colour). */
async function expectLegendReadable(page: Page, dark: boolean, chart: Locator) {
  const entries = await chart.locator('.recharts-legend-item-text').all();
  expect(entries.length, 'legend entries').toBeGreaterThan(0);
  for (const entry of entries) {
    await expectReadable(page, dark, { [`legend "${await entry.textContent()}"`]: entry });
  }
}

async function expectReadable(page: Page, dark: boolean, locators: Record<string, Locator>) {
  for (const [name, locator] of Object.entries(locators)) {
    const { ratio, background } = await contrastOf(locator.first());
    expect(ratio, `${name}: contrast ${ratio.toFixed(2)}:1`).toBeGreaterThanOrEqual(4.5);
    if (dark) expect(background, `${name}: background luminance`).toBeLessThan(0.05);
  }
  void page;
}

for (const colorScheme of ['dark', 'light'] as const) {
  test.describe(`${colorScheme} theme`, () => {
    test.use({ colorScheme });

    test(`the run and compare views keep 4.5:1 text in the ${colorScheme} theme`, async ({
      page,
      request,
      workbench,
    }) => {
      const call = api(request, workbench.url);
      const dataset = await call<{ datasetId: string }>('datasets.upload', {
        name: 'mini.json',
        content: readFileSync(MINI, 'utf8'),
      });
      const runIds: string[] = [];
      for (const preset of ['hybrid', 'text']) {
        const { runId } = await call<{ runId: string }>('experiments.start', {
          datasetId: dataset.datasetId,
          samples: ['mini-1'],
          memory: { preset },
        });
        await expect
          .poll(
            async () =>
              (await call<{ info: { status: string } }>('runs.get', { runId })).info.status,
            {
              timeout: 90_000,
            },
          )
          .toBe('completed');
        runIds.push(runId);
      }
      const [hybrid, text] = runIds as [string, string];

      await page.goto(`${workbench.url}#/runs?run=${hybrid}`);
      const overall = page.getByRole('region', { name: 'Overall scores' });
      await expect(overall.locator('.overall-card').first()).toContainText('95% CI');
      const chart = page.getByRole('figure', { name: 'Official F1 per category' });
      await expect(chart.locator('.recharts-errorBar')).not.toHaveCount(0);
      await expectReadable(page, colorScheme === 'dark', {
        heading: page.getByRole('heading', { level: 1 }),
        headline: overall.locator('.overall-value'),
        note: overall.locator('.muted'),
        questionsHeading: page.getByRole('heading', { name: /Questions/ }),
        answerCell: page.getByRole('table').last().getByRole('cell'),
      });
      await expectLegendReadable(
        page,
        colorScheme === 'dark',
        page.getByRole('figure', { name: 'Accuracy as the conversation grows' }),
      );
      // The chart's tick labels are drawn in the theme's ink, not a fixed dark grey.
      const tickFill = await chart
        .locator('.recharts-cartesian-axis-tick-value')
        .first()
        .evaluate((el) => getComputedStyle(el).fill);
      const textColor = await page.locator('body').evaluate((el) => getComputedStyle(el).color);
      if (colorScheme === 'dark') expect(tickFill).not.toBe('rgb(95, 107, 122)');
      expect(textColor).toBe(colorScheme === 'dark' ? 'rgb(228, 232, 239)' : 'rgb(29, 35, 48)');
      await page.screenshot({ path: screenshotPath(`run-view-${colorScheme}-1400`) });

      // A saved figure is for a white page: the theme's variables are resolved to light colours.
      const svgDownload = page.waitForEvent('download');
      await page
        .getByRole('group', { name: 'Save figure: Official F1 per category' })
        .getByRole('button', { name: 'SVG' })
        .click();
      // Saved under its own name: Chromium opens a file by its extension.
      const svgPath = test.info().outputPath('figure.svg');
      await (await svgDownload).saveAs(svgPath);
      const svg = readFileSync(svgPath, 'utf8');
      expect(svg).not.toContain('var(--');
      expect(svg).toContain('fill="#5f6b7a"');
      const figure = await page.context().newPage();
      await figure.goto(pathToFileURL(svgPath).href);
      await figure.screenshot({ path: screenshotPath(`saved-figure-${colorScheme}`) });
      await figure.close();

      for (const width of [1400, 1024]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${workbench.url}#/compare?runs=${hybrid},${text}&base=${hybrid}`);
        const categories = page.getByRole('region', { name: 'Per category' });
        await expect(categories.locator('.recharts-errorBar')).not.toHaveCount(0);
        const questions = page.getByRole('region', { name: 'Questions' });
        await expectReadable(page, colorScheme === 'dark', {
          heading: page.getByRole('heading', { level: 1, name: 'Compare' }),
          caption: categories.locator('caption'),
          exportButton: page.getByRole('button', { name: 'Export report' }),
          questionCount: questions.getByText(/of \d+ questions/),
        });
        await expectLegendReadable(page, colorScheme === 'dark', categories);
        await page.screenshot({ path: screenshotPath(`compare-view-${colorScheme}-${width}`) });
        await categories.screenshot({
          path: screenshotPath(`compare-categories-${colorScheme}-${width}`),
        });
      }

      // The comparison's exported report, as the person it is sent to opens it.
      const reporting = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export report' }).click();
      const reportPath = test.info().outputPath('report.html');
      await (await reporting).saveAs(reportPath);
      const report = await page.context().newPage();
      await report.setViewportSize({ width: 1400, height: 900 });
      await report.goto(pathToFileURL(reportPath).href);
      await expect(report.getByRole('region', { name: 'Headline' })).toBeVisible();
      await report.screenshot({
        path: screenshotPath(`compare-report-${colorScheme}`),
        fullPage: true,
      });
      await report.close();
    });
  });
}
