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

test('the launch token leaves the URL for an HttpOnly cookie on the first load', async ({
  page,
  context,
  workbench,
}) => {
  // The server's Content-Security-Policy must not block anything the renderer does.
  const blocked: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) blocked.push(message.text());
  });
  await page.goto(`${workbench.url}#/runs`);
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
  // Gone from the address bar (and so from history and bookmarks); the view in the hash stays.
  expect(page.url()).toBe(`${new URL(workbench.url).origin}/#/runs`);
  const cookies = await context.cookies();
  expect(cookies).toEqual([
    expect.objectContaining({ httpOnly: true, sameSite: 'Strict', path: '/' }),
  ]);
  // Scripts on the page cannot read it.
  expect(await page.evaluate(() => document.cookie)).toBe('');

  // A reload carries the cookie: the API answers and the event socket connects.
  await page.reload();
  await expect(page.getByText(/v\d+\.\d+\.\d+ · http/)).toBeVisible();
  for (const label of ['Datasets', 'Collections', 'Experiments', 'Compare', 'Models']) {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label }).click();
    await expect(page.getByRole('heading', { level: 1, name: label })).toBeVisible();
  }
  expect(blocked).toEqual([]);
});

test('the page cannot be framed by another site', async ({ request, workbench }) => {
  const response = await request.get(workbench.url, { maxRedirects: 0 });
  expect(response.status()).toBe(303);
  const page = await request.get(new URL(workbench.url).origin, {
    headers: { authorization: `Bearer ${new URL(workbench.url).searchParams.get('token') ?? ''}` },
  });
  expect(page.headers()['x-frame-options']).toBe('DENY');
  expect(page.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
});
