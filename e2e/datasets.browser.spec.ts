import { readFileSync, writeFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { api, expect, MINI, LOCOMO10, screenshotPath, skipWithoutCorpus, test } from './fixtures';

async function openFile(page: Page, path: string): Promise<void> {
  // The input is hidden behind the "Open dataset…" button; Playwright can still set its files.
  await page.getByLabel('Dataset file').setInputFiles(path);
}

test('opens mini.json, switches category names, and highlights a question’s evidence', async ({
  page,
  workbench,
}) => {
  await page.goto(workbench.url);
  await expect(page.getByRole('heading', { level: 1, name: 'Datasets' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Open dataset…' })).toBeVisible();
  await openFile(page, MINI);

  const samples = page.getByRole('region', { name: 'Samples' });
  const table = samples.getByRole('table');
  // Columns: sample, speakers, sessions, turns, image turns, QA, packets, planned tests, then
  // categories 1-5. mini-1 has sessions 1, 2 and 10, 8 turns (so 2+1+2 packets), two image
  // turns (one carries a caption but no URL) and 7 QA.
  await expect(table.getByRole('row', { name: /mini-1/ }).getByRole('cell')).toHaveText([
    'mini-1',
    'Ann & Bob',
    '3',
    '8',
    '2',
    '7',
    '5',
    '4',
    '1',
    '1',
    '1',
    '2',
    '2',
  ]);
  await expect(table.getByRole('row', { name: /mini-2/ }).getByRole('cell')).toHaveText([
    'mini-2',
    'Cy & Di',
    '1',
    '5',
    '0',
    '1',
    '3',
    '1',
    '0',
    '0',
    '0',
    '1',
    '0',
  ]);
  await expect(table.getByRole('row', { name: /Total \(2\)/ }).getByRole('cell')).toHaveText([
    'Total (2)',
    '',
    '4',
    '13',
    '2',
    '8',
    '8',
    '5',
    '1',
    '1',
    '1',
    '3',
    '2',
  ]);

  // Official names first; the Mem0 paper swaps 1/3 and 4 and calls 5 "excluded".
  await expect(table.getByRole('columnheader', { name: '1 multi-hop' })).toBeVisible();
  await page
    .getByRole('group', { name: 'Category names' })
    .getByRole('button', { name: 'Mem0 paper' })
    .click();
  await expect(
    page.getByRole('group', { name: 'Category names' }).getByRole('button', { name: 'Mem0 paper' }),
  ).toHaveAttribute('aria-pressed', 'true');
  await expect(table.getByRole('columnheader', { name: '1 single-hop' })).toBeVisible();
  await expect(table.getByRole('columnheader', { name: '5 excluded' })).toBeVisible();
  await expect(table.getByRole('columnheader', { name: '1 multi-hop' })).toHaveCount(0);

  // Evidence problems: the loader repaired the split, zero-padded and misplaced-colon ids.
  const problems = page.getByRole('region', { name: 'Evidence problems' });
  await expect(problems).toContainText(/repaired/);
  await problems.getByText(/Show all \d+ evidence problems/).click();
  await expect(problems.getByRole('table')).toContainText('D10:03');

  await table.getByRole('button', { name: 'mini-1' }).click();
  const turns = page.getByRole('list', { name: 'Turns' });
  await expect(turns.locator('[data-dia-id="D1:2"] .image-caption')).toHaveText(
    '[Image: a photo of a dog on a beach]',
  );
  const questions = page.getByRole('list', { name: 'Questions' });
  await expect(questions.getByRole('button', { name: /What is Bob's cat called/ })).toContainText(
    'adversarial: Tom',
  );

  const question = questions.getByRole('button', { name: /When did Ann buy it/ });
  await question.click();
  await expect(question).toHaveAttribute('aria-pressed', 'true');
  const evidence = turns.locator('[data-dia-id="D2:2"]');
  await expect(evidence).toHaveAttribute('data-evidence', 'true');
  await expect(evidence).toBeInViewport();
  await expect(turns.locator('[data-dia-id="D1:3"]')).toHaveAttribute('data-evidence', 'true');
  await expect(turns.locator('[data-dia-id="D1:1"]')).not.toHaveAttribute('data-evidence');
  await expect(page).toHaveURL(/sample=mini-1/);
  await expect(page).toHaveURL(/question=1/);

  // The filter narrows by category in the chosen scheme's names.
  await page.getByRole('checkbox', { name: /4 open-domain/ }).uncheck();
  await expect(questions.getByRole('button', { name: /Where did Ann move/ })).toHaveCount(0);
  await page.getByRole('checkbox', { name: /4 open-domain/ }).check();
  await page.getByRole('searchbox', { name: 'Search questions' }).fill('Paris');
  await expect(questions.getByRole('button')).toHaveCount(2);

  // The URL carries the view, so a reload reopens it as it was.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Sample mini-1' })).toBeVisible();
  await expect(turns.locator('[data-dia-id="D2:2"]')).toHaveAttribute('data-evidence', 'true');
  await expect(page.getByRole('searchbox', { name: 'Search questions' })).toHaveValue('Paris');
  await page.getByRole('searchbox', { name: 'Search questions' }).fill('');
  await page.screenshot({ path: screenshotPath('datasets-mini'), fullPage: true });
});

test('a broken file shows where it is broken and the app stays usable', async ({
  page,
  workbench,
}, testInfo) => {
  const broken = testInfo.outputPath('broken-locomo.json');
  writeFileSync(broken, '[\n  {\n    "sample_id": "x",\n    "conversation": \n  }\n]\n');

  await page.goto(workbench.url);
  await openFile(page, broken);
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('broken-locomo.json');
  await expect(alert).toContainText(/line \d+, column \d+/);
  await page.screenshot({ path: screenshotPath('datasets-invalid'), fullPage: true });

  await openFile(page, MINI);
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(
    page.getByRole('region', { name: 'Samples' }).getByRole('row', { name: /mini-1/ }),
  ).toBeVisible();
  await page.screenshot({ path: screenshotPath('datasets-recovered'), fullPage: true });
});

test('locomo10.json: 10 samples, 1,986 QA, and a late question scrolls conv-41 to its evidence', async ({
  page,
  workbench,
}) => {
  skipWithoutCorpus();
  await page.goto(workbench.url);
  await openFile(page, LOCOMO10);

  const table = page.getByRole('region', { name: 'Samples' }).getByRole('table');
  await expect(table.getByRole('rowgroup').nth(1).getByRole('row')).toHaveCount(10);
  // DESIGN.md §4: 1,986 QA; categories 1=282, 2=321, 3=96, 4=841, 5=446; 1,226 image turns.
  const totals = table.getByRole('row', { name: /Total \(10\)/ }).getByRole('cell');
  await expect(totals.nth(0)).toHaveText('Total (10)');
  await expect(totals.nth(3)).toHaveText('5,882');
  await expect(totals.nth(4)).toHaveText('1,226');
  await expect(totals.nth(5)).toHaveText('1,986');
  await expect(totals.nth(8)).toHaveText('282');
  await expect(totals.nth(9)).toHaveText('321');
  await expect(totals.nth(10)).toHaveText('96');
  await expect(totals.nth(11)).toHaveText('841');
  await expect(totals.nth(12)).toHaveText('446');

  const problems = page.getByRole('region', { name: 'Evidence problems' });
  await expect(problems).toContainText('15 repaired');
  await problems.getByText('Show all 19 evidence problems').click();
  await page.screenshot({ path: screenshotPath('datasets-locomo10-table'), fullPage: true });

  await table.getByRole('button', { name: 'conv-41' }).click();
  await expect(page.getByRole('region', { name: 'Sample conv-41' })).toContainText('663 turns');
  const turns = page.getByRole('list', { name: 'Turns' });
  // Virtualised: a turn of the last session is not in the DOM before scrolling there.
  await expect(turns.locator('[data-dia-id="D32:11"]')).toHaveCount(0);

  const question = page
    .getByRole('list', { name: 'Questions' })
    .getByRole('button', { name: /What did the donations help John's community acquire/ });
  await question.click();
  const evidence = turns.locator('[data-dia-id="D32:11"]');
  await expect(evidence).toHaveAttribute('data-evidence', 'true');
  await expect(evidence).toBeInViewport();
  await page.screenshot({ path: screenshotPath('datasets-locomo10'), fullPage: true });
});

test('what the desktop menu opens, or fails to open, shows in the Datasets view from any view', async ({
  page,
  request,
  workbench,
}) => {
  // The desktop menu opens files in the main process and announces the result as events; browser
  // mode has no menu, so this spec passes the real event socket through and adds those events.
  let announce: (event: unknown) => void = () => {
    throw new Error('the app never opened its event socket');
  };
  await page.routeWebSocket(/\/api\/events/, (socket) => {
    socket.connectToServer();
    announce = (event) => socket.send(JSON.stringify(event));
  });
  const dataset = await api(request, workbench.url)<{ datasetId: string }>('datasets.upload', {
    name: 'mini.json',
    content: readFileSync(MINI, 'utf8'),
  });
  await page.goto(workbench.url);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Runs' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();

  // Malformed events are dropped: the app stays where it is. Events arrive in order, so once the
  // well-formed one after them has moved the app, every view it went through is recorded: the
  // malformed ones moved it nowhere (no fixed wait for something not to happen).
  await page.evaluate(() => {
    const views: string[] = [];
    (window as unknown as { viewsVisited: string[] }).viewsVisited = views;
    window.addEventListener('hashchange', () => views.push(window.location.hash));
  });
  announce({ type: 'dataset-opened' });
  announce('not an event');
  announce({ type: 'dataset-opened', datasetId: dataset.datasetId });
  await expect(page.getByRole('heading', { level: 1, name: 'Datasets' })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`dataset=${dataset.datasetId}`));
  const visited = await page.evaluate(
    () => (window as unknown as { viewsVisited: string[] }).viewsVisited,
  );
  expect(visited).toHaveLength(1);
  expect(visited[0]).toContain(`dataset=${dataset.datasetId}`);
  await expect(
    page.getByRole('region', { name: 'Samples' }).getByRole('row', { name: /mini-1/ }),
  ).toBeVisible();

  await nav.getByRole('link', { name: 'Compare' }).click();
  announce({
    type: 'dataset-open-failed',
    error: {
      code: 'DATASET_INVALID',
      message: 'broken.json: not valid JSON at line 2, column 3: unexpected end of input',
    },
  });
  await expect(page.getByRole('heading', { level: 1, name: 'Datasets' })).toBeVisible();
  const failure = page.getByRole('alert').filter({ hasText: 'Could not open the dataset' });
  await expect(failure).toContainText('not valid JSON at line 2, column 3');
  await page.screenshot({ path: screenshotPath('datasets-menu-failed'), fullPage: true });
  await page.getByRole('button', { name: 'Dismiss' }).click();
  await expect(failure).toHaveCount(0);
  // The dataset opened before is still there.
  await expect(
    page.getByRole('region', { name: 'Samples' }).getByRole('row', { name: /mini-1/ }),
  ).toBeVisible();
});
