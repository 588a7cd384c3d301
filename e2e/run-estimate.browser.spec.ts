import { startFakeOpenAIServer, type FakeOpenAIServer } from '../tests/support/fake-openai-server';
import { MAX_CONCURRENCY } from '../src-shared/experiment/config';
import { api, expect, openWithMini, screenshotPath, test } from './fixtures';

let fake: FakeOpenAIServer;
/** A loopback URL nothing listens on any more (a server started, then closed). */
let goneUrl: string;
test.beforeAll(async () => {
  fake = await startFakeOpenAIServer({});
  const gone = await startFakeOpenAIServer({});
  goneUrl = gone.url;
  await gone.close();
});
test.afterAll(() => fake.close());

test.use({ viewport: { width: 1400, height: 1500 } });

test('the form estimates calls, tokens and cost, takes a concurrency, and shows a preflight failure', async ({
  page,
  workbench,
  request,
}) => {
  await openWithMini(page, workbench);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Models' }).click();
  // Local servers: no key variable. One has prices, one is on a port nothing listens on.
  const add = async (name: string, baseUrl: string, prices: boolean): Promise<void> => {
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const editor = page.getByRole('form', { name: 'New endpoint' });
    await editor.getByLabel('Name').fill(name);
    await editor.getByLabel('Model').fill('fake-mini');
    await editor.getByLabel('Base URL').fill(baseUrl);
    await editor.getByLabel('Key environment variable').fill('');
    if (prices) {
      await editor.getByLabel('Input price (USD / 1M tokens)').fill('1.5');
      await editor.getByLabel('Output price (USD / 1M tokens)').fill('6');
    }
    await editor.getByRole('button', { name: 'Save endpoint' }).click();
    await expect(editor).toHaveCount(0);
  };
  await add('Priced', fake.url, true);
  await add('Wrong port', goneUrl, false);

  await nav.getByRole('link', { name: 'Experiments' }).click();
  const form = page.getByRole('form', { name: 'New experiment' });
  await form.getByRole('button', { name: 'First sample only' }).click();
  const estimate = form.getByRole('status', { name: 'Estimate' });
  // mini-1 as the planner counts it (`cli experiment --dry-run`): 16 answers over its 4 tests.
  await expect(estimate).toHaveText('Estimate: no LLM calls (16 answers, extractive)');
  const concurrency = form.getByRole('spinbutton', { name: /^Concurrency/ });
  // Only an LLM answerer has requests to run concurrently.
  await expect(concurrency).toHaveCount(0);

  await form.getByLabel('Answerer').selectOption({ label: 'LLM: Priced (fake-mini)' });
  await expect(estimate).toHaveText(
    /^Estimate: ≈ 16 LLM calls \(16 answer \+ 0 judge\), ~[\d,]+ tokens, \$0\.\d+$/,
  );
  // A judge without prices: the cost is unknown and the line says where to set them.
  const judge = form.getByRole('combobox', { name: /^Judge(?! protocol)/ });
  await judge.selectOption({ label: 'LLM: Wrong port (fake-mini)' });
  await expect(estimate).toHaveText(
    /^Estimate: ≈ \d+ LLM calls \(16 answer \+ \d+ judge\), ~[\d,]+ tokens, cost unknown: set prices in Models$/,
  );
  await judge.selectOption('none');

  await concurrency.fill('2.5');
  await expect(form.getByRole('listitem').filter({ hasText: 'Concurrency must' })).toHaveText(
    'Concurrency must be a whole number.',
  );
  await expect(form.getByRole('button', { name: 'Run', exact: true })).toBeDisabled();
  // Over the config schema's bound: the schema's own message, beside the field it names.
  await concurrency.fill(String(MAX_CONCURRENCY + 1));
  await expect(
    concurrency
      .locator('xpath=..')
      .getByRole('alert')
      .filter({ hasText: /^concurrency: / }),
  ).toContainText(String(MAX_CONCURRENCY));
  await expect(concurrency).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByRole('listitem').filter({ hasText: 'Fix the fields marked' })).toHaveCount(
    1,
  );
  await expect(estimate).toHaveText('Estimate: fix the form first.');
  await expect(form.getByRole('button', { name: 'Run', exact: true })).toBeDisabled();
  await concurrency.fill('4');
  await expect(estimate).toContainText('≈ 16 LLM calls');
  await page.screenshot({ path: screenshotPath('run-form-estimate'), fullPage: true });

  await form.getByRole('button', { name: 'Run', exact: true }).click();
  const run = page.getByRole('article').first();
  await expect(run.locator('.status-badge')).toHaveText('completed', { timeout: 90_000 });
  const runs = await api(request, workbench.url)<Array<{ id: string }>>('runs.list', {});
  const detail = await api(request, workbench.url)<{
    info: { manifest: { config: { concurrency?: number }; estimate?: { answerCalls: number } } };
  }>('runs.get', { runId: runs[0]?.id });
  expect(detail.info.manifest.config.concurrency).toBe(4);
  expect(detail.info.manifest.estimate?.answerCalls).toBe(16);

  // An answerer on a port nothing listens on: the preflight refuses the run and says what to check.
  await form.getByLabel('Answerer').selectOption({ label: 'LLM: Wrong port (fake-mini)' });
  await form.getByRole('button', { name: 'Run', exact: true }).click();
  const refused = form.getByRole('alert').filter({ hasText: 'Could not start the run' });
  await expect(refused).toContainText(
    `preflight: the run was not started: answerer fake-mini at ${goneUrl}`,
  );
  await expect(refused).toContainText(
    /hint: Nothing accepts connections on 127\.0\.0\.1 port \d+: is the server running, and on that port\?/,
  );
  // The estimate needs no endpoint: it is there for the refused run too.
  await expect(estimate).toHaveText(
    /^Estimate: ≈ 16 LLM calls \(16 answer \+ 0 judge\), ~[\d,]+ tokens, cost unknown: set prices in Models$/,
  );
  await refused.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('run-form-preflight'), fullPage: true });
});
