import { expect, screenshotPath, test } from './fixtures';

test('the built renderer opens in browser mode and shows the app shell', async ({
  page,
  workbench,
}) => {
  await page.goto(workbench.url);
  const nav = page.getByRole('navigation', { name: 'Main' });
  for (const label of ['Datasets', 'Collections', 'Experiments', 'Runs', 'Compare']) {
    await expect(nav.getByRole('link', { name: label })).toBeVisible();
  }
  // The footer proves the renderer reached the engine through the token-guarded HTTP API.
  await expect(page.getByText(/v\d+\.\d+\.\d+ · http/)).toBeVisible();

  await nav.getByRole('link', { name: 'Runs' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
  await expect(page).toHaveURL(/#\/runs/);
  await page.screenshot({ path: screenshotPath('shell'), fullPage: true });
});

test('the API refuses calls without the launch token', async ({ request, workbench }) => {
  const origin = new URL(workbench.url).origin;
  const response = await request.post(`${origin}/api/app.info`, { data: {} });
  expect(response.status()).toBe(401);
});
