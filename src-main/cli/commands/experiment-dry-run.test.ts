import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../../../tests/support/fake-openai-server';
import { RunStore } from '../../core/runs/store';
import { ExperimentConfigSchema } from '../../../src-shared/experiment';
import { planSweep } from '../../core/pipeline/plan';
import { runCli } from '../main';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-dry-run-'));
let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
  });
  return { code, out, err };
}

/**
 * A LoCoMo sample that talks like LoCoMo does: sessions of chatty turns (contractions, numbers,
 * punctuation) and questions spread over them, so the prompts a run sends have LoCoMo's shape and
 * mini.json's few words do not hide how many characters a token is.
 */
function chattySample(): unknown {
  const phrases = [
    "Hey! I've just got back from the pottery class, it was amazing.",
    'That sounds great, what did you make this time?',
    "A small bowl with blue glaze; I'm going to give it to my mom on 12 May.",
    'She will love it. By the way, did you finish the 5k run last weekend?',
    "Yes, in 27 minutes - my best time so far! I'm thinking of a half marathon next.",
    "Wow, that's impressive. I've been reading a lot lately, mostly sci-fi novels.",
  ];
  const conversation: Record<string, unknown> = { speaker_a: 'Caroline', speaker_b: 'Melanie' };
  const qa: unknown[] = [];
  for (let s = 1; s <= 6; s++) {
    conversation[`session_${s}_date_time`] = `1:56 pm on ${s + 7} May, 2023`;
    conversation[`session_${s}`] = Array.from({ length: 12 }, (_, t) => ({
      speaker: t % 2 === 0 ? 'Caroline' : 'Melanie',
      dia_id: `D${s}:${t + 1}`,
      text: `${phrases[(s + t) % phrases.length]} (${s}.${t})`,
    }));
    for (let q = 0; q < 5; q++) {
      qa.push({
        question: `What did Caroline say about the ${['bowl', 'run', 'book', 'class', 'glaze'][q]} in session ${s}?`,
        answer: `answer ${s}.${q}`,
        evidence: [`D${s}:${2 * q + 1}`],
        category: (q % 4) + 1,
      });
    }
  }
  return { sample_id: 'chatty', conversation, qa };
}

describe('cli experiment --dry-run', () => {
  it("prints the planner's calls, tokens and cost, and calls and writes nothing", async () => {
    const db = join(dir, 'runs.db');
    // Port 9 on loopback: nothing answers there, and nothing may be asked.
    const args = ['--data', mini, '--answerer', 'llm', '--base-url', 'http://127.0.0.1:9/v1'];
    const { code, out, err } = await cli(
      'experiment',
      ...args,
      ...['--model', 'm', '--runs-db', db, '--dry-run', '--json'],
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    const config = ExperimentConfigSchema.parse({
      datasetPath: mini,
      answerer: { kind: 'llm', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' },
    });
    const { totals } = await planSweep([{ index: 0, key: 'run', values: {}, repeat: 0, config }]);
    expect(totals.answerCalls).toBeGreaterThan(0);
    expect(JSON.parse(out)).toEqual({ dryRun: true, estimate: totals });
    expect(existsSync(db)).toBe(false);

    const text = await cli('experiment', ...args, '--model', 'm', '--runs-db', db, '--dry-run');
    expect(text.out).toContain(`LLM calls: ${totals.answerCalls} answer + 0 judge`);
    expect(text.out).toContain('cost (estimate): unknown (no prices in the config)');
  });

  it('keeps the estimate with the run and shows it against the actual calls', async () => {
    const db = join(dir, 'estimate.db');
    const args = ['--data', mini, '--samples', 'mini-1', '--answerer', 'llm'];
    const run = await cli(
      'experiment',
      ...args,
      ...['--base-url', server.url, '--model', 'm', '--runs-db', db, '--json', '--no-cache'],
    );
    expect(run.code).toBe(0);
    const { runId } = JSON.parse(run.out) as { runId: string };
    const config = ExperimentConfigSchema.parse({
      datasetPath: mini,
      samples: ['mini-1'],
      answerer: { kind: 'llm', baseUrl: server.url, model: 'm' },
    });
    const { totals } = await planSweep([{ index: 0, key: 'run', values: {}, repeat: 0, config }]);
    const store = RunStore.open(db);
    const { manifest } = store.getRun(runId);
    store.close();
    expect(manifest.estimate).toEqual({
      answerCalls: totals.answerCalls,
      judgeCalls: 0,
      promptTokens: totals.promptTokens,
      completionTokens: totals.completionTokens,
      cost: null,
    });
    const shown = await cli('runs', 'show', runId, '--runs-db', db);
    expect(shown.out).toContain(
      `LLM estimate ${totals.answerCalls} calls (${totals.answerCalls} answer, 0 judge), cost unknown; actual ${manifest.usage?.answer.calls} requests, cost unknown`,
    );
  });

  it("estimates the prompt tokens the run sends: its prompts' characters / 4, within a few percent", async () => {
    const db = join(dir, 'sent.db');
    const data = join(dir, 'chatty.json');
    writeFileSync(data, JSON.stringify([chattySample()]));
    const before = server.requests.length;
    const run = await cli(
      'experiment',
      ...['--data', data, '--answerer', 'llm', '--base-url', server.url, '--model', 'm'],
      ...['--runs-db', db, '--json', '--no-cache', '--no-preflight'],
    );
    expect(run.code).toBe(0);
    const sent = server.requests
      .slice(before)
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => r.body as { messages: { content: string }[] });
    const chars = sent.reduce(
      (sum, body) => sum + body.messages.reduce((n, m) => n + m.content.length, 0),
      0,
    );
    const config = ExperimentConfigSchema.parse({
      datasetPath: data,
      answerer: { kind: 'llm', baseUrl: server.url, model: 'm' },
    });
    const { totals } = await planSweep([{ index: 0, key: 'run', values: {}, repeat: 0, config }]);
    expect(sent.length).toBe(totals.answerCalls);
    // The same four characters a token as the client's own estimate (llm-client estimatedTokens).
    expect(totals.promptTokens / (chars / 4)).toBeGreaterThan(0.95);
    expect(totals.promptTokens / (chars / 4)).toBeLessThan(1.05);
  });
});
