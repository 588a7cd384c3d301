import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * The papers' baselines through `cli experiment`, as a user runs them: the real CLI in a child
 * process, against the fake OpenAI-compatible server on 127.0.0.1 and offline (extractive).
 * tests/fixtures/locomo/rag.json is a made-up sample with observations and session summaries.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const rag = join(repo, 'tests/fixtures/locomo/rag.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-baselines-cli-'));
const KEY_ENV = 'MW_TEST_BASELINES_API_KEY';
const KEY = 'sk-test-baselines-never-stored';

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer({ apiKey: KEY, chat: () => 'Paris' });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[]): Promise<CliResult> {
  return runCli(args, { [KEY_ENV]: KEY, MEMORY_WORKBENCH_DATA: join(dir, 'data') });
}

interface Exported {
  run: {
    answerer: { name: string; prompts: { style: string; sha256: string } | null };
    config: { memory: { preset: string } };
  };
  answers: Array<{
    questionIndex: number;
    retrieved: string[];
    locomoRecall: number | null;
    evidenceRecall: number | null;
  }>;
}

async function exportRun(runId: string, db: string): Promise<Exported> {
  const exported = await cli(['export', runId, '--format', 'json', '--runs-db', db]);
  expect(exported.code).toBe(0);
  return JSON.parse(exported.out) as Exported;
}

type Chat = { model: string; messages: Array<{ role: string; content: string }> } & Record<
  string,
  unknown
>;

describe('LoCoMo RAG baselines through the CLI', () => {
  it('locomo-rag over the observation database: date-prefixed facts, 32 tokens, protocol hash', async () => {
    const db = join(dir, 'rag-llm.db');
    server.requests.length = 0;
    const run = await cli([
      'experiment',
      ...['--data', rag, '--memory', 'locomo-rag-observation', '--top-k', '2'],
      ...['--answerer', 'llm', '--model', 'fake-chat', '--base-url', server.url],
      // Preflight's probe call would be counted with the run's own requests.
      ...['--no-preflight', '--api-key-env', KEY_ENV, '--answer-protocol', 'locomo-rag'],
      ...['--runs-db', db, '--json'],
    ]);
    expect(run.err).not.toContain('error');
    expect(run.code).toBe(0);
    const chats = server.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => r.body as Chat);
    expect(chats.length).toBeGreaterThan(0);
    for (const body of chats) {
      expect(body['max_tokens']).toBe(32);
      expect(body.messages).toHaveLength(1);
      expect(body.messages[0]?.role).toBe('user');
      // No start prompt: the retrieved observations, each after its session's date as written.
      expect(body.messages[0]?.content).toMatch(
        /^((1:56 pm on 8 May, 2023|10:04 am on 27 June, 2023): [^\n]+\n)*(1:56 pm on 8 May, 2023|10:04 am on 27 June, 2023): [^\n]+\n\n\nBased on the above context, /,
      );
    }
    // The last test's prompts quote the dataset's observations, not its turns.
    const last = chats.at(-1)?.messages[0]?.content ?? '';
    expect(last).not.toContain(' said, "');
    const { runId } = JSON.parse(run.out) as { runId: string };
    const exported = await exportRun(runId, db);
    expect(exported.run.answerer.name).toBe('llm:fake-chat:locomo-rag');
    expect(exported.run.answerer.prompts?.style).toBe('locomo-rag');
    expect(exported.run.answerer.prompts?.sha256).toMatch(/^[0-9a-f]{64}$/);
    // LoCoMo recall credits a retrieved observation to the turn it cites.
    const recalls = exported.answers.map((a) => a.locomoRecall);
    expect(recalls.every((r) => r !== null)).toBe(true);
    expect(recalls.some((r) => (r ?? 0) > 0)).toBe(true);
  }, 90_000);

  it('--mode ingest-all inserts everything, then asks each question once', async () => {
    const db = join(dir, 'ingest-all.db');
    const run = await cli([
      'experiment',
      ...['--data', rag, '--memory', 'locomo-rag-dialog', '--mode', 'ingest-all'],
      ...['--runs-db', db, '--json'],
    ]);
    expect(run.code).toBe(0);
    const { runId } = JSON.parse(run.out) as { runId: string };
    const exported = (await exportRun(runId, db)) as Exported & {
      run: { config: { mode?: string } };
      testAnswers: Array<{ testIndex: number }>;
    };
    expect(exported.run.config.mode).toBe('ingest-all');
    expect(exported.testAnswers).toHaveLength(7);
    expect(new Set(exported.testAnswers.map((a) => a.testIndex))).toEqual(new Set([0]));
    const bad = await cli(['experiment', '--data', rag, '--mode', 'batch', '--runs-db', db]);
    expect(bad.code).not.toBe(0);
    expect(bad.err + bad.out).toContain('mode: must be one of stream, ingest-all');
  }, 90_000);

  it.each(['locomo-rag-dialog', 'locomo-rag-observation', 'locomo-rag-summary'])(
    '%s runs offline with the extractive answerer and scores LoCoMo recall',
    async (preset) => {
      const db = join(dir, `${preset}.db`);
      const run = await cli([
        'experiment',
        ...['--data', rag, '--memory', preset, '--top-k', '2', '--answer-protocol', 'locomo-rag'],
        ...['--runs-db', db, '--json'],
      ]);
      expect(run.code).toBe(0);
      const { runId } = JSON.parse(run.out) as { runId: string };
      const exported = await exportRun(runId, db);
      expect(exported.run.config.memory.preset).toBe(preset);
      // Offline: the extractive answerer, standing in for the protocol the manifest records.
      expect(exported.run.answerer.name).toBe('extractive-v1');
      expect(exported.run.answerer.prompts?.style).toBe('locomo-rag');
      expect(exported.answers).toHaveLength(7);
      const answered = exported.answers.filter((a) => a.questionIndex !== 6);
      const locomo = answered.map((a) => a.locomoRecall ?? 0);
      const ours = answered.map((a) => a.evidenceRecall ?? 0);
      expect(locomo.some((r) => r > 0)).toBe(true);
      if (preset === 'locomo-rag-summary') {
        // Summaries are not turns: ours finds no turn, LoCoMo's credits their sessions.
        expect(answered.every((a) => a.retrieved.every((id) => /^S\d+$/.test(id)))).toBe(true);
        expect(ours.every((r) => r === 0)).toBe(true);
        expect(locomo.every((r) => r === 1)).toBe(true);
        // The context ids are stored with the answers: rescoring offline gives the same recall.
        const rescored = await cli([
          'rescore',
          runId,
          '--metrics',
          'locomoRecall',
          '--runs-db',
          db,
        ]);
        expect(rescored.code).toBe(0);
        const again = await exportRun(runId, db);
        expect(again.answers.map((a) => a.locomoRecall)).toEqual(
          exported.answers.map((a) => a.locomoRecall),
        );
      }
    },
    90_000,
  );
});

describe("Mem0's baselines through the CLI", () => {
  it('mem0-rag over mem0-rag-chunks: rag.py system message, top-2 chunks joined by <->', async () => {
    const db = join(dir, 'mem0-rag.db');
    server.requests.length = 0;
    const run = await cli([
      'experiment',
      ...['--data', rag, '--memory', 'mem0-rag-chunks', '--config', ragChunksConfig(64)],
      ...['--top-k', '2', '--mode', 'ingest-all'],
      ...['--answerer', 'llm', '--model', 'fake-chat', '--base-url', server.url],
      // Preflight's probe call would be counted with the run's own requests.
      ...['--no-preflight', '--api-key-env', KEY_ENV, '--answer-protocol', 'mem0-rag'],
      ...['--runs-db', db, '--json'],
    ]);
    expect(run.err).not.toContain('error');
    expect(run.code).toBe(0);
    const chats = server.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => r.body as Chat);
    expect(chats).toHaveLength(7);
    for (const body of chats) {
      expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
      expect(body.messages[0]?.content).toMatch(
        /^You are a helpful assistant .*subjects in your answer\.$/,
      );
      expect(body.messages[1]?.content).toMatch(
        /^\n# Question: \n.+\n\n# Context: \n[^]*\n<->\n[^]*\n\n# Short answer:$/,
      );
      expect(body['temperature']).toBe(0);
    }
    const { runId } = JSON.parse(run.out) as { runId: string };
    const exported = await exportRun(runId, db);
    expect(exported.run.answerer.prompts?.style).toBe('mem0-rag');
    // Chunks are credited to the turns they overlap (LoCoMo recall).
    expect(exported.answers.some((a) => (a.locomoRecall ?? 0) > 0)).toBe(true);
  }, 90_000);

  it('mem0-full-context: the whole history so far as the context, any preset', async () => {
    const db = join(dir, 'mem0-full.db');
    server.requests.length = 0;
    const run = await cli([
      'experiment',
      ...['--data', rag, '--memory', 'text', '--mode', 'ingest-all'],
      ...['--answerer', 'llm', '--model', 'fake-chat', '--base-url', server.url],
      // Preflight's probe call would be counted with the run's own requests.
      ...['--no-preflight', '--api-key-env', KEY_ENV, '--answer-protocol', 'mem0-full-context'],
      ...['--runs-db', db, '--json'],
    ]);
    expect(run.code).toBe(0);
    const chats = server.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => r.body as Chat);
    expect(chats).toHaveLength(7);
    for (const body of chats) {
      const user = body.messages[1]?.content ?? '';
      expect(user).toContain(
        '# Context: \n1:56 pm on 8 May, 2023 | Ann: I moved to Paris last week!\n',
      );
      expect(user).toContain(
        '10:04 am on 27 June, 2023 | Bob: I adopted a second dog named Max.\n\n\n# Short answer:',
      );
    }
    const { runId } = JSON.parse(run.out) as { runId: string };
    expect((await exportRun(runId, db)).run.answerer.prompts?.style).toBe('mem0-full-context');
  }, 90_000);

  it('mem0-rag-chunks runs offline with the extractive answerer (--answer-protocol alone)', async () => {
    const db = join(dir, 'mem0-rag-offline.db');
    const run = await cli([
      'experiment',
      ...['--data', rag, '--memory', 'mem0-rag-chunks', '--config', ragChunksConfig(128)],
      ...['--top-k', '1', '--answer-protocol', 'mem0-rag', '--runs-db', db, '--json'],
    ]);
    expect(run.code).toBe(0);
    const { runId } = JSON.parse(run.out) as { runId: string };
    const exported = await exportRun(runId, db);
    expect(exported.run.answerer.prompts?.style).toBe('mem0-rag');
    expect(exported.answers).toHaveLength(7);
    expect(exported.answers.every((a) => a.retrieved.length === 1)).toBe(true);
  }, 90_000);
});

/** A config file choosing the chunk size (flags name the preset, the file its config). */
function ragChunksConfig(chunkSize: number): string {
  const file = join(dir, `chunks-${chunkSize}.json`);
  writeFileSync(
    file,
    JSON.stringify({ memory: { preset: 'mem0-rag-chunks', config: { chunkSize } } }),
  );
  return file;
}
