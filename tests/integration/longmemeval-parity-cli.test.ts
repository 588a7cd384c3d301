import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src-shared/experiment';
import { TEST_PROMPT as PREFLIGHT_PROMPT } from '../../src-main/core/pipeline/preflight';
import { RunStore } from '../../src-main/core/runs/store';
import { REPO, runCli } from '../support/cli';
import { expectPrintedQaMetrics, type PrintedQaMetrics } from '../support/longmemeval-figures';
import {
  startFakeOpenAIServer,
  type FakeChatRequest,
  type FakeOpenAIServer,
} from '../support/fake-openai-server';

/**
 * The hand-made tests/fixtures/longmemeval/reader.json through `cli experiment` with
 * LongMemEval's full-history reader and judge, against a fake OpenAI-compatible server that logs
 * every request: the reader prompts, the judge prompts and every accuracy figure equal what
 * LongMemEval's own code writes and prints (tests/fixtures/golden/longmemeval.json, from
 * scripts/golden/generate-longmemeval.py: prepare_prompt, get_anscheck_prompt, print_qa_metrics.py).
 */
type LmeScores = Record<'recallAny' | 'recallAll' | 'ndcgAny', number>;
interface RetrievalRun {
  topK: number;
  questions: Array<{
    questionId: string;
    ranked: string[];
    scores: { turn: LmeScores; session: LmeScores } | null;
    short: boolean;
  }>;
  averaged: { turn: LmeScores; session: LmeScores };
  n: number;
  lowerBound: number;
}
const LME_METRIC_IDS = {
  turn: { recallAny: 'lmeTurnRecallAny', recallAll: 'lmeTurnRecall', ndcgAny: 'lmeTurnNdcg' },
  session: {
    recallAny: 'lmeSessionRecallAny',
    recallAll: 'lmeSessionRecall',
    ndcgAny: 'lmeSessionNdcg',
  },
} as const;
interface Golden {
  retrievalRun: RetrievalRun;
  retrievalRunCapped: RetrievalRun & { cap: number };
  readerPrompts: Array<{ questionId: string; protocol: string; prompt: string }>;
  conSeparate: Array<{
    questionId: string;
    notes: Array<{ prompt: string; maxTokens: number; temperature: number; reply: string }>;
    prompt: string;
  }>;
  readerRun: {
    reply: string;
    judge: Array<{ questionId: string; prompt: string; label: boolean }>;
    qaMetrics: PrintedQaMetrics;
  };
}
const golden = JSON.parse(
  readFileSync(join(REPO, 'tests/fixtures/golden/longmemeval.json'), 'utf8'),
) as Golden;
const dir = mkdtempSync(join(tmpdir(), 'workbench-lme-parity-'));
const db = join(dir, 'runs.db');
const env = {
  MEMORY_WORKBENCH_DATA: join(dir, 'data'),
  MEMORY_WORKBENCH_EXTRA_PRESETS: join(REPO, 'tests/fixtures/experiment/test-presets.ts'),
};
const verdicts = new Map(golden.readerRun.judge.map((j) => [j.prompt, j.label]));
// con-separate's note requests get the reference run's scripted notes.
const notes = new Map(golden.conSeparate.flatMap((c) => c.notes.map((n) => [n.prompt, n.reply])));

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer({
    chat: (chat) => {
      if (chat.model === 'fake-reader') {
        return notes.get(chat.messages.at(-1)?.content ?? '') ?? golden.readerRun.reply;
      }
      // A prompt that is not the reference's gets "no": the figures below would then differ.
      return verdicts.get(chat.messages.at(-1)?.content ?? '') === true ? 'Yes.' : 'no';
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a LongMemEval run as LongMemEval runs it', () => {
  it('sends the reference reader and judge prompts and reports its figures', async () => {
    const r = await runCli(
      [
        'experiment',
        ...['--data', join(REPO, 'tests/fixtures/longmemeval/reader.json')],
        ...['--preset', 'test-recency', '--runs-db', db, '--json'],
        ...['--answerer', 'llm', '--base-url', server.url, '--model', 'fake-reader'],
        ...['--answer-protocol', 'longmemeval-full-context'],
        ...['--judge-base-url', server.url, '--judge-model', 'fake-judge'],
      ],
      env,
    );
    expect(r.code, r.err).toBe(0);
    const { runId, summary } = JSON.parse(r.out) as { runId: string; summary: RunSummary };

    // The run's own requests: the launch's reachability check sends each endpoint one short one.
    const chats = server.requests
      .filter((q) => q.path === '/v1/chat/completions')
      .map((q) => q.body as FakeChatRequest)
      .filter((c) => c.messages.at(-1)?.content !== PREFLIGHT_PROMPT);
    const reader = chats.filter((c) => c.model === 'fake-reader');
    const judge = chats.filter((c) => c.model === 'fake-judge');

    // Reader: prepare_prompt's bytes, one user message, run_generation.py's 800 tokens.
    const expectedReader = golden.readerPrompts
      .filter((p) => p.protocol === 'longmemeval-full-context')
      .map((p) => p.prompt);
    expect(expectedReader).toHaveLength(7);
    const sentReader = reader.map((c) => c.messages.at(-1)?.content);
    for (const prompt of expectedReader) expect(sentReader).toContain(prompt);
    for (const c of reader) {
      expect(c.messages).toHaveLength(1);
      expect(c.max_tokens).toBe(800);
    }

    // Judge: get_anscheck_prompt's bytes for every question, max_tokens 10, as recorded.
    expect(judge.map((c) => c.messages.at(-1)?.content).sort()).toEqual(
      golden.readerRun.judge.map((j) => j.prompt).sort(),
    );
    for (const c of judge) expect(c.max_tokens).toBe(10);
    const store = RunStore.open(db);
    try {
      expect(store.getRun(runId).manifest.config.judge?.maxTokens).toBe(10);
    } finally {
      store.close();
    }

    expectPrintedQaMetrics(summary, golden.readerRun.qaMetrics);
  });

  // The test memory ranks assistant turns among the user turns, so its top-k holds fewer than k
  // of the reference's corpus: the run must read its ranking deeper, as run_retrieval.py ranks
  // the whole corpus, or (capped) say the figure is a lower bound and for how many questions.
  for (const [name, cap] of [
    ['retrievalRun', undefined],
    ['retrievalRunCapped', golden.retrievalRunCapped.cap],
  ] as const) {
    it(`scores retrieval as run_retrieval.py over the memory's ranking (${name})`, async () => {
      const { topK, questions, averaged, n, lowerBound } = golden[name];
      const config = join(dir, `${name}.json`);
      writeFileSync(
        config,
        JSON.stringify({ memory: { preset: 'test-recency', config: cap ? { maxHits: cap } : {} } }),
      );
      const r = await runCli(
        [
          'experiment',
          ...[
            '--data',
            join(REPO, 'tests/fixtures/longmemeval/retrieval.json'),
            '--config',
            config,
          ],
          ...['--top-k', String(topK), '--runs-db', db, '--json'],
        ],
        env,
      );
      expect(r.code, r.err).toBe(0);
      const { runId, summary } = JSON.parse(r.out) as { runId: string; summary: RunSummary };
      const exported = await runCli(['export', runId, '--format', 'json', '--runs-db', db], env);
      expect(exported.code, exported.err).toBe(0);
      const answers = (JSON.parse(exported.out) as { answers: Array<Record<string, unknown>> })
        .answers;

      // Per question: the answerer read the memory's top-k, the figures are the reference's.
      expect(answers).toHaveLength(questions.length);
      for (const q of questions) {
        const answer = answers.find((a) => a.sampleId === q.questionId);
        expect(answer?.retrieved, q.questionId).toEqual(q.ranked);
        for (const level of ['turn', 'session'] as const) {
          for (const [measure, id] of Object.entries(LME_METRIC_IDS[level])) {
            const expected = q.scores?.[level][measure as keyof LmeScores] ?? null;
            expect(answer?.[id], `${q.questionId} ${id}`).toBe(expected);
          }
        }
      }

      // The run's averages are run_retrieval.py's, over the same questions.
      const overall = summary.overall.all as Record<string, { mean: number | null; n: number }>;
      for (const level of ['turn', 'session'] as const) {
        for (const [measure, id] of Object.entries(LME_METRIC_IDS[level])) {
          expect(overall[id]?.n, id).toBe(n);
          expect(overall[id]?.mean, id).toBeCloseTo(
            averaged[level][measure as keyof LmeScores],
            12,
          );
        }
      }
      // Where the memory could not return the depth, the count is stored and printed.
      expect(summary.rankingDepth).toEqual({ scored: n, lowerBound });
      const shown = await runCli(['runs', 'show', runId, '--runs-db', db], env);
      expect(shown.code, shown.err).toBe(0);
      if (lowerBound > 0) expect(shown.out).toContain(`lower bound: ${lowerBound} of ${n}`);
      else expect(shown.out).not.toContain('lower bound');
    });
  }

  it('con-separate: asks for a note per retrieved round, then the answer over the notes', async () => {
    const before = server.requests.length;
    const r = await runCli(
      [
        'experiment',
        ...['--data', join(REPO, 'tests/fixtures/longmemeval/reader.json')],
        ...['--preset', 'test-recency', '--top-k', '3', '--runs-db', db, '--json'],
        ...['--answerer', 'llm', '--base-url', server.url, '--model', 'fake-reader'],
        ...['--answer-protocol', 'longmemeval-con-separate'],
        ...['--judge-base-url', server.url, '--judge-model', 'fake-judge'],
      ],
      env,
    );
    expect(r.code, r.err).toBe(0);
    const reader = server.requests
      .slice(before)
      .filter((q) => q.path === '/v1/chat/completions')
      .map((q) => q.body as FakeChatRequest)
      .filter((c) => c.model === 'fake-reader' && c.messages.at(-1)?.content !== PREFLIGHT_PROMPT);
    const expectedNotes = golden.conSeparate.flatMap((c) => c.notes);
    const sentNotes = reader.filter((c) => notes.has(c.messages.at(-1)?.content ?? ''));
    expect(sentNotes.map((c) => c.messages.at(-1)?.content).sort()).toEqual(
      expectedNotes.map((n) => n.prompt).sort(),
    );
    for (const c of sentNotes) {
      expect(c.messages).toHaveLength(1);
      expect(c.max_tokens).toBe(500);
      expect(c.temperature).toBe(0);
    }
    const answers = reader.filter((c) => !notes.has(c.messages.at(-1)?.content ?? ''));
    expect(answers.map((c) => c.messages.at(-1)?.content).sort()).toEqual(
      golden.conSeparate.map((c) => c.prompt).sort(),
    );
    for (const c of answers) expect(c.max_tokens).toBe(800);
  });
});
