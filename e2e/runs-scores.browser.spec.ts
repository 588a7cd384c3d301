import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../tests/support/fake-openai-server';
import { api, expect, MINI, screenshotPath, test } from './fixtures';

// The fake judge says CORRECT when the answer contains the gold (deterministic).
let fake: FakeOpenAIServer;
test.beforeAll(async () => {
  fake = await startFakeOpenAIServer({});
});
test.afterAll(() => fake.close());

interface ProtocolJudge {
  protocol: string;
  overall: { mean: number; n: number };
  unparseable: number;
}

test('the Runs view shows J per judge protocol and the errata table of a run', async ({
  page,
  request,
  workbench,
}) => {
  await page.setViewportSize({ width: 1400, height: 1400 });
  // A run that applies errata, made by the CLI in the server's data folder: "Where did Ann
  // move?" has gold Paris, the errata say Lyon.
  const errata = join(workbench.dataDir, 'errata.yaml');
  writeFileSync(
    errata,
    'entries:\n  - { sample: mini-1, question: 0, corrected: Lyon, source: workbench review }\n',
  );
  const run = spawnSync(
    process.execPath,
    [
      ...['--import', 'tsx', 'src-main/cli/main.ts', 'experiment', '--data', MINI],
      // The figures below are `hybrid`'s answers on mini-1, named so a change of default keeps them.
      ...['--samples', 'mini-1', '--preset', 'hybrid', '--errata', errata],
      ...['--data-dir', workbench.dataDir, '--json'],
    ],
    { encoding: 'utf8' },
  );
  expect(run.status, run.stderr).toBe(0);
  const { runId } = JSON.parse(run.stdout) as { runId: string };

  // Before any rescore the view says how to add a judge protocol.
  await page.goto(`${workbench.url}#/runs?run=${runId}`);
  const judgeRegion = page.getByRole('region', { name: 'J per judge protocol' });
  await expect(judgeRegion).toContainText(`rescore ${runId} --judge mem0`);
  await expect(judgeRegion.getByRole('table')).toHaveCount(0);

  // A saved endpoint (the Models view's) serves as the judge model of the panel's form.
  const call = api(request, workbench.url);
  await call('models.save', {
    endpoint: { name: 'Fake judge', baseUrl: fake.url, model: 'fake-judge' },
  });
  await page.reload();
  const form = judgeRegion.getByRole('form', { name: 'Rescore with a judge protocol' });
  const rescore = form.getByRole('button', { name: 'Rescore with judge' });
  await expect(rescore).toBeDisabled();
  await form.getByLabel('Judge protocol').selectOption({ label: 'Strict (same fact)' });
  await form.getByLabel('Judge model').selectOption({ label: 'LLM: Fake judge (fake-judge)' });
  await rescore.click();
  await expect(form.getByRole('status')).toContainText(/Judged \d+ answers under strict/);
  const { judgeProtocols } = await call<{ judgeProtocols: ProtocolJudge[] }>('runs.get', {
    runId,
  });
  const strict = judgeProtocols.find((p) => p.protocol === 'strict');
  expect(strict).toMatchObject({ model: 'fake-judge' });
  expect(strict?.overall.n).toBeGreaterThan(0);

  // The panel reloaded by itself: the strict row is there without a page reload.
  const judgeTable = judgeRegion.getByRole('table', { name: 'J per judge protocol' });
  const header = judgeTable.getByRole('row').first();
  for (const name of ['Protocol', 'Model', 'Overall', 'Unparseable'])
    await expect(header.getByRole('columnheader', { name })).toBeVisible();
  const row = judgeTable.getByRole('row', { name: /strict/ });
  await expect(row.getByRole('rowheader')).toHaveText('strict');
  const cells = row.getByRole('cell');
  await expect(cells.first()).toHaveText('fake-judge');
  await expect(cells.nth(-2)).toHaveText(
    `${strict!.overall.mean.toFixed(3)} (${strict!.overall.n})`,
  );
  await expect(cells.last()).toHaveText(String(strict!.unparseable));

  const errataRegion = page.getByRole('region', { name: 'Errata' });
  await expect(errataRegion).toContainText('1 entry, 1 final answer rescored');
  const errataTable = errataRegion.getByRole('table', {
    name: /official F1 against the original and corrected gold/i,
  });
  // Category 4: Paris scored 0.5 against the original gold, 0 against Lyon; the ceiling is 0.5.
  const singleHop = errataTable.getByRole('row', { name: /^4 single-hop/ });
  await expect(singleHop.getByRole('cell')).toHaveText(['0.500', '0.000', '0.500', '2']);
  await expect(errataTable.getByRole('row', { name: /Overall/ }).getByRole('cell')).toHaveText([
    '0.571',
    '0.429',
    '0.857',
    '7',
  ]);
  // The view scrolls inside its main pane: bring both tables into the viewport.
  await errataRegion.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('runs-judge-protocols-errata') });
});
