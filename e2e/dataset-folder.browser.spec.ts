import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, screenshotPath, test } from './fixtures';

/**
 * Browser mode opens a file by path from the page: the Datasets view lists the `.json` files in
 * the server's `--dataset-dir` folder, and the chosen one opens on the server, as a LongMemEval M
 * too large to upload would. Nothing outside the folder is offered.
 */
// In the test output folder (not committed), so every process that loads this spec reuses it.
const root = resolve('test-results/dataset-folder');
const folder = join(root, 'datasets');
mkdirSync(folder, { recursive: true });
copyFileSync(
  resolve('tests/fixtures/longmemeval/longmemeval_s.json'),
  join(folder, 'longmemeval_m.json'),
);
writeFileSync(join(folder, 'notes.txt'), 'not a dataset');
writeFileSync(join(root, 'outside.json'), '[]');

test.use({ serveArgs: ['--dataset-dir', folder] });

test('the Datasets view opens a file in the server folder by path', async ({ page, workbench }) => {
  await page.goto(workbench.url);
  const picker = page.getByRole('combobox', { name: 'Server folder' });
  await expect(picker.getByRole('option')).toHaveText([
    'Open a file by path…',
    /^longmemeval_m\.json \(\d/,
  ]);
  await picker.selectOption({
    label: (await picker.getByRole('option').nth(1).textContent()) ?? '',
  });

  const samples = page.getByRole('region', { name: 'Samples' });
  await expect(samples.getByRole('row', { name: /0a995998_abs/ })).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Dataset' })).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('dataset-folder-picker'), fullPage: true });
});
