import { PYTHON, PYTHON_SERVICE, startHttpService } from '../tests/support/memory-services';
import { expect, openWithMini, test } from './fixtures';

// Your own memory service from the Experiments view: the Python reference service over HTTP on
// 127.0.0.1, chosen as preset "external" with its URL, runs mini-1 to the end.
test('runs mini-1 through an external memory service given by its URL', async ({
  page,
  workbench,
}) => {
  const service = await startHttpService([PYTHON, PYTHON_SERVICE]);
  try {
    await openWithMini(page, workbench);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Experiments' })
      .click();
    const form = page.getByRole('form', { name: 'New experiment' });
    await form.getByRole('button', { name: 'First sample only' }).click();
    await form.getByLabel('Memory preset').selectOption('external');
    // No URL yet: the form says what is missing instead of starting a run that cannot work.
    await expect(form).toContainText('Give the memory service URL');
    await form.getByLabel('Memory service URL').fill(service.url);
    await form.getByRole('button', { name: 'Run', exact: true }).click();
    const card = page.getByRole('article').first();
    await expect(card).toContainText('preset external');
    await expect(card.locator('.status-badge')).toHaveText('completed', { timeout: 60_000 });
    await expect(card).toContainText('5 / 5');
  } finally {
    await service.stop();
  }
});
