import { startFakeOpenAIServer, type FakeOpenAIServer } from '../tests/support/fake-openai-server';
import { expect, openWithMini, test } from './fixtures';

// The server gets the key through its environment; the fake server refuses any other key, so a
// completed run proves the embedder's key reached the experiment worker.
const SECRET = 'sk-e2e-fake-embed-secret-9876';

let fake: FakeOpenAIServer;
test.beforeAll(async () => {
  fake = await startFakeOpenAIServer({ apiKey: SECRET, dim: 16 });
});
test.afterAll(() => fake.close());

test.describe(() => {
  test.use({ viewport: { width: 1400, height: 1500 }, serveEnv: { FAKE_EMBED_API_KEY: SECRET } });

  test('runs the vector preset with a saved endpoint as its embedder', async ({
    page,
    workbench,
  }) => {
    await openWithMini(page, workbench);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Models' }).click();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const editor = page.getByRole('form', { name: 'New endpoint' });
    await editor.getByLabel('Name').fill('Fake embeddings');
    await editor.getByLabel('Model').fill('fake-embed');
    await editor.getByLabel('Base URL').fill(fake.url);
    await editor.getByLabel('Key environment variable').fill('FAKE_EMBED_API_KEY');
    await editor.getByRole('button', { name: 'Save endpoint' }).click();
    await expect(editor).toHaveCount(0);

    await nav.getByRole('link', { name: 'Experiments' }).click();
    const form = page.getByRole('form', { name: 'New experiment' });
    await form.getByRole('button', { name: 'First sample only' }).click();
    // Offered only for presets whose config takes an embedder.
    const embedder = form.getByRole('combobox', { name: /^Embedder/ });
    await form.getByLabel('Memory preset').selectOption('stm');
    await expect(embedder).toHaveCount(0);
    await form.getByLabel('Memory preset').selectOption('vector');
    await expect(embedder).toHaveValue('wink-sif-100d');
    await embedder.selectOption({ label: 'Fake embeddings (fake-embed)' });
    await form.getByRole('button', { name: 'Run', exact: true }).click();
    const run = page.getByRole('article').first();
    await expect(run.getByRole('progressbar', { name: /^Run .* progress$/ })).toHaveAttribute(
      'aria-valuenow',
      '100',
      { timeout: 90_000 },
    );
    await expect(run.locator('.status-badge')).toHaveText('completed');
    const embeddings = fake.requests.filter((r) => r.path === '/v1/embeddings');
    expect(embeddings.length).toBeGreaterThan(0);
    expect(embeddings.every((r) => r.headers.authorization === `Bearer ${SECRET}`)).toBe(true);

    await run.getByRole('button', { name: 'Open results' }).click();
    const manifest = page.getByRole('region', { name: 'Manifest' });
    await expect(manifest).toContainText('openai:fake-embed');
    await expect(manifest).toContainText(/\d+ requests, cache \d+ hits \/ [1-9]\d* misses/);
  });
});
