import { expect, openWithMini, screenshotPath, test } from './fixtures';

test('a run is named, tagged and annotated at launch, edited later, and found by name in Compare', async ({
  page,
  workbench,
}) => {
  await page.setViewportSize({ width: 1440, height: 1200 });
  await openWithMini(page, workbench);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Experiments' })
    .click();

  const form = page.getByRole('form', { name: 'New experiment' });
  const launch = async (name: string, tags: string, notes: string, preset: string) => {
    await form.getByRole('button', { name: 'First sample only' }).click();
    await form.getByLabel('Memory preset').selectOption(preset);
    await form.getByLabel('Run name').fill(name);
    await form.getByLabel('Tags').fill(tags);
    await form.getByLabel('Notes').fill(notes);
    const before = await page.getByRole('article').count();
    await form.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(page.getByRole('article')).toHaveCount(before + 1);
    await expect(page.getByRole('article').first().locator('.status-badge')).toHaveText(
      'completed',
      { timeout: 60_000 },
    );
  };
  await launch('text only', 'baseline, offline', 'bm25-style text index', 'text');
  await form.screenshot({ path: screenshotPath('experiments-run-identity') });
  await launch('hybrid default', 'offline', '', 'hybrid');

  // The Runs table shows the name, the tags and the settings that tell runs apart.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
  const table = page.getByRole('table', { name: 'Runs' });
  const textRow = table.getByRole('row', { name: /text only/ });
  await expect(textRow).toContainText('baseline');
  await expect(textRow).toContainText('offline');
  // Header texts without the sort marks (↕ ▲ ▼) of sortable columns.
  const header = (await table.getByRole('columnheader').allTextContents()).map((h) =>
    h.replace(/[↕▲▼]/g, '').trim(),
  );
  for (const column of ['Name', 'Top-k', 'Seed', 'Answerer', 'Judge', 'Questions'])
    expect(header).toContain(column);
  const cell = (name: string) => textRow.getByRole('cell').nth(header.indexOf(name));
  await expect(cell('Top-k')).toHaveText('10');
  await expect(cell('Seed')).toHaveText('42');
  await expect(cell('Answerer')).toHaveText(/extractive/);
  await expect(cell('Judge')).toHaveText('none');
  await expect(cell('Questions')).toHaveText('7');

  // Edited later: the run's name, tags and notes.
  await textRow.getByRole('button').first().click();
  const identity = page.getByRole('region', { name: 'Run name, tags and notes' });
  await expect(identity).toContainText('text only');
  await expect(identity).toContainText('bm25-style text index');
  await identity.getByRole('button', { name: 'Edit name, tags, notes' }).click();
  const editor = page.getByRole('form', { name: 'Edit run name, tags and notes' });
  await expect(editor.getByLabel('Tags')).toHaveValue('baseline, offline');
  await editor.getByLabel('Run name').fill('text index');
  await editor.getByLabel('Tags').fill('baseline, ablation');
  await editor.getByRole('button', { name: 'Save' }).click();
  await expect(identity).toContainText('text index');
  await expect(table.getByRole('row', { name: /text index/ })).toContainText('ablation');
  await page.screenshot({ path: screenshotPath('runs-identity'), fullPage: true });
  // It is stored: a reload shows it.
  await page.reload();
  await expect(
    page.getByRole('table', { name: 'Runs' }).getByRole('row', { name: /text index/ }),
  ).toBeVisible();

  // Compare: the picker searches names and tags, and the picked runs stay on top and in view.
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Compare' })
    .click();
  const picker = page.getByRole('table', { name: 'Runs to compare' });
  const search = page.getByRole('searchbox', { name: 'Search runs' });
  await search.fill('ablation');
  await expect(picker.getByRole('row')).toHaveCount(2);
  await picker.getByRole('checkbox', { name: /^Compare text / }).check();
  await search.fill('hybrid default');
  // The picked run stays listed (first) while the search shows the other.
  await expect(picker.getByRole('row')).toHaveCount(3);
  await expect(picker.getByRole('row').nth(1)).toContainText('text index');
  await expect(picker.getByRole('checkbox', { name: /^Compare text / })).toBeChecked();
  await picker.getByRole('checkbox', { name: /^Compare hybrid / }).check();
  await search.fill('no such run');
  await expect(picker.getByRole('row')).toHaveCount(3);
  await expect(page.getByRole('region', { name: 'Questions' })).toBeVisible();
  await page
    .getByRole('region', { name: 'Runs', exact: true })
    .screenshot({ path: screenshotPath('compare-run-picker') });
});
