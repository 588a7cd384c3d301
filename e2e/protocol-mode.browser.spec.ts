import { api, expect, openWithMini, screenshotPath, test } from './fixtures';

test.use({ viewport: { width: 1400, height: 1500 } });

test('the form sends the protocol mode as `cli experiment --mode` does; the run shows it', async ({
  page,
  workbench,
  request,
}) => {
  await openWithMini(page, workbench);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Experiments' })
    .click();
  const form = page.getByRole('form', { name: 'New experiment' });
  await form.getByRole('button', { name: 'First sample only' }).click();
  const mode = form.getByRole('combobox', { name: 'Protocol mode' });
  await expect(mode).toHaveValue('stream');
  const estimate = form.getByRole('status', { name: 'Estimate' });
  // The planner counts the mode: mini-1 streamed re-asks over 4 tests; ingest-all asks its 7 once.
  await expect(estimate).toHaveText('Estimate: no LLM calls (16 answers, extractive)');
  await mode.selectOption('ingest-all');
  await expect(estimate).toHaveText('Estimate: no LLM calls (7 answers, extractive)');
  await expect(form).toContainText(
    'The whole conversation is inserted first, then each question is asked once.',
  );
  await page.screenshot({ path: screenshotPath('experiments-form-protocol-mode'), fullPage: true });

  await form.getByRole('button', { name: 'Run', exact: true }).click();
  const card = page.getByRole('article').first();
  await expect(card.locator('.status-badge')).toHaveText('completed', { timeout: 60_000 });
  // One test after the last packet: ingest-all's single test.
  await expect(card).toContainText('1 / 1');
  const runId = (await card.getAttribute('data-run-id')) ?? '';
  const detail = await api(request, workbench.url)<{
    info: { manifest: { config: { mode?: string } } };
  }>('runs.get', { runId });
  expect(detail.info.manifest.config.mode).toBe('ingest-all');

  await card.getByRole('button', { name: 'Open results' }).click();
  const manifest = page.getByRole('region', { name: 'Manifest' });
  await expect(manifest).toContainText('Protocol mode');
  await expect(manifest).toContainText('ingest-all (every packet, then each question once)');
  await page.screenshot({ path: screenshotPath('run-detail-protocol-mode'), fullPage: true });
});
