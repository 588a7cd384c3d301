import { expect, openWithMini, screenshotPath, test } from './fixtures';

test('designs a collection from the hybrid preset, saves it, and tries it on mini-1', async ({
  page,
  workbench,
}) => {
  // The playground needs an open dataset: open mini.json in the Datasets view first.
  await openWithMini(page, workbench);

  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Collections' })
    .click();
  await expect(page.getByRole('heading', { level: 1, name: 'Collections' })).toBeVisible();
  await expect(page.getByText('No design open.')).toBeVisible();

  await page
    .getByRole('group', { name: 'New from preset' })
    .getByRole('button', { name: 'hybrid' })
    .click();
  const editor = page.getByRole('region', { name: 'Design' });
  await expect(editor.getByRole('region', { name: 'Index text' })).toBeVisible();
  await expect(editor.getByRole('region', { name: 'Index vector' })).toBeVisible();
  await expect(editor.getByLabel('Method')).toHaveValue('weighted');
  await expect(editor.getByLabel('Weight vector')).toHaveValue('0.2');

  // Add a fifo index from the type menu; it gets its own card with a capacity field.
  await editor.getByText('+ Add index').click();
  await editor.getByRole('menuitem', { name: /fifo/ }).click();
  const fifo = editor.getByRole('region', { name: 'Index fifo' });
  await expect(fifo.getByLabel('Capacity')).toHaveValue('20');

  await editor.getByLabel('Design name').fill('my-design');
  await editor.getByRole('button', { name: 'Save as new design' }).click();
  await expect(editor.getByRole('status').filter({ hasText: 'Saved “my-design”.' })).toBeVisible();
  const list = page.getByRole('navigation', { name: 'Saved designs' });
  await expect(list.getByRole('button', { name: /my-design/ })).toContainText(
    'text + vector + fifo · weighted',
  );
  await expect(page).toHaveURL(/design=my-design/);

  // Build the playground over mini-1 (8 turns) and follow the progress bar to the end.
  const playground = page.getByRole('region', { name: 'Playground' });
  await playground.getByLabel('Sample').selectOption('mini-1');
  await playground.getByRole('button', { name: 'Build playground' }).click();
  const progress = playground.getByRole('progressbar', { name: 'Build progress' });
  await expect(progress).toHaveAttribute('aria-valuenow', '100');
  await expect(playground.getByText('Ready: 8 turns of mini-1')).toBeVisible();

  // Picking a question fills the query, searches, and marks its evidence turn in every column.
  await playground
    .getByLabel('Question from the sample')
    .selectOption({ label: '#1 Where did Ann move?' });
  await expect(playground.getByLabel('Query')).toHaveValue('Where did Ann move?');
  const fused = playground.getByRole('region', { name: 'Fused results' });
  await expect(fused).toBeVisible();
  for (const column of ['text', 'vector', 'fifo']) {
    await expect(playground.getByRole('region', { name: `${column} results` })).toBeVisible();
  }
  // D1:1 ("I moved to Paris.") is the only turn with the stem "move": first in the text column.
  // In the fused list the new fifo (weight 1, weighted fusion) lifts the newest turns, but D1:1
  // is still retrieved and marked as the question's evidence.
  const text = playground.getByRole('region', { name: 'text results' });
  await expect(text.locator('li').first()).toHaveAttribute('data-dia-id', 'D1:1');
  await expect(text.locator('li').first()).toHaveAttribute('data-evidence', 'true');
  await expect(text.locator('li').first().getByText('evidence')).toBeVisible();
  await expect(fused.locator('[data-dia-id="D1:1"]')).toHaveAttribute('data-evidence', 'true');
  await expect(fused.locator('[data-evidence="true"]')).toHaveCount(1);
  await expect(fused.getByText('recall@10 1.00 (1/1)')).toBeVisible();
  // The fifo keeps the 20 newest turns: all 8 of mini-1, newest first.
  const fifoColumn = playground.getByRole('region', { name: 'fifo results' });
  await expect(fifoColumn.locator('li')).toHaveCount(8);
  await expect(fifoColumn.locator('li').first()).toHaveAttribute('data-dia-id', 'D10:3');
  await page.screenshot({ path: screenshotPath('collections-editor'), fullPage: true });
  // The view scrolls inside the content pane, so the results get their own element screenshot.
  await playground.screenshot({ path: screenshotPath('collections-playground') });

  // An invalid value is named by its field, and Save waits until it is fixed.
  await fifo.getByLabel('Capacity').fill('0');
  const problems = editor.getByRole('alert', { name: 'Design problems' });
  await expect(problems).toContainText('indexes[2].capacity: must be >= 1');
  await expect(fifo.getByText('must be >= 1')).toBeVisible();
  await problems.scrollIntoViewIfNeeded();
  await expect(editor.getByRole('button', { name: 'Save design' })).toBeDisabled();
  await expect(editor.getByText('unsaved changes')).toBeVisible();
  await page.screenshot({ path: screenshotPath('collections-validation'), fullPage: true });

  // Removing the fifo index breaks nothing else (its weight goes with it)...
  await editor.getByRole('button', { name: 'Remove index fifo' }).click();
  await expect(problems).toHaveCount(0);
  // ...and the playground says it was built from another design.
  await expect(playground.getByRole('note')).toContainText(
    'changed since this playground was built',
  );
  await editor.getByRole('button', { name: 'Save design' }).click();
  await expect(editor.getByRole('status').filter({ hasText: 'Saved “my-design”.' })).toBeVisible();
  await expect(list.getByRole('button', { name: /my-design/ })).toContainText(
    'text + vector · weighted',
  );
  await expect(editor.getByText('unsaved changes')).toHaveCount(0);

  // A reload reopens the saved design from the URL.
  await page.reload();
  await expect(page.getByRole('region', { name: 'Design' }).getByLabel('Design name')).toHaveValue(
    'my-design',
  );
  await expect(page.getByRole('region', { name: 'Index fifo' })).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('collections-saved'), fullPage: true });

  // The saved design runs as an experiment's memory, exactly as designed.
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Experiments' }).click();
  const form = page.getByRole('form', { name: 'New experiment' });
  await form.getByRole('button', { name: 'First sample only' }).click();
  await form.getByLabel('Memory preset').selectOption({ label: 'design: my-design' });
  await form.getByRole('button', { name: 'Run', exact: true }).click();
  const card = page.getByRole('article').first();
  await expect(card).toContainText('preset designed');
  await expect(card.getByRole('progressbar', { name: /^Run .* progress$/ })).toHaveAttribute(
    'aria-valuenow',
    '100',
    { timeout: 60_000 },
  );
  await expect(card.locator('.status-badge')).toHaveText('completed');
  await card.getByRole('button', { name: 'Open results' }).click();
  await expect(page.getByRole('region', { name: 'Manifest' })).toContainText(
    'designed "my-design" (from hybrid)',
  );
  await page.screenshot({ path: screenshotPath('collections-design-run'), fullPage: true });
  await nav.getByRole('link', { name: 'Collections' }).click();
  await list.getByRole('button', { name: /my-design/ }).click();

  // Delete asks first.
  const reloaded = page.getByRole('region', { name: 'Design' });
  await reloaded.getByRole('button', { name: 'Delete design…' }).click();
  await reloaded
    .getByRole('alertdialog', { name: 'Confirm delete' })
    .getByRole('button', { name: 'Delete' })
    .click();
  await expect(page.getByText('No design open.')).toBeVisible();
  await expect(list.getByRole('button', { name: /my-design/ })).toHaveCount(0);
});
