import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ExperimentConfigSchema,
  type AnswerProtocolName,
  type ExperimentConfigInput,
} from '../../src-shared/experiment';
import { estimateOf } from '../../src-main/core/pipeline/plan';
import { LOCOMO_DATE_HINT } from '../../src-main/core/answer/protocols';
import {
  LONGMEMEVAL_CON_TOKENS,
  LONGMEMEVAL_READER_CON,
} from '../../src-main/core/answer/longmemeval-reader';
import { inlineExecutor } from '../../src-main/core/pipeline/executors';
import { startRunBypassingLauncher } from '../../src-main/core/launch/testSeam';
import { RunStore } from '../../src-main/core/runs/store';
import { RecencyMemory } from '../fixtures/experiment/test-presets';
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server';

/**
 * A LongMemEval run with the LLM answerer and judge against the fake OpenAI-compatible server,
 * which logs every prompt: the benchmark profile, not LoCoMo's category numbers, decides the
 * question's hints and the judge. LongMemEval's category 2 (single-session-assistant) is
 * LoCoMo's temporal number, so a leaked LoCoMo rule shows there.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const lme = join(repo, 'tests/fixtures/longmemeval/longmemeval_s.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-lme-llm-'));

interface RawQuestion {
  question_id: string;
  question_type: string;
  question: string;
  question_date: string;
}
const questions = JSON.parse(readFileSync(lme, 'utf8')) as RawQuestion[];

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

let counter = 0;
function world(): { store: RunStore; dataDir: string } {
  counter++;
  return {
    store: RunStore.open(join(root, `runs-${counter}.db`)),
    dataDir: join(root, `w${counter}`),
  };
}

const recency = inlineExecutor({ createMemory: async (ctx) => new RecencyMemory(ctx) });

function config(
  answerProtocol: AnswerProtocolName,
  judge: Record<string, unknown> = {},
): ExperimentConfigInput {
  return {
    datasetPath: lme,
    memory: { preset: 'test-recency' },
    answerer: {
      kind: 'llm',
      baseUrl: server.url,
      model: 'fake-chat',
      baseDelayMs: 1,
      answerProtocol,
    },
    judge: { baseUrl: server.url, model: 'fake-judge', baseDelayMs: 1, ...judge },
  };
}

const promptOf = (r: RecordedRequest): string =>
  (r.body as { messages: Array<{ content: string }> }).messages.map((m) => m.content).join('\n');
const calls = (model: string): RecordedRequest[] =>
  server.requests.filter(
    (r) => r.path === '/v1/chat/completions' && (r.body as { model?: string }).model === model,
  );

describe('a LongMemEval LLM run', () => {
  it.each<AnswerProtocolName>(['workbench-locomo', 'locomo-rag', 'mem0'])(
    'asks with the question date and no LoCoMo hint (%s), and is judged by LongMemEval by default',
    async (protocol) => {
      const { store, dataDir } = world();
      server.requests.length = 0;
      const handle = await startRunBypassingLauncher(config(protocol), {
        store,
        dataDir,
        executor: recency,
      });
      expect((await handle.done).status).toBe('completed');

      const prompts = calls('fake-chat').map(promptOf);
      expect(prompts.length).toBeGreaterThanOrEqual(questions.length);
      for (const prompt of prompts) {
        expect(prompt).not.toContain(LOCOMO_DATE_HINT.trim());
        expect(prompt).not.toContain('DATE of CONVERSATION');
      }
      for (const q of questions) {
        const asked = prompts.filter((p) => p.includes(q.question));
        expect(asked.length, q.question_id).toBeGreaterThan(0);
        // The reference reader gives every question its date; temporal reasoning needs it.
        for (const p of asked) expect(p).toContain(`(Current Date: ${q.question_date})`);
      }
      const temporal = questions.find((q) => q.question_type === 'temporal-reasoning');
      expect(prompts.some((p) => p.includes(`${temporal?.question} (Current Date: `))).toBe(true);

      const { manifest } = store.getRun(handle.runId);
      expect(manifest.judge?.prompt.style).toBe('longmemeval');
      expect(manifest.config.judge?.protocol).toBe('longmemeval');
      expect(manifest.warnings).toBeUndefined();
      const judged = calls('fake-judge').map(promptOf);
      expect(judged.length).toBeGreaterThan(0);
      // LongMemEval's get_anscheck_prompt, not Mem0's ACCURACY_PROMPT.
      for (const p of judged) expect(p).toContain('Answer yes or no only.');
      store.close();
    },
  );

  it('reads with the reference reader when no protocol is named, and records it', async () => {
    const { store, dataDir } = world();
    server.requests.length = 0;
    const { answerProtocol: _none, ...named } = config('longmemeval').answerer as Record<
      string,
      unknown
    >;
    const handle = await startRunBypassingLauncher(
      { ...config('longmemeval'), answerer: named as ExperimentConfigInput['answerer'] },
      { store, dataDir, executor: recency },
    );
    expect((await handle.done).status).toBe('completed');
    const { manifest } = store.getRun(handle.runId);
    // The profile's reader, as the judge is the profile's judge: settled in the stored config.
    expect(manifest.config.answerer).toMatchObject({ answerProtocol: 'longmemeval' });
    expect(manifest.answerer.prompts?.style).toBe('longmemeval');
    const sent = calls('fake-chat');
    expect(sent.length).toBeGreaterThan(0);
    for (const r of sent) {
      expect((r.body as { max_tokens?: number }).max_tokens).toBe(LONGMEMEVAL_CON_TOKENS);
      expect(promptOf(r)).toContain(LONGMEMEVAL_READER_CON.slice(0, 40));
      // run_generation.py sends n, temperature and max_tokens: no seed.
      expect(r.body).not.toHaveProperty('seed');
    }
    const judged = calls('fake-judge');
    expect(judged.length).toBeGreaterThan(0);
    // evaluate_qa.py neither.
    for (const r of judged) expect(r.body).not.toHaveProperty('seed');
    store.close();
  });

  it.each<AnswerProtocolName>(['longmemeval-con-separate', 'longmemeval-direct'])(
    'estimates (as --dry-run prints) every call %s makes, notes stage included, at its max_tokens',
    async (protocol) => {
      const { store, dataDir } = world();
      const { judge: _judge, ...input } = config(protocol);
      const parsed = ExperimentConfigSchema.parse(input);
      const estimate = await estimateOf(parsed);
      server.requests.length = 0;
      const handle = await startRunBypassingLauncher(input, { store, dataDir, executor: recency });
      expect((await handle.done).status).toBe('completed');
      const sent = calls('fake-chat');
      expect(estimate?.answerCalls).toBe(sent.length);
      // Completions at their cap: each request's own max_tokens, summed.
      const caps = sent.reduce(
        (n, r) => n + ((r.body as { max_tokens: number }).max_tokens ?? 0),
        0,
      );
      expect(estimate?.completionTokens).toBe(caps);
      // The notes and the answers, as the reference sends them: no seed.
      for (const r of sent) expect(r.body).not.toHaveProperty('seed');
      store.close();
    },
  );

  it('keeps an explicitly named judge of another benchmark, with a warning in the manifest', async () => {
    const { store, dataDir } = world();
    const handle = await startRunBypassingLauncher(
      config('workbench-locomo', { protocol: 'mem0' }),
      {
        store,
        dataDir,
        executor: recency,
      },
    );
    expect((await handle.done).status).toBe('completed');
    const { manifest } = store.getRun(handle.runId);
    expect(manifest.judge?.prompt.style).toBe('mem0');
    expect(manifest.warnings).toEqual([
      'judge protocol "mem0" is LoCoMo\'s judge; this is a LongMemEval run, whose own is "longmemeval"',
    ]);
    store.close();
  });
});
