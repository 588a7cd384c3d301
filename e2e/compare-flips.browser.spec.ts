import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { api, expect, MINI, screenshotPath, test, type WorkbenchServer } from './fixtures';
import type { APIRequestContext, Page } from '@playwright/test';

/**
 * flips.json: six facts in session 1, ten small-talk turns in session 2, and a question about the
 * last turn, so every question is re-asked after the last packet. A short-term window of 13 turns
 * has lost the first three facts by then; hybrid retrieval has not: B is better on exactly three
 * questions (0, 1, 2) and equal on the rest.
 */
const FLIPS = resolve('tests/fixtures/locomo/flips.json');

type Call = <T>(name: string, input: unknown) => Promise<T>;

async function waitForRun(call: Call, runId: string): Promise<void> {
  await expect
    .poll(
      async () => (await call<{ info: { status: string } }>('runs.get', { runId })).info.status,
      { timeout: 90_000, intervals: [250, 500, 1000] },
    )
    .toBe('completed');
}

async function startRun(call: Call, input: Record<string, unknown>): Promise<string> {
  const { runId } = await call<{ runId: string }>('experiments.start', input);
  await waitForRun(call, runId);
  return runId;
}

async function openCompare(page: Page, workbench: WorkbenchServer, a: string, b: string) {
  await page.goto(`${workbench.url}#/compare`);
  // A then B: the first run picked is the baseline.
  await page.getByRole('checkbox', { name: new RegExp(`^Compare .+ · ${a}$`) }).check();
  await expect(page.getByRole('radio', { name: new RegExp(`^Baseline .+ · ${a}$`) })).toBeChecked();
  await page.getByRole('checkbox', { name: new RegExp(`^Compare .+ · ${b}$`) }).check();
}

function apiOf(request: APIRequestContext, workbench: WorkbenchServer): Call {
  return api(request, workbench.url);
}

test('from "B is better overall" to the three questions that explain it, by keyboard', async ({
  page,
  request,
  workbench,
}) => {
  const call = apiOf(request, workbench);
  const dataset = await call<{ datasetId: string }>('datasets.upload', {
    name: 'flips.json',
    content: readFileSync(FLIPS, 'utf8'),
  });
  const window = await startRun(call, {
    datasetId: dataset.datasetId,
    memory: { preset: 'stm', config: { capacity: 13 } },
  });
  const hybrid = await startRun(call, {
    datasetId: dataset.datasetId,
    memory: { preset: 'hybrid' },
  });
  await page.setViewportSize({ width: 1440, height: 900 });
  await openCompare(page, workbench, window, hybrid);

  // "B is better overall": the flip summary's means.
  const summary = page.getByRole('region', { name: /Flips against baseline A/ });
  await expect(summary.getByRole('row', { name: /^B/ }).getByRole('cell').nth(1)).toHaveText(
    '0.833',
  );
  await expect(summary.getByRole('row', { name: /^A/ }).getByRole('cell').nth(1)).toHaveText(
    '0.476',
  );

  const questions = page.getByRole('region', { name: 'Questions' });
  // The keys are documented where they act.
  await expect(questions.getByText(/press j \/ k for the next \/ previous question/)).toBeVisible();

  // Four keys from the summary to the third question: i (improved only), then j, j, j.
  await page.keyboard.press('i');
  await expect(questions.getByRole('button', { name: /^improved/ })).toHaveAttribute(
    'aria-pressed',
    'true',
  );
  await expect(questions.getByText('3 of 7 questions')).toBeVisible();

  const expected = [
    {
      q: 0,
      a: 'watched film',
      b: 'Maria',
      evidence: 'D1:1',
      turn: 'Ann: My sister is called Maria.',
    },
    {
      q: 1,
      a: 'long chat',
      b: 'cello every evening',
      evidence: 'D1:2',
      turn: 'Bob: I play the cello every evening.',
    },
    {
      q: 2,
      a: 'grew Lisbon',
      b: 'Pepper',
      evidence: 'D1:3',
      turn: 'Ann: Our cat is named Pepper.',
    },
  ];
  // The first question's turns are held back: until they come the detail says it is loading,
  // and evidence never reads "unknown" in the meantime.
  let releaseTurns = (): void => undefined;
  const turnsHeld = new Promise<void>((resolve) => (releaseTurns = resolve));
  await page.route('**/api/datasets.sample', async (route) => {
    await turnsHeld;
    await route.continue();
  });
  for (const [step, want] of expected.entries()) {
    await page.keyboard.press('j');
    const detail = questions.getByRole('region', {
      name: `Why did it flip: flip-1 question ${want.q}`,
    });
    await expect(detail).toBeVisible();
    if (step === 0) {
      // Either the loading state or (before the fix) the answers with evidence "unknown".
      await expect
        .poll(async () => (await detail.textContent()) ?? '')
        .toMatch(/turns they cite|Evidence/);
      await expect(detail).not.toContainText('unknown');
      await expect(detail.getByRole('status')).toHaveText(
        'Loading the answers and the turns they cite…',
      );
      // The route stays: once released it passes every request straight on.
      releaseTurns();
    }
    const a = detail.getByRole('region', { name: 'Run A' });
    const b = detail.getByRole('region', { name: 'Run B' });
    // Side by side: A's wrong answer, B's right one, and why: A's window lost the evidence turn,
    // shown with its text from the dataset.
    await expect(a).toContainText(want.a);
    await expect(b).toContainText(want.b);
    await expect(a.getByText(`${want.evidence} missed`)).toBeVisible();
    await expect(a.getByLabel(`${want.evidence} text`)).toHaveText(want.turn);
    await expect(b.getByText(new RegExp(`^${want.evidence} found #\\d+$`))).toBeVisible();
    await expect(b).toContainText(/Recall@10\s*1\.000 \(\+1\.000\)/);
    await expect(a).toContainText('baseline');
    // B's retrieved memories mark the evidence turn, with its text from the open dataset.
    const evidenceItem = b
      .getByRole('list', { name: 'Run B retrieved memories' })
      .getByRole('listitem')
      .filter({ hasText: 'EVIDENCE' });
    await expect(evidenceItem).toHaveCount(1);
    await expect(evidenceItem).toContainText(want.evidence);
    // A lost it, so B's evidence memory is marked as absent from A's list.
    await expect(evidenceItem).toContainText('not in A');
    // Rank i of A and rank i of B sit on one line, whatever the lengths above them.
    const itemsA = a.getByRole('list', { name: 'Run A retrieved memories' }).getByRole('listitem');
    const itemsB = b.getByRole('list', { name: 'Run B retrieved memories' }).getByRole('listitem');
    const ranks = Math.min(await itemsA.count(), await itemsB.count());
    expect(ranks).toBeGreaterThan(1);
    for (const i of [0, ranks - 1]) {
      const [boxA, boxB] = await Promise.all([
        itemsA.nth(i).boundingBox(),
        itemsB.nth(i).boundingBox(),
      ]);
      expect(Math.abs((boxA?.y ?? 0) - (boxB?.y ?? -100))).toBeLessThan(1);
    }
    // One row open at a time, and its toggle says so.
    await expect(questions.getByRole('region', { name: /^Why did it flip/ })).toHaveCount(1);
    await expect(
      questions.getByRole('button', { name: `Why did it flip? flip-1 question ${want.q}` }),
    ).toHaveAttribute('aria-expanded', 'true');
    if (step === 0) await questions.screenshot({ path: screenshotPath('compare-why-flip') });
  }

  // At the end j stays on the last flip; k goes back; Esc closes; the URL keeps what is open.
  await page.keyboard.press('j');
  await expect(
    questions.getByRole('region', { name: 'Why did it flip: flip-1 question 2' }),
  ).toBeVisible();
  await page.keyboard.press('k');
  await expect(
    questions.getByRole('region', { name: 'Why did it flip: flip-1 question 1' }),
  ).toBeVisible();
  await page.reload();
  await expect(
    questions.getByRole('region', { name: 'Why did it flip: flip-1 question 1' }),
  ).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(questions.getByRole('region', { name: /^Why did it flip/ })).toHaveCount(0);

  // Typing in the search box is text, not a command.
  await questions.getByRole('searchbox', { name: 'Search questions' }).fill('jk');
  await expect(questions.getByRole('region', { name: /^Why did it flip/ })).toHaveCount(0);

  // A narrow window keeps both sides readable.
  await page.setViewportSize({ width: 1024, height: 700 });
  await questions.getByRole('searchbox', { name: 'Search questions' }).fill('');
  await questions.getByRole('button', { name: 'Why did it flip? flip-1 question 0' }).click();
  await expect(
    questions.getByRole('region', { name: 'Why did it flip: flip-1 question 0' }),
  ).toBeVisible();
  await questions.screenshot({ path: screenshotPath('compare-why-flip-1024') });
});

test('runs over different questions are compared on the shared ones; a new pair resets the filters', async ({
  page,
  request,
  workbench,
}) => {
  const call = apiOf(request, workbench);
  const dataset = await call<{ datasetId: string }>('datasets.upload', {
    name: 'mini.json',
    content: readFileSync(MINI, 'utf8'),
  });
  // Both samples (7 + 1 questions) against mini-1 only (7).
  const both = await startRun(call, {
    datasetId: dataset.datasetId,
    samples: ['mini-1', 'mini-2'],
    memory: { preset: 'hybrid' },
  });
  const one = await startRun(call, {
    datasetId: dataset.datasetId,
    samples: ['mini-1'],
    memory: { preset: 'text' },
  });
  await openCompare(page, workbench, both, one);

  const notice = page.getByRole('region', { name: 'Question sets' });
  await expect(notice).toContainText('Compared on the 7 questions both runs answered.');
  await expect(notice).toContainText('A: 8, B: 7, 7 shared.');
  await expect(page.getByRole('region', { name: 'Comparison fairness' })).toContainText(
    '0 only in text',
  );
  const questions = page.getByRole('region', { name: 'Questions' });
  await expect(questions.getByText('7 of 7 questions')).toBeVisible();
  // mini-2's question is in no row: only one run answered it.
  await expect(
    questions.getByRole('table', { name: 'Questions compared' }).getByText('mini-2'),
  ).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('compare-shared-questions'), fullPage: true });

  // Filters set for this pair…
  const search = questions.getByRole('searchbox', { name: 'Search questions' });
  await search.fill('where');
  await questions.getByRole('button', { name: /^unchanged/ }).click();
  await expect(questions.getByRole('button', { name: /^unchanged/ })).toHaveAttribute(
    'aria-pressed',
    'true',
  );
  await questions.getByRole('button', { name: 'Why did it flip? mini-1 question 0' }).click();
  await expect(questions.getByRole('region', { name: /^Why did it flip/ })).toHaveCount(1);

  // …are gone when the pair changes (here: the other run becomes the baseline).
  await page.getByRole('radio', { name: `Baseline text · ${one}` }).check();
  await expect(questions.getByRole('button', { name: /^unchanged/ })).toHaveAttribute(
    'aria-pressed',
    'false',
  );
  await expect(search).toHaveValue('');
  await expect(questions.getByText('7 of 7 questions')).toBeVisible();
  await expect(questions.getByRole('region', { name: /^Why did it flip/ })).toHaveCount(0);
});

test('the questions narrow to one sample, and the URL keeps it across a reload', async ({
  page,
  request,
  workbench,
}) => {
  const call = apiOf(request, workbench);
  const dataset = await call<{ datasetId: string }>('datasets.upload', {
    name: 'mini.json',
    content: readFileSync(MINI, 'utf8'),
  });
  const start = (preset: string) =>
    startRun(call, {
      datasetId: dataset.datasetId,
      samples: ['mini-1', 'mini-2'],
      memory: { preset },
    });
  const hybrid = await start('hybrid');
  const text = await start('text');
  await openCompare(page, workbench, hybrid, text);

  const questions = page.getByRole('region', { name: 'Questions' });
  const grid = questions.getByRole('table', { name: 'Questions compared' });
  const sample = questions.getByLabel('Sample');
  await expect(questions.getByText('8 of 8 questions')).toBeVisible();
  await expect(sample.getByRole('option')).toHaveText(['All (8)', 'mini-1 (7)', 'mini-2 (1)']);

  await sample.selectOption('mini-2');
  await expect(questions.getByText('1 of 8 questions')).toBeVisible();
  await expect(grid.getByText('mini-1')).toHaveCount(0);
  await page.reload();
  await expect(sample).toHaveValue('mini-2');
  await expect(questions.getByText('1 of 8 questions')).toBeVisible();
  await questions.screenshot({ path: screenshotPath('compare-questions-sample') });

  // j steps through the rows shown: the first is mini-2's only question.
  await sample.blur();
  await page.keyboard.press('j');
  await expect(
    questions.getByRole('region', { name: 'Why did it flip: mini-2 question 0' }),
  ).toBeVisible();
});
