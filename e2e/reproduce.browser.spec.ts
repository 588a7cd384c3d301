import { api, expect, openWithMini, screenshotPath, test } from './fixtures';

test('picks a pack, shows its plan and estimate, runs it offline and shows paper vs ours', async ({
  page,
  request,
  workbench,
}) => {
  await openWithMini(page, workbench);
  // A saved endpoint (the Models view's): the view shows the CLI command that runs the paper's
  // models through it. Nothing is called.
  await api(request, workbench.url)('models.save', {
    endpoint: {
      name: 'OpenAI',
      baseUrl: 'https://api.openai.com/v1',
      model: 'gpt-4o-mini',
      apiKeyEnv: 'OPENAI_API_KEY',
      prices: { inputPerMillion: 0.15, outputPerMillion: 0.6 },
    },
  });
  await page.goto(`${workbench.url}#/reproduce`);
  await expect(page.getByRole('heading', { level: 1, name: 'Reproduce' })).toBeVisible();

  // The RAG pack runs the baselines' protocol and database presets: its plan names them.
  const pack = page.getByLabel('Pack');
  await pack.selectOption('locomo-table3');
  await expect(page.getByLabel('Plan')).toContainText('locomo-rag');
  // The source says which version of the paper the figures are from, and its question set.
  await expect(page.getByLabel('Source')).toContainText('Table 3 (p. 13857); ACL 2024');
  await expect(
    page.getByText("The paper's questions: the 10 released conversations"),
  ).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Run offline' })).toBeVisible();

  // Long-context rows name their own models: gpt-4-turbo beside the pack's gpt-3.5-turbo.
  await pack.selectOption('locomo-table2');
  await expect(page.getByLabel('Plan')).toContainText(
    'answerer gpt-3.5-turbo / gpt-4-turbo (locomo-full-context protocol)',
  );

  await pack.selectOption('mem0-table1');
  await expect(page.getByRole('heading', { level: 2 })).toContainText('Mem0 paper, Table 1');
  await expect(page.getByText('arXiv 2504.19413')).toBeVisible();
  // The plan is the paper's setting (its models, its 10 runs) before anything runs.
  const plan = page.getByLabel('Plan');
  await expect(plan).toContainText('answerer gpt-4o-mini (mem0 protocol)');
  await expect(plan).toContainText('10 complete run(s) per row');
  await expect(plan).toContainText(/\d+ answer \+ \d+ judge LLM calls/);
  const command = page.getByLabel('CLI command');
  await expect(command).toHaveText(/^npm run -s cli -- reproduce mem0-table1 --data \S+\.json$/);
  await expect(plan).toContainText('cost n/a (no prices)');
  await page.getByLabel('Endpoint').selectOption({ label: 'OpenAI' });
  await expect(command).toContainText(
    '--base-url https://api.openai.com/v1 --api-key-env OPENAI_API_KEY --prices 0.15,0.6',
  );
  await expect(command).not.toContainText('--model');
  // The plan prices the paper's calls at the endpoint's prices (it had none before).
  await expect(plan).toContainText(/cost \$\d+\.\d\d/);
  await page.getByLabel(/its model \(gpt-4o-mini\) instead of the paper's/).check();
  await expect(command).toContainText('--model gpt-4o-mini --judge-model gpt-4o-mini');
  // Each row says what it is: the released library by its pinned version, the stand-in as one.
  const rowNames = page.getByLabel('Rows', { exact: true });
  await expect(rowNames).toContainText('mem0-library: Mem0 (mem0ai ');
  await expect(rowNames).toContainText('hybrid-stand-in: Workbench hybrid preset, a stand-in');
  // Before a run, the paper's figures are there to read, with the paper's ± where it prints one.
  await page.getByText("The paper's figures (ours appear beside them after a run)").click();
  const published = page.getByRole('table', { name: 'Published figures' });
  const zepOverallJ = published
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: 'zep', exact: true }) })
    .filter({ has: page.getByRole('cell', { name: 'J', exact: true }) })
    .filter({ has: page.getByRole('cell', { name: 'overall', exact: true }) });
  await expect(zepOverallJ.getByRole('cell').nth(2)).toHaveText('65.99 ± 0.16');
  await page.screenshot({ path: screenshotPath('reproduce-published'), fullPage: true });

  await page.getByRole('button', { name: 'Run offline' }).click();
  await expect(page.getByRole('status')).toContainText("This is NOT the paper's setting", {
    timeout: 90_000,
  });
  const table = page.getByRole('table', { name: 'Paper vs ours' });
  const row = (metric: string) =>
    table
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'hybrid-stand-in', exact: true }) })
      .filter({ has: page.getByRole('cell', { name: metric, exact: true }) })
      .filter({ has: page.getByRole('cell', { name: 'overall', exact: true }) });
  // Cells: metric, cell, paper (± its std), ours (± std over runs), ours − paper.
  const overallJ = row('J');
  await expect(overallJ.getByRole('cell').nth(2)).toHaveText('66.88 ± 0.15');
  // Offline there is no judge: J is the paper's only; set F1 is ours only.
  await expect(overallJ.getByRole('cell').nth(3)).toHaveText('–');
  const overallF1 = row('set F1');
  await expect(overallF1.getByRole('cell').nth(3)).toHaveText(/^\d\.\d\d$|^\d\d\.\d\d$/);
  // Every row's run completed: no row is listed as failed.
  await expect(page.getByRole('alert', { name: 'Rows that did not complete' })).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('reproduce'), fullPage: true });
});
