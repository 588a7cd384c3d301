import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * `cli experiment` with an LLM answerer and judge, as a user runs it: the real CLI in a child
 * process, talking to an OpenAI-compatible server this test runs on 127.0.0.1. The child is
 * spawned asynchronously so this process's event loop can serve its requests.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-llm-cli-'));
const KEY_ENV = 'MW_TEST_LLM_CLI_API_KEY';
const KEY = 'sk-test-cli-never-stored-81d2';

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer({ apiKey: KEY });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

// MW_CLI_LLM_SECRET holds the key under a name that is not key-like (see the last test).
function cli(args: string[]): Promise<CliResult> {
  return runCli(args, {
    [KEY_ENV]: KEY,
    MW_CLI_LLM_SECRET: KEY,
    MEMORY_WORKBENCH_DATA: join(dir, 'data'),
  });
}

describe('cli experiment with an LLM', () => {
  it('answers with the LLM, judges, scores every metric and keeps the key out of the export', async () => {
    const db = join(dir, 'runs.db');
    // One 500 on the way: retried, and the run still completes without errors.
    server.setFault({ kind: 'status', status: 500, body: 'overloaded' }, { times: 1 });
    const run = await cli([
      'experiment',
      '--data',
      mini,
      '--samples',
      'mini-1',
      '--answerer',
      'llm',
      '--base-url',
      server.url,
      '--model',
      'fake-chat',
      '--api-key-env',
      KEY_ENV,
      '--judge-base-url',
      server.url,
      '--judge-model',
      'fake-judge',
      '--judge-api-key-env',
      KEY_ENV,
      '--judge-repeats',
      '2',
      '--runs-db',
      db,
      '--json',
      // The 500 is for the run to retry, not for the preflight call to refuse.
      '--no-preflight',
    ]);
    expect(run.err).not.toContain('error');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.out) as {
      runId: string;
      status: string;
      summary: {
        questions: number;
        errors: number;
        overall: {
          answerable: Record<'officialF1' | 'setF1' | 'bleu1' | 'judge', { n: number }>;
        };
      };
    };
    expect(report).toMatchObject({ status: 'completed', summary: { errors: 0 } });
    const c14 = report.summary.overall.answerable;
    expect(c14.officialF1.n).toBeGreaterThan(0);
    for (const metric of ['setF1', 'bleu1', 'judge'] as const)
      expect(c14[metric].n).toBe(c14.officialF1.n);

    const chats = server.requests.filter((r) => r.path === '/v1/chat/completions');
    const models = new Set(chats.map((r) => (r.body as { model?: string }).model));
    expect(models).toEqual(new Set(['fake-chat', 'fake-judge']));
    expect(chats.every((r) => r.headers['authorization'] === `Bearer ${KEY}`)).toBe(true);

    const exported = await cli(['export', report.runId, '--format', 'json', '--runs-db', db]);
    expect(exported.code).toBe(0);
    const json = JSON.parse(exported.out) as {
      run: { answerer: { model: string }; judge: { model: string; repeats: number } };
      answers: Array<{ prediction: string; judgeMean: number | null; category: number }>;
    };
    expect(json.run.answerer.model).toBe('fake-chat');
    expect(json.run.judge).toMatchObject({ model: 'fake-judge', repeats: 2 });
    expect(json.answers.filter((a) => a.category !== 5).every((a) => a.judgeMean !== null)).toBe(
      true,
    );
    expect(exported.out).not.toContain(KEY);
    // Every file of the runs database (main, WAL, shared memory), byte for byte.
    const files = readdirSync(dir).filter((f) => f.startsWith('runs.db'));
    expect(files).toContain('runs.db');
    for (const file of files)
      expect(readFileSync(join(dir, file)).includes(Buffer.from(KEY)), file).toBe(false);
  }, 90_000);

  it('runs the LoCoMo full-context protocol and a judge protocol from a file', async () => {
    const db = join(dir, 'protocols.db');
    const judgeFile = join(dir, 'my judge.txt');
    writeFileSync(
      judgeFile,
      'Q={{question}}\nG={{gold}}\nA={{answer}}\nAnswer in JSON with "label".',
    );
    server.requests.length = 0;
    const run = await cli([
      'experiment',
      ...['--data', mini, '--samples', 'mini-1', '--answerer', 'llm', '--model', 'fake-chat'],
      ...['--base-url', server.url, '--api-key-env', KEY_ENV],
      ...['--answer-protocol', 'locomo-full-context', '--adversarial-reply-mapping', 'lenient'],
      ...['--judge-base-url', server.url, '--judge-model', 'fake-judge'],
      ...['--judge-api-key-env', KEY_ENV, '--judge-protocol-file', judgeFile],
      // Every chat request checked below is the run's own, none a preflight call.
      ...['--runs-db', db, '--json', '--no-preflight'],
    ]);
    expect(run.err).not.toContain('error');
    expect(run.code).toBe(0);
    const chats = server.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map(
        (r) =>
          r.body as { model: string; messages: Array<{ role: string; content: string }> } & Record<
            string,
            unknown
          >,
      );
    const answers = chats.filter((b) => b.model === 'fake-chat');
    expect(answers.length).toBeGreaterThan(0);
    for (const body of answers) {
      expect(body['max_tokens']).toBe(32);
      expect(body.messages).toHaveLength(1);
      expect(body.messages[0]?.role).toBe('user');
      // The conversation inserted so far, in LoCoMo's own layout.
      expect(body.messages[0]?.content).toMatch(
        /^Below is a conversation between two people: .* wriiten at the beginning of the conversation\.\n\nDATE: .*\nCONVERSATION:\n.* said, "/s,
      );
    }
    const judged = chats.filter((b) => b.model === 'fake-judge');
    expect(judged.length).toBeGreaterThan(0);
    for (const body of judged) {
      expect(body.messages[0]?.content).toMatch(
        /^Q=.*\nG=.*\nA=.*\nAnswer in JSON with "label"\.$/s,
      );
      expect(body['response_format']).toEqual({ type: 'json_object' });
    }
    const { runId } = JSON.parse(run.out) as { runId: string };
    const exported = await cli(['export', runId, '--format', 'json', '--runs-db', db]);
    const manifest = (JSON.parse(exported.out) as { run: Record<string, unknown> }).run as {
      answerer: { name: string; prompts: { style: string; sha256: string } };
      judge: {
        prompt: { style: string; sha256: string };
        responseFormat: string;
        unparseable: number;
      };
    };
    expect(manifest.answerer.name).toBe('llm:fake-chat:locomo-full-context');
    expect(manifest.answerer.prompts.style).toBe('locomo-full-context');
    expect(manifest.judge).toMatchObject({
      prompt: { style: 'custom:my-judge' },
      responseFormat: 'json_object',
      unparseable: 0,
    });
    expect(manifest.judge.prompt.sha256).toMatch(/^[0-9a-f]{64}$/);
  }, 90_000);

  it('reads a variable that is not key-like only when declared with --allow-key-env', async () => {
    const args = [
      'experiment',
      ...['--data', mini, '--samples', 'mini-1', '--answerer', 'llm', '--model', 'fake-chat'],
      ...['--base-url', server.url, '--api-key-env', 'MW_CLI_LLM_SECRET'],
      ...['--runs-db', join(dir, 'declared.db'), '--json'],
    ];
    server.requests.length = 0;
    const refused = await cli(args);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain(
      'answerer: apiKeyEnv "MW_CLI_LLM_SECRET" is not a key variable; use a name ending in _API_KEY or _API_TOKEN (or HF_TOKEN, HUGGING_FACE_HUB_TOKEN), or pass --allow-key-env MW_CLI_LLM_SECRET',
    );
    expect(server.requests).toEqual([]);

    const declared = await cli([...args, '--allow-key-env', 'MW_CLI_LLM_SECRET']);
    expect(declared.code).toBe(0);
    const chats = server.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(chats.length).toBeGreaterThan(0);
    expect(chats.every((r) => r.headers['authorization'] === `Bearer ${KEY}`)).toBe(true);
  }, 90_000);
});
