import { readFileSync } from 'node:fs';
import { api, expect, MINI, test } from './fixtures';

test("a run's first answers are asked for beside its runs.get, not after it (issue 26's budget)", async ({
  page,
  request,
  workbench,
}) => {
  const call = api(request, workbench.url);
  const dataset = await call<{ datasetId: string }>('datasets.upload', {
    name: 'mini.json',
    content: readFileSync(MINI, 'utf8'),
  });
  const { runId } = await call<{ runId: string }>('experiments.start', {
    datasetId: dataset.datasetId,
    samples: ['mini-1'],
    memory: { preset: 'hybrid' },
  });
  await expect
    .poll(
      async () => (await call<{ info: { status: string } }>('runs.get', { runId })).info.status,
      { timeout: 90_000, intervals: [250, 500, 1000] },
    )
    .toBe('completed');

  const pagesAsked: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/runs.answersPage')) pagesAsked.push(r.postData() ?? '');
  });
  // runs.get is held until the first answers page is asked for, for at most 10 s: before, the page
  // was asked only once runs.get had answered and the run had rendered, so it never came.
  let askedWhileHeld = false;
  await page.route('**/api/runs.get', async (route) => {
    const until = Date.now() + 10_000;
    while (pagesAsked.length === 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    askedWhileHeld = pagesAsked.length > 0;
    await route.continue();
  });

  await page.goto(`${workbench.url}#/runs?run=${runId}`);
  const answers = page.getByRole('table', { name: 'Questions' });
  await expect(answers.getByRole('rowgroup').nth(1).getByRole('row')).not.toHaveCount(0);
  expect(askedWhileHeld).toBe(true);
  // The prefetched page is the one the table shows: no second request for the first page.
  const firstPages = pagesAsked.filter((body) => body.includes('"offset":0'));
  expect(firstPages).toHaveLength(1);
  expect(firstPages[0]).toContain(runId);
});
