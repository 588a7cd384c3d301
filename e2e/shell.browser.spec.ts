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

test("a view's code loads when the view is first shown, not with the shell", async ({
  page,
  workbench,
}) => {
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
  });
  await page.goto(`${workbench.url}#/runs`);
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
  // One script holding every view made the first load one long main-thread task (issue 26).
  expect(scripts.filter((path) => /RunsView-[\w-]+\.js$/.test(path))).toHaveLength(1);
  expect(scripts.filter((path) => /CompareView/.test(path))).toEqual([]);

  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Compare' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Compare' })).toBeVisible();
  expect(scripts.filter((path) => /CompareView-[\w-]+\.js$/.test(path))).toHaveLength(1);
});

test('a view whose code cannot load says so, and the other views still work', async ({
  page,
  workbench,
}) => {
  // As if the server stopped or a rebuild replaced the files after the page loaded.
  await page.route(/\/assets\/ModelsView-[\w-]+\.js$/, (route) => route.abort());
  await page.goto(`${workbench.url}#/runs`);
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Models' }).click();
  await expect(page.getByRole('alert')).toContainText('Could not show the Models view');
  await expect(page.getByRole('button', { name: 'Reload' })).toBeVisible();
  await nav.getByRole('link', { name: 'Datasets' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Datasets' })).toBeVisible();
});
