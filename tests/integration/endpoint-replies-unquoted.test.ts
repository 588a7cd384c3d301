import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiHandlers } from '../../src-shared/api';
import { createService, type Service } from '../../src-main/core/service';
import { EXTRA_PRESETS_ENV } from '../../src-main/core/pipeline/loadPresets';
import { NOT_QUOTED } from '../../src-main/core/trust';
import { runEnded } from '../support/run-events';
import type { ApiEvent } from '../../src-shared/api';

/**
 * Issue 39 item 2: the browser API lets its caller choose an LLM endpoint's URL (path and query
 * too), so an endpoint could be any local HTTP service. Errors about such an endpoint (the Models
 * view's test call, a run's preflight, a run's answers, a rescore's judge) say the reply's status,
 * content type and length, never its text. The desktop app and the CLI (the local user) still see
 * an excerpt: the rule is core/trust.ts `isLocalUser`, as for memory services.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const SECRET = 'SECRET-LOCAL-BODY';

/** A local service that is not an LLM: HTML on 200, a secret error text on 500, JSON on 400. */
let local: http.Server;
let localUrl: string;
let root: string;
let browser: Service;
let desktop: Service;
const events: ApiEvent[] = [];

beforeAll(async () => {
  process.env[EXTRA_PRESETS_ENV] = join(repo, 'tests/fixtures/experiment/test-presets.ts');
  local = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const query = new URL(request.url ?? '/', 'http://x').searchParams.get('q') ?? '';
      if (query.startsWith('500')) {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`${SECRET}-500 internal notes`);
      } else if (query.startsWith('400')) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `${SECRET}-400 token=abc` } }));
      } else {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end(`<html>${SECRET}-200 admin panel</html>`);
      }
    });
  });
  await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
  localUrl = `http://127.0.0.1:${(local.address() as AddressInfo).port}/secret/path`;
  root = mkdtempSync(join(tmpdir(), 'mw-unquoted-'));
  browser = createService({
    dataDir: join(root, 'browser'),
    transport: 'http',
    datasetDirs: [root],
    emit: (e) => events.push(e),
  });
  desktop = createService({ dataDir: join(root, 'desktop'), transport: 'electron' });
});

afterAll(async () => {
  await browser.close();
  await desktop.close();
  await new Promise((resolve) => local.close(resolve));
  delete process.env[EXTRA_PRESETS_ENV];
  rmSync(root, { recursive: true, force: true });
});

const baseUrlFor = (status: 200 | 400 | 500): string => `${localUrl}?q=${status}`;

async function testCall(api: ApiHandlers, status: 200 | 400 | 500): Promise<string> {
  const saved = await api['models.save']({
    endpoint: { name: `local ${status}`, baseUrl: baseUrlFor(status), model: 'm' },
  });
  const result = await api['models.test']({ endpointId: saved.id });
  expect(result.ok).toBe(false);
  return result.error ?? '';
}

function run(datasetId: string, baseUrl: string, extra: Record<string, unknown> = {}) {
  return {
    datasetId,
    samples: ['mini-1'],
    memory: { preset: 'test-recency', config: {} },
    answerer: { kind: 'llm', baseUrl, model: 'm', maxRetries: 0 },
    retrieval: { topK: 2 },
    includeNoEvidence: true,
    ...extra,
  } as Parameters<ApiHandlers['experiments.start']>[0];
}

const upload = (api: ApiHandlers) =>
  api['datasets.upload']({
    name: 'mini.json',
    content: readFileSync(join(repo, 'tests/fixtures/locomo/mini.json'), 'utf8'),
  });

describe('errors about an endpoint the browser API chose never quote its reply', () => {
  it('models.test says status, content type and length of a non-JSON 200, a 500 and a 400', async () => {
    const api = browser.handlers;
    const html = await testCall(api, 200);
    expect(html).not.toContain(SECRET);
    expect(html).toContain('response is not JSON');
    const htmlBytes = Buffer.byteLength(`<html>${SECRET}-200 admin panel</html>`);
    expect(html).toContain(`${htmlBytes} bytes of text/html ${NOT_QUOTED}`);
    const failed = await testCall(api, 500);
    expect(failed).not.toContain(SECRET);
    expect(failed).toMatch(/-> HTTP 500: \d+ bytes of text\/plain \(the reply is not quoted/);
    // An OpenAI-style error message is the reply's text too.
    const refused = await testCall(api, 400);
    expect(refused).not.toContain(SECRET);
    expect(refused).toMatch(/-> HTTP 400: \d+ bytes of application\/json/);
  });

  it('the desktop app (the local user) still sees an excerpt', async () => {
    expect(await testCall(desktop.handlers, 200)).toContain(`<html>${SECRET}-200 admin panel`);
    expect(await testCall(desktop.handlers, 400)).toContain(`HTTP 400: ${SECRET}-400`);
  });

  it("a run's preflight, its answers and a rescore's judge never quote it", async () => {
    const api = browser.handlers;
    const { datasetId } = await upload(api);
    for (const status of [200, 400, 500] as const) {
      const refusal = await api['experiments.start'](run(datasetId, baseUrlFor(status))).then(
        () => 'started',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      expect(refusal).toMatch(/^preflight: the run was not started: /);
      expect(refusal).not.toContain(SECRET);
    }
    // Not preflighted: every answer fails against the service, and its error is stored.
    const { runId } = await api['experiments.start'](
      run(datasetId, baseUrlFor(500), { preflight: false, maxConsecutiveFailures: 2 }),
    );
    await runEnded(events, runId);
    const answers = await api['runs.answers']({ runId });
    expect(answers.some((a) => a.error !== null)).toBe(true);
    expect(JSON.stringify(answers)).not.toContain(SECRET);
    expect(answers.find((a) => a.error !== null)?.error).toContain('HTTP 500: ');

    const rescored = await api['runs.rescore']({
      runId,
      judge: { baseUrl: baseUrlFor(200), model: 'm', maxRetries: 0 },
    } as Parameters<ApiHandlers['runs.rescore']>[0]);
    expect(JSON.stringify(rescored)).not.toContain(SECRET);
    const detail = await api['runs.get']({ runId });
    expect(JSON.stringify(detail)).not.toContain(SECRET);
  });
});
