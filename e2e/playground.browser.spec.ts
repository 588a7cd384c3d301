import { expect, openWithMini, screenshotPath, test } from './fixtures';

test("a typed query is scored against no question, or one the user picks, never the previous question's evidence", async ({
  page,
  workbench,
}) => {
  await page.setViewportSize({ width: 1440, height: 1100 });
  await openWithMini(page, workbench);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Collections' })
    .click();
  await page
    .getByRole('group', { name: 'New from preset' })
    .getByRole('button', { name: 'hybrid' })
    .click();
  const playground = page.getByRole('region', { name: 'Playground' });
  await playground.getByLabel('Sample').selectOption('mini-1');
  await playground.getByRole('button', { name: 'Build playground' }).click();
  await expect(playground.getByText('Ready: 8 turns of mini-1')).toBeVisible();

  // A picked question: its evidence (D1:1) is marked and recall@k is shown.
  await playground
    .getByLabel('Question from the sample')
    .selectOption({ label: '#1 Where did Ann move?' });
  const fused = playground.getByRole('region', { name: 'Fused results' });
  await expect(fused.getByText('recall@10 1.00 (1/1)')).toBeVisible();
  await expect(fused.locator('[data-evidence="true"]')).toHaveCount(1);
  await expect(playground.getByLabel('Score against')).toHaveValue('0');

  // Typed over it: the user's own query, scored against nothing.
  await playground.getByLabel('Query').fill('dog on a beach');
  await expect(playground.getByLabel('Question from the sample')).toHaveValue('');
  await expect(playground.getByLabel('Score against')).toHaveValue('');
  await playground.getByRole('button', { name: 'Search' }).click();
  // The first hit is the dog photo's caption turn, and nothing is marked as evidence.
  await expect(fused.locator('li').first()).toHaveAttribute('data-dia-id', 'D1:2');
  await expect(playground.locator('[data-evidence="true"]')).toHaveCount(0);
  await expect(playground.getByText(/recall@\d+/)).toHaveCount(0);
  await expect(playground.getByText(/^Scored against/)).toHaveCount(0);

  // The user may pick a question to score the typed query against.
  await playground.getByLabel('Score against').selectOption({ label: '#1 Where did Ann move?' });
  await expect(playground.getByText('Scored against #1:')).toBeVisible();
  await expect(fused.getByText(/^recall@10 /)).toBeVisible();
  await expect(fused.locator('[data-dia-id="D1:1"]')).toHaveAttribute('data-evidence', 'true');

  // The result columns share the panel's width instead of leaving most of it empty.
  const row = await playground.locator('.result-columns').boundingBox();
  const columns = await playground.getByRole('region', { name: /results$/ }).all();
  expect(columns.length).toBe(3);
  let used = 0;
  for (const column of columns) used += (await column.boundingBox())?.width ?? 0;
  expect(row).not.toBeNull();
  // Three columns and two 10px gaps fill the row.
  expect(used + 20).toBeGreaterThan((row?.width ?? 0) - 4);
  await playground.screenshot({ path: screenshotPath('playground-typed-query') });
});
