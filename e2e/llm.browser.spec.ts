import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../tests/support/fake-openai-server';
import { expect, openWithMini, screenshotPath, test } from './fixtures';

// The server gets the key through its environment, as a user's shell would give it; the fake
// model refuses any other key, so a passing run proves the key reached the experiment worker.
const SECRET = 'sk-e2e-fake-secret-0123456789';

/** Every file under `dir` (the data folder: models.json, the runs database, collections). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

let fake: FakeOpenAIServer;
test.beforeAll(async () => {
  // Deterministic: the default script answers with the first retrieved memory and judges by
  // containment of the gold answer.
  fake = await startFakeOpenAIServer({ apiKey: SECRET });
});
test.afterAll(() => fake.close());

test.describe(() => {
  test.use({ viewport: { width: 1400, height: 1500 }, serveEnv: { FAKE_LLM_API_KEY: SECRET } });

  test('adds an LLM endpoint, tests it, runs mini-1 with an LLM answerer and judge, reads the metrics', async ({
    page,
    workbench,
  }) => {
    await openWithMini(page, workbench);

    // ---- Models: add the endpoint, see its key status, test the connection.
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Models' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Models' })).toBeVisible();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const editor = page.getByRole('form', { name: 'New endpoint' });
    await editor.getByLabel('Name').fill('Fake GPT');
    await editor.getByLabel('Model').fill('fake-mini');
    await editor.getByLabel('Base URL').fill(fake.url);
    await editor.getByLabel('Key environment variable').fill('FAKE_LLM_API_KEY');
    await editor.getByLabel('Input price (USD / 1M tokens)').fill('1.5');
    await editor.getByLabel('Output price (USD / 1M tokens)').fill('6');
    await editor.getByRole('button', { name: 'Save endpoint' }).click();
    await expect(editor).toHaveCount(0);

    const card = page.getByRole('listitem', { name: 'Fake GPT' });
    await expect(card).toContainText('fake-mini');
    await expect(card.locator('.status-badge')).toHaveText('key set · environment');
    // Browser mode cannot store keys; with the key set, no instruction is needed either.
    await expect(card.getByRole('button', { name: 'Set key…' })).toHaveCount(0);
    await card.getByRole('button', { name: 'Test connection' }).click();
    const tested = card.getByRole('status', { name: 'Test of Fake GPT' });
    await expect(tested).toContainText(/Connected in \d+ ms/);
    await expect(tested).toContainText('fake-mini');
    await page.screenshot({ path: screenshotPath('models-view'), fullPage: true });

    // The key is nowhere in the data folder: not in models.json, not in the runs.
    const models = readFileSync(join(workbench.dataDir, 'models.json'), 'utf8');
    expect(models).toContain('FAKE_LLM_API_KEY');
    expect(models).not.toContain(SECRET);

    // ---- Experiments: LLM answerer and a judge with two repeats, on mini-1.
    await nav.getByRole('link', { name: 'Experiments' }).click();
    const form = page.getByRole('form', { name: 'New experiment' });
    await form.getByRole('button', { name: 'First sample only' }).click();
    // A memory LLM is offered only for presets that have an LLM stage.
    const memoryLlm = form.getByRole('combobox', { name: /^Memory LLM \(summaries\)/ });
    await expect(memoryLlm).toHaveCount(0);
    await form.getByLabel('Memory preset').selectOption('tiers');
    await expect(memoryLlm).toBeVisible();
    await expect(memoryLlm).toHaveValue('none');
    await form.getByLabel('Memory preset').selectOption('hybrid');
    await expect(memoryLlm).toHaveCount(0);
    await form.getByLabel('Answerer').selectOption({ label: 'LLM: Fake GPT (fake-mini)' });
    await expect(form.getByLabel('Answer protocol')).toHaveValue('workbench-locomo');
    await form
      // A wrapping label's name includes the chosen option's text, hence the role and prefix.
      .getByRole('combobox', { name: /^Judge/ })
      .selectOption({ label: 'LLM: Fake GPT (fake-mini)' });
    await expect(form.getByLabel('Judge protocol')).toHaveValue('mem0');
    await form.getByLabel('Judge repeats').fill('2');
    // As in the CLI, identical requests are answered from the response cache unless asked not to.
    await expect(form.getByLabel('Response cache')).toHaveValue('on');
    await page.screenshot({ path: screenshotPath('llm-experiment-form'), fullPage: true });
    const before = fake.requests.length;
    await form.getByRole('button', { name: 'Run', exact: true }).click();
    const run = page.getByRole('article').first();
    await expect(run.getByRole('progressbar', { name: /^Run .* progress$/ })).toHaveAttribute(
      'aria-valuenow',
      '100',
      { timeout: 90_000 },
    );
    await expect(run.locator('.status-badge')).toHaveText('completed');
    // Answers and judge verdicts went through the fake model with the server's key.
    const chats = fake.requests.slice(before).filter((r) => r.path === '/v1/chat/completions');
    expect(chats.length).toBeGreaterThan(0);
    expect(chats.every((r) => r.headers.authorization === `Bearer ${SECRET}`)).toBe(true);

    // ---- Runs: the Mem0-style metrics, the judge as J ± std, tokens and cost.
    await run.getByRole('button', { name: 'Open results' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
    const manifest = page.getByRole('region', { name: 'Manifest' });
    await expect(manifest).toContainText('fake-mini');
    await expect(manifest).toContainText('locomo ·');
    await expect(manifest).toContainText('2 repeats');
    await expect(manifest).toContainText('protocol mem0');
    await expect(manifest).toContainText(/answer: \d+ calls, [\d,]+ in \+ [\d,]+ out tokens, \$/);
    await expect(manifest).toContainText(/judge: \d+ calls/);
    // Every answer request was either asked or answered from the cache, and the run says which.
    const cacheLine = manifest.getByText(/answered from the cache/);
    await expect(cacheLine).toHaveText(/^on · \d+ answered from the cache, \d+ asked$/);
    const [hits, asked] = ((await cacheLine.textContent()) ?? '').match(/\d+/g)!.map(Number);
    const answerUsage = (await manifest.textContent())?.match(/answer: (\d+) calls/)?.[1];
    // The calls the run paid for are the requests the cache could not answer.
    expect(asked).toBe(Number(answerUsage));
    expect(hits! + asked!).toBeGreaterThan(0);
    const overall = page.getByRole('region', { name: 'Overall scores' });
    await expect(overall).toContainText(/judge J \d\.\d{3} ± \d\.\d{3} \(n=\d+, 2 repeats\)/);

    const byCategory = page.getByRole('region', { name: 'Per category' });
    const metric = byCategory.getByRole('group', { name: 'Metric' });
    for (const name of ['Set F1', 'BLEU-1', 'Judge J'])
      await expect(metric.getByRole('button', { name, exact: true })).toBeVisible();
    await metric.getByRole('button', { name: 'Judge J', exact: true }).click();
    await expect(page).toHaveURL(/metric=judge/);
    const chart = byCategory.getByRole('figure', { name: 'Judge J per category' });
    await expect(chart.locator('.recharts-bar-rectangle').first()).toBeVisible();
    // The curve over the conversation follows the chosen metric, with recall as its reference.
    const curve = page.getByRole('figure', { name: 'Accuracy as the conversation grows' });
    await expect(curve.locator('.recharts-legend-wrapper')).toContainText('Mean J');
    await expect(curve.locator('.recharts-legend-wrapper')).toContainText('Mean evidence recall');

    const questions = page.getByRole('table', { name: 'Questions' });
    // Wide enough for every column: narrower windows hide the least important ones first.
    await page.setViewportSize({ width: 1920, height: 900 });
    for (const name of ['Set F1', 'BLEU-1', 'Judge', 'Tokens', 'Latency ms'])
      await expect(questions.getByRole('columnheader', { name, exact: true })).toBeVisible();
    await page.screenshot({ path: screenshotPath('llm-run-results'), fullPage: true });
    // The app scrolls inside <main>, so the table needs its own shot.
    await questions.scrollIntoViewIfNeeded();
    // mini-1's 7 questions, the 2 without usable evidence included.
    await expect(questions.getByRole('rowgroup').nth(1).getByRole('row')).toHaveCount(7);
    await page.screenshot({ path: screenshotPath('llm-run-questions'), fullPage: true });

    for (const file of filesUnder(workbench.dataDir))
      expect(readFileSync(file).includes(SECRET), file).toBe(false);
  });

  test('shows a run whose final answers are too often errors as degraded, with why', async ({
    page,
    workbench,
  }) => {
    await openWithMini(page, workbench);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Models' }).click();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const editor = page.getByRole('form', { name: 'New endpoint' });
    await editor.getByLabel('Name').fill('Flaky GPT');
    await editor.getByLabel('Model').fill('fake-flaky');
    await editor.getByLabel('Base URL').fill(fake.url);
    await editor.getByLabel('Key environment variable').fill('FAKE_LLM_API_KEY');
    await editor.getByRole('button', { name: 'Save endpoint' }).click();
    await expect(editor).toHaveCount(0);

    // The preflight's one call, then mini-1's 14 answers over its 4 tests (its 2 questions
    // without usable evidence at the last); the last one (a final answer) fails for good.
    let asked = 0;
    fake.setFault(
      {
        kind: 'transform',
        fn: (response) =>
          ++asked === 15 ? { status: 400, json: { error: { message: 'bad request' } } } : response,
      },
      { path: '/v1/chat/completions', times: 15 },
    );
    await nav.getByRole('link', { name: 'Experiments' }).click();
    const form = page.getByRole('form', { name: 'New experiment' });
    await form.getByRole('button', { name: 'First sample only' }).click();
    await form.getByLabel('Answerer').selectOption({ label: 'LLM: Flaky GPT (fake-flaky)' });
    await form.getByRole('button', { name: 'Run', exact: true }).click();
    const run = page.getByRole('article').first();
    await expect(run.locator('.status-badge')).toHaveText('degraded', { timeout: 90_000 });
    await expect(run.getByRole('alert')).toHaveText(
      'Degraded: 1 of 7 final answers are errors (14.3%, more than maxErrorShare 10%)',
    );
    expect(asked).toBe(15);
    fake.setFault(null);

    await run.getByRole('button', { name: 'Open results' }).click();
    const runs = page.getByRole('table', { name: 'Runs' });
    await expect(runs.locator('.status-badge').first()).toHaveText('degraded');
  });
});

test('a local endpoint needs no key, and a failed test says what to check', async ({
  page,
  workbench,
}) => {
  const open = await startFakeOpenAIServer({ chat: () => 'pong' });
  // A port that was just free: nothing listens there any more.
  const gone = await startFakeOpenAIServer({});
  const goneUrl = gone.url;
  await gone.close();
  try {
    await page.goto(`${workbench.url}#/models`);
    const add = async (name: string, baseUrl: string, model: string): Promise<void> => {
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const editor = page.getByRole('form', { name: 'New endpoint' });
      await editor.getByLabel('Name').fill(name);
      await editor.getByLabel('Model').fill(model);
      await editor.getByLabel('Base URL').fill(baseUrl);
      // Empty: a local server takes no key.
      await editor.getByLabel('Key environment variable').fill('');
      await editor.getByRole('button', { name: 'Save endpoint' }).click();
      await expect(editor).toHaveCount(0);
    };

    // A server on another machine may go without a key (a gateway, a vLLM on the LAN), but that
    // is also what a forgotten key variable looks like: the form warns and saves.
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const editor = page.getByRole('form', { name: 'New endpoint' });
    await editor.getByLabel('Name').fill('Remote');
    await editor.getByLabel('Model').fill('m');
    await editor.getByLabel('Base URL').fill('https://llm.example.org/v1');
    await editor.getByLabel('Key environment variable').fill('');
    await expect(editor.getByRole('note', { name: 'Key warning' })).toContainText(
      'without an Authorization header',
    );
    await page.screenshot({ path: screenshotPath('models-endpoint-form') });
    await editor.getByRole('button', { name: 'Save endpoint' }).click();
    await expect(editor).toHaveCount(0);
    const remote = page.getByRole('listitem', { name: 'Remote' });
    await expect(remote).toContainText('no key · remote');
    await expect(remote).toContainText('without an Authorization header');

    await add('Local model', open.url, 'local-mini');
    const local = page.getByRole('listitem', { name: 'Local model' });
    await expect(local).toContainText('none: no key is sent (local server)');
    await local.getByRole('button', { name: 'Test connection' }).click();
    await expect(local.getByRole('status', { name: 'Test of Local model' })).toContainText(
      /Connected in \d+ ms/,
    );
    expect(open.requests.at(-1)?.headers.authorization).toBeUndefined();

    await add('Stopped server', goneUrl, 'local-mini');
    const stopped = page.getByRole('listitem', { name: 'Stopped server' });
    await stopped.getByRole('button', { name: 'Test connection' }).click();
    const result = stopped.getByRole('status', { name: 'Test of Stopped server' });
    await expect(result).toContainText(
      /Check: Nothing accepts connections on 127\.0\.0\.1 port \d+: is the server running, and on that port\?/,
    );
    await page.screenshot({ path: screenshotPath('models-test-hint'), fullPage: true });
  } finally {
    await open.close();
  }
});
