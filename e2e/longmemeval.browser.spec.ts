import { resolve } from 'node:path';
import { api, expect, screenshotPath, test } from './fixtures';

/** Hand-written in LongMemEval's official shape: six questions, each with its own haystack. */
const LME = resolve('tests/fixtures/longmemeval/longmemeval_s.json');

test('LongMemEval: datasets, runs, curve and compare name its question types', async ({
  page,
  request,
  workbench,
}) => {
  const call = api(request, workbench.url);

  // Datasets: uploaded like LoCoMo, one sample per question, columns by question type.
  await page.goto(workbench.url);
  await page.getByLabel('Dataset file').setInputFiles(LME);
  const samples = page.getByRole('region', { name: 'Samples' });
  await expect(samples.getByRole('row', { name: /0a995998_abs/ })).toBeVisible();
  await expect(samples).toContainText('LongMemEval paper');
  // One naming scheme: no "Category names" toggle offering LoCoMo's official/Mem0 names.
  await expect(page.getByRole('group', { name: 'Category names' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Mem0 paper' })).toHaveCount(0);
  // Twelve question-type columns (each at least 96 px, so headers never overlap) need a wide
  // window; a narrower one lists the ones that do not fit as hidden.
  await page.setViewportSize({ width: 1920, height: 900 });
  await expect(
    samples.getByRole('columnheader', { name: '10 abstention (multi-session)' }),
  ).toBeVisible();
  await page.setViewportSize({ width: 1400, height: 900 });
  await samples.getByRole('row', { name: /6a1eabeb/ }).click();
  const detail = page.getByRole('region', { name: 'Sample 6a1eabeb' });
  await expect(detail.getByRole('checkbox', { name: /5 knowledge-update/ })).toBeChecked();
  await expect(detail).toContainText('What is my personal best time in the 5K run?');

  // Two runs through the API (the Experiments form is another spec's), one with the curve.
  const datasets = await call<Array<{ datasetId: string; format: string }>>('datasets.list', {});
  const dataset = datasets.find((d) => d.format === 'longmemeval');
  expect(dataset).toMatchObject({ format: 'longmemeval', datasetId: expect.any(String) });
  const start = (preset: string, extra: Record<string, unknown> = {}) =>
    call<{ runId: string }>('experiments.start', {
      datasetId: dataset!.datasetId,
      memory: { preset },
      ...extra,
    });
  const hybrid = (await start('hybrid', { haystackCurvePoints: 2 })).runId;
  await waitForRun(call, hybrid);
  const text = (await start('text')).runId;
  await waitForRun(call, text);

  // Runs: the per-category chart, the filter and the answers speak LongMemEval.
  await page.goto(`${workbench.url}#/runs?run=${hybrid}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
  const answers = page.getByRole('region', { name: /Questions/ });
  await expect(answers.getByRole('checkbox', { name: /6 temporal-reasoning/ })).toBeVisible();
  await expect(
    answers.getByRole('checkbox', { name: /10 abstention \(multi-session\)/ }),
  ).toBeChecked();
  await expect(page.getByRole('region', { name: 'Overall scores' })).toContainText('Task-averaged');
  await expect(page.getByRole('region', { name: 'Per category' })).toContainText(
    'LongMemEval paper',
  );
  await expect(
    page
      .getByRole('region', { name: 'Per category' })
      .getByRole('group', { name: 'Category names' }),
  ).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Per category' })).toContainText(
    'knowledge-update',
  );
  await expect(answers).toContainText('abstention (multi-session)');
  // The curve: each question asked halfway through its haystack and at its end.
  await expect(
    page.getByRole('region', { name: /Accuracy as the conversation grows/ }),
  ).toBeVisible();
  await page.screenshot({ path: screenshotPath('longmemeval-run'), fullPage: true });

  // Compare: rows named by question type. Official F1 (the default metric) scores no abstention
  // question (only the judge does), so the abstention category has no row here.
  await page.goto(`${workbench.url}#/compare`);
  await page.getByRole('checkbox', { name: `Compare hybrid · ${hybrid}` }).check();
  await page.getByRole('checkbox', { name: `Compare text · ${text}` }).check();
  await page.getByRole('radio', { name: `Baseline hybrid · ${hybrid}` }).check();
  const table = page
    .getByRole('region', { name: 'Per category' })
    .getByRole('table', { name: /per run/ });
  await expect(table.getByRole('rowheader')).toHaveText([
    'All',
    '1 single-session-user',
    '2 single-session-assistant',
    '3 single-session-preference',
    '5 knowledge-update',
    '6 temporal-reasoning',
  ]);
  await page.screenshot({ path: screenshotPath('longmemeval-compare'), fullPage: true });
});

async function waitForRun(
  call: <T>(name: string, input: unknown) => Promise<T>,
  runId: string,
): Promise<void> {
  await expect
    .poll(
      async () => (await call<{ info: { status: string } }>('runs.get', { runId })).info.status,
      { timeout: 90_000, intervals: [250, 500, 1000] },
    )
    .toBe('completed');
}
