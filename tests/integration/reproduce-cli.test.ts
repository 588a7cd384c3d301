import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli';
import { table2Columns } from '../../src-shared/compare';
import type { PackCell, PackTable2Cell } from '../../src-shared/reproduce';
import type { AnswerRecord, ExperimentConfig } from '../../src-shared/experiment';
import { RunStore } from '../../src-main/core/runs/store';
import { estimateTokens } from '../../src-main/core/answer/protocols';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';
import { fakeMem0Chat } from '../support/fake-mem0-model';

/**
 * `cli reproduce <pack>` end to end on the mini fixture: against the fake OpenAI-compatible
 * server (the paper's protocol and judge, our endpoint) and offline with the extractive answerer.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-reproduce-cli-'));
const KEY_ENV = 'MW_TEST_REPRODUCE_API_KEY';
const KEY = 'sk-test-reproduce';

let server: FakeOpenAIServer;
beforeAll(async () => {
  // Mem0's extraction requests get the library's JSON (a run that stores nothing now fails).
  server = await startFakeOpenAIServer({ apiKey: KEY, chat: fakeMem0Chat });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[]): Promise<CliResult> {
  return runCli(args, { [KEY_ENV]: KEY, MEMORY_WORKBENCH_DATA: dir });
}

interface Report {
  offline: boolean;
  repeats: number;
  plan: { answerCalls: number; judgeCalls: number; questions: number };
  groups: Record<string, string>;
  cells: PackCell[];
  table2?: PackTable2Cell[];
  setting?: string;
}

const data = ['--data', mini, '--samples', 'mini-1'];
/** A conversation of about 600 tokens: several of Mem0's 128-token chunks, with 4 questions. */
const chunksData = ['--data', join(repo, 'tests/fixtures/locomo/chunks.json')];

/** Each row's one completed run: its config and its final answers (from the runs database). */
function finishedRuns(
  groups: Record<string, string>,
): Map<string, { config: ExperimentConfig; answers: AnswerRecord[] }> {
  const store = RunStore.open(join(dir, 'runs.db'));
  try {
    return new Map(
      Object.entries(groups).map(([row, group]) => {
        const runs = store.sweepRuns(group).filter((r) => r.status === 'completed');
        expect(runs, row).toHaveLength(1);
        const runId = runs[0]!.runId;
        const answers = store.finalAnswers(runId);
        for (const a of answers) {
          expect(a.error, `${row} ${a.question}`).toBeNull();
          expect(a.prediction.trim(), `${row} ${a.question}`).not.toBe('');
        }
        return [row, { config: store.getRun(runId).manifest.config, answers }];
      }),
    );
  } finally {
    store.close();
  }
}
const online = () => ['--base-url', server.url, '--api-key-env', KEY_ENV];
/**
 * Every planned answer call reaches the server, for tests that count them against the plan:
 * without the response cache (on mini-1, rows whose context holds the whole conversation send the
 * same prompt, which the cache would answer) and without the runs' preflight calls.
 */
const asPlanned = ['--no-cache', '--no-preflight'];

describe('cli reproduce', () => {
  it('mem0-table1 against an OpenAI-compatible server: plan first, then paper vs ours per cell', async () => {
    const plan = await cli(['reproduce', 'mem0-table1', ...data, ...online(), '--plan']);
    expect(plan.code, plan.err).toBe(0);
    // mini-1's 7 questions, asked once after the whole conversation (ingest-all, as the paper).
    expect(plan.out).toMatch(/LLM calls: \d+ answer \+ \d+ judge \(at most\)/);
    expect(plan.out).toContain('10 complete run(s) per row, as the paper');
    expect(server.requests).toHaveLength(0);

    const run = await cli([
      'reproduce',
      'mem0-table1',
      ...data,
      ...online(),
      '--repeats',
      '2',
      '--json',
    ]);
    expect(run.code, run.err).toBe(0);
    const report = JSON.parse(run.out) as Report;
    expect(report).toMatchObject({ offline: false, repeats: 2 });
    const chats = server.requests.filter((r) => r.path === '/v1/chat/completions');
    const models = new Set(chats.map((r) => (r.body as { model: string }).model));
    // The paper's models by name, sent to our endpoint.
    expect(models).toEqual(new Set(['gpt-4o-mini']));
    expect(report.plan.answerCalls).toBe(
      chats.filter((r) => JSON.stringify(r.body).includes('Memories for user')).length,
    );
    // Mem0's question set: mini-1's 5 questions of categories 1-4, twice, for each of the two
    // rows that run (the hybrid preset and the released Mem0 library); its 2 adversarial
    // (category 5) questions are not asked, as Mem0 never asks them.
    expect(report.plan.answerCalls).toBe(2 * 2 * 5);
    // The library row's memory LLM is the pack's model on the same endpoint.
    const extraction = chats.filter((r) => JSON.stringify(r.body).includes('## New Messages'));
    expect(extraction.length).toBeGreaterThan(0);
    const store = RunStore.open(join(dir, 'runs.db'));
    try {
      const runs = store.sweepRuns(report.groups['hybrid-stand-in']!);
      expect(runs).toHaveLength(2);
      for (const r of runs) {
        const answers = store.finalAnswers(r.runId);
        expect(answers.map((a) => a.category).sort()).toEqual([1, 2, 3, 4, 4]);
        expect(store.getRun(r.runId).manifest.coverage).toMatchObject({ categoriesNotAsked: 2 });
      }
    } finally {
      store.close();
    }
    const overall = report.cells.find(
      (c) => c.row === 'hybrid-stand-in' && c.metric === 'judge' && c.cell === 'overall',
    )!;
    expect(overall.paper).toBe(66.88);
    expect(overall.paperStd).toBe(0.15);
    expect(overall.ours).not.toBeNull();
    expect(overall.diff).toBeCloseTo(overall.ours! - 66.88, 10);
    // The same answers both runs (a deterministic model): no spread, but a std over 2 runs.
    expect(overall.oursStd).toBe(0);
    expect(Object.keys(report.groups)).toEqual(['hybrid-stand-in', 'mem0-library']);
    const library = report.cells.find(
      (c) => c.row === 'mem0-library' && c.metric === 'judge' && c.cell === 'overall',
    )!;
    expect(library.paper).toBe(66.88);
    expect(library.ours).not.toBeNull();
  }, 180_000);

  it('mem0-table1 offline with the extractive answerer says it is not the paper setting', async () => {
    const run = await cli(['reproduce', 'mem0-table1', ...data, '--repeats', '1']);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain(
      "OFFLINE: extractive answerer, no judge. This is NOT the paper's setting",
    );
    expect(run.out).toContain('1 complete run(s) per row (the paper: 10)');
    // F1 (no verified paper figure) is ours only; J is the paper's only (no judge offline).
    expect(run.out).toMatch(/hybrid-stand-in\s+set F1\s+overall\s+-\s+\d+\.\d\d/);
    expect(run.out).toMatch(/hybrid-stand-in\s+J\s+overall\s+66\.88 ± 0\.15\s+-\s+-\n/);
    // Table 1's F1 per question type beside ours: single-hop is stored category 1 in Mem0's naming.
    expect(run.out).toMatch(
      /hybrid-stand-in\s+set F1\s+1 single-hop\s+38\.72\s+\d+\.\d\d\s+[+-]\d+\.\d\d\n/,
    );
    expect(run.out).toContain("figures: read in the paper's text");
  }, 120_000);

  it('locomo-table2 runs each context budget and gpt-4-turbo, online and offline', async () => {
    server.requests.length = 0;
    const run = await cli([
      'reproduce',
      'locomo-table2',
      ...data,
      ...online(),
      ...asPlanned,
      '--json',
    ]);
    expect(run.code, run.err).toBe(0);
    const report = JSON.parse(run.out) as Report;
    const rows = [
      'full-context-4k',
      'full-context-8k',
      'full-context-12k',
      'full-context-16k',
      'gpt-4-turbo-128k',
    ];
    expect(Object.keys(report.groups)).toEqual(rows);
    // LoCoMo's full-context prompt went out (its conversation block), and no judge was asked.
    const chats = server.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(chats.some((r) => JSON.stringify(r.body).includes('CONVERSATION:'))).toBe(true);
    expect(report.plan.judgeCalls).toBe(0);
    // Each row asks the paper's model for that row, 10 (gpt-3.5-turbo) or 20 (gpt-4-turbo)
    // questions to a prompt: mini-1's 7 questions are one call a row.
    const models = chats.map((r) => (r.body as { model: string }).model);
    expect(models).toEqual([...Array(4).fill('gpt-3.5-turbo'), 'gpt-4-turbo']);
    expect(report.plan.answerCalls).toBe(5);
    const batch = chats[0]!.body as { messages: Array<{ content: string }>; max_tokens: number };
    expect(batch.messages[0]!.content).toContain(
      'write short answers for each of the following questions',
    );
    expect(batch.messages[0]!.content).toMatch(/\n6: .+$/);
    expect(batch.max_tokens).toBe(500);
    expect((chats[4]!.body as { max_tokens: number }).max_tokens).toBe(1000);
    // Every question got its own answer out of the batch reply.
    for (const [row, run] of finishedRuns(report.groups)) {
      expect(run.answers, row).toHaveLength(7);
      expect(run.config.answerer).toMatchObject({
        batchSize: row === 'gpt-4-turbo-128k' ? 20 : 10,
      });
    }
    // Every row's overall has the paper's figure beside ours, paper-only rows the paper's alone.
    const overall = report.cells.filter((c) => c.cell === 'overall');
    for (const row of rows)
      expect(overall.find((c) => c.row === row)).toMatchObject({
        paper: expect.any(Number),
        ours: expect.any(Number),
      });
    expect(overall.find((c) => c.row === 'gpt-4-turbo-128k')!.paper).toBe(51.6);
    expect(overall.find((c) => c.row === 'human')).toMatchObject({ paper: 87.9, ours: null });

    const offline = await cli(['reproduce', 'locomo-table2', ...data]);
    expect(offline.code, offline.err).toBe(0);
    expect(offline.out).toContain("This is NOT the paper's setting");
    expect(offline.out).toContain('ACL 2024 (Long Papers)');
    expect(offline.out).toContain("the paper's questions: the 10 released conversations, 1,986");
    // Single-hop is stored category 4 in LoCoMo's naming.
    expect(offline.out).toMatch(
      /full-context-16k\s+official F1\s+4 single-hop\s+52\.6\s+\d+\.\d\s+[+-]\d+\.\d\n/,
    );
  }, 240_000);

  it('locomo-table3 runs every database and k, online as planned and offline', async () => {
    server.requests.length = 0;
    const args = ['reproduce', 'locomo-table3', ...data, ...online(), ...asPlanned];
    const plan = JSON.parse((await cli([...args, '--plan', '--json'])).out) as Report;
    expect(server.requests).toHaveLength(0);
    const run = await cli([...args, '--json']);
    expect(run.code, run.err).toBe(0);
    const report = JSON.parse(run.out) as Report;
    const rows = (
      [
        ['dialog', [5, 10, 25, 50]],
        ['observation', [5, 10, 25, 50]],
        ['summary', [2, 5, 10]],
      ] as const
    ).flatMap(([db, ks]) => ks.map((k) => `rag-${db}-k${k}`));
    expect(Object.keys(report.groups)).toEqual(rows);
    // Ingest all, ask once: one call per question of mini-1 per row, as the plan said.
    const chats = server.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(plan.plan.answerCalls).toBe(rows.length * 7);
    expect(chats).toHaveLength(plan.plan.answerCalls);
    expect(plan.plan.judgeCalls).toBe(0);
    const runs = finishedRuns(report.groups);
    for (const [row, run] of runs) {
      const k = Number(/k(\d+)$/.exec(row)![1]);
      expect(run.config).toMatchObject({
        mode: 'ingest-all',
        memory: { preset: `locomo-rag-${/rag-(\w+)-k/.exec(row)![1]}` },
        retrieval: { topK: k },
        answerer: { kind: 'llm', answerProtocol: 'locomo-rag', model: 'gpt-3.5-turbo' },
      });
      expect(run.answers).toHaveLength(7);
      for (const a of run.answers) expect(a.retrieved.length).toBeLessThanOrEqual(k);
    }
    // The dialog rows' context: `date_time: Speaker said, "text"` lines (rows run in order).
    const prompt = (i: number): string =>
      (chats[i]!.body as { messages: Array<{ content: string }> }).messages
        .map((m) => m.content)
        .join('\n');
    for (let i = 0; i < 4 * 7; i++)
      expect(prompt(i)).toMatch(/^\d{1,2}:\d\d [ap]m on \d{1,2} \w+, \d{4}: \w+ said, ".+"$/m);
    expect(prompt(4 * 7)).not.toContain(' said, "');
    for (const row of rows) {
      const overall = report.cells.find((c) => c.row === row && c.cell === 'overall')!;
      expect(overall).toMatchObject({ metric: 'officialF1', paper: expect.any(Number) });
      expect(overall.diff).toBeCloseTo(overall.ours! - overall.paper!, 10);
    }
    expect(
      report.cells.find((c) => c.row === 'rag-observation-k5' && c.cell === 'overall')!.paper,
    ).toBe(43.3);

    // Offline: the extractive answerer over the same databases, said not to be the paper's.
    const offline = await cli(['reproduce', 'locomo-table3', ...data]);
    expect(offline.code, offline.err).toBe(0);
    expect(offline.out).toContain(
      "OFFLINE: extractive answerer, no judge. This is NOT the paper's setting",
    );
    for (const row of rows) {
      expect(offline.out).toMatch(
        new RegExp(
          `${row}\\s+official F1\\s+overall\\s+\\d+\\.\\d\\s+\\d+\\.\\d\\s+[+-]\\d+\\.\\d\\n`,
        ),
      );
      expect(offline.out).toMatch(
        new RegExp(
          `${row}\\s+evidence recall \\(LoCoMo\\)\\s+overall\\s+\\d+\\.\\d\\s+\\d+\\.\\d\\s+[+-]\\d+\\.\\d\\n`,
        ),
      );
    }
  }, 240_000);

  it('mem0-table2 runs its 14 RAG rows, full context and Mem0, online as planned and offline', async () => {
    server.requests.length = 0;
    // Mem0's setting: its embedder, an API model (the fake server's), for Mem0's and the RAG rows.
    const embedder = ['--embedder-base-url', `${server.url}`, '--embedder-model', 'fake-embed'];
    const args = [
      'reproduce',
      'mem0-table2',
      ...chunksData,
      ...online(),
      ...embedder,
      '--embedder-api-key-env',
      KEY_ENV,
      ...asPlanned,
      '--repeats',
      '1',
    ];
    const plan = JSON.parse((await cli([...args, '--plan', '--json'])).out) as Report;
    const run = await cli([...args, '--json']);
    expect(run.code, run.err).toBe(0);
    const report = JSON.parse(run.out) as Report;
    const rows = [1, 2].flatMap((k) =>
      [128, 256, 512, 1024, 2048, 4096, 8192].map((c) => `rag-k${k}-c${c}`),
    );
    expect(Object.keys(report.groups)).toEqual([...rows, 'full-context', 'mem0-library']);
    const chats = server.requests.filter((r) => r.path === '/v1/chat/completions');
    const bodies = chats.map(
      (r) => r.body as { messages: Array<{ role: string; content: string }> },
    );
    const answers = bodies.filter((b) => b.messages[0]?.content.startsWith('You are a helpful'));
    const judged = bodies.filter((b) => b.messages.at(-1)!.content.includes('Generated answer:'));
    // Mem0's row answers under Mem0's own prompt; the rest are its memory LLM's extraction calls.
    const mem0Answers = bodies.filter((b) => JSON.stringify(b).includes('Memories for user'));
    const extraction = bodies.filter((b) => JSON.stringify(b).includes('## New Messages'));
    expect(extraction.length).toBeGreaterThan(0);
    expect(answers.length + judged.length + mem0Answers.length + extraction.length).toBe(
      chats.length,
    );
    // chunks-1's 4 questions (categories 1-4, all judged) per row.
    expect(answers.length + mem0Answers.length).toBe(plan.plan.answerCalls);
    expect(mem0Answers).toHaveLength(4);
    expect(plan.plan.answerCalls).toBe(16 * 4);
    expect(plan.plan.judgeCalls).toBe(16 * 4);
    // Every category 1-4 answer has a verdict (the plan's judge calls), but the judge cache asks
    // the server once per distinct question and answer: the same answer in two rows is judged once.
    const judgePrompts = judged.map((b) => JSON.stringify(b.messages));
    expect(new Set(judgePrompts).size).toBe(judged.length);
    const runs = finishedRuns(report.groups);
    const verdicts = [...runs.values()].flatMap((r) => r.answers.filter((a) => a.judge !== null));
    expect(verdicts).toHaveLength(plan.plan.judgeCalls);
    expect(new Set(verdicts.map((a) => `${a.question}\n${a.prediction}`)).size).toBe(judged.length);
    for (const [row, run] of runs) {
      expect(run.answers).toHaveLength(4);
      if (row === 'mem0-library') {
        // Mem0's own setting: the released library, its protocol and k, the embedder the flags name.
        expect(run.config).toMatchObject({
          memory: {
            preset: 'mem0',
            config: { embedder: { kind: 'openai', model: 'fake-embed', baseUrl: server.url } },
          },
          retrieval: { topK: 30 },
          answerer: { answerProtocol: 'mem0', model: 'gpt-4o-mini' },
        });
        continue;
      }
      if (row === 'full-context') {
        expect(run.config).toMatchObject({
          mode: 'ingest-all',
          memory: { preset: 'text' },
          answerer: { answerProtocol: 'mem0-full-context' },
        });
        continue;
      }
      const [, k, chunkSize] = /rag-k(\d)-c(\d+)/.exec(row)!.map(Number);
      expect(run.config).toMatchObject({
        mode: 'ingest-all',
        memory: {
          preset: 'mem0-rag-chunks',
          config: { chunkSize, embedder: { model: 'fake-embed' } },
        },
        retrieval: { topK: k },
        answerer: { answerProtocol: 'mem0-rag', model: 'gpt-4o-mini' },
        judge: { protocol: 'mem0', model: 'gpt-4o-mini' },
      });
    }
    // Rows run in order, 4 answers each. chunks-1's history is about 600 tokens: k = 1 sends one
    // chunk, k = 2 two joined by `\n<->\n` while the chunks are smaller than the history; full
    // context sends the history as `timestamp | speaker: text` lines.
    const context = (row: number): string[] =>
      answers
        .slice(row * 4, row * 4 + 4)
        .map((b) => /# Context: \n([\s\S]*)\n\n# Short answer:/.exec(b.messages[1]!.content)![1]!);
    for (let row = 0; row < 7; row++)
      for (const c of context(row)) expect(c).not.toContain('\n<->\n');
    for (const c of context(7)) expect(c.split('\n<->\n')).toHaveLength(2);
    for (const c of context(13)) expect(c).not.toContain('\n<->\n');
    for (const c of context(14)) {
      expect(c).toContain('10:15 am on 3 March, 2023 | Mia: I started volunteering');
      expect(c).toContain('6:40 pm on 20 March, 2023 | Mia: I would love that.');
    }
    for (const row of [...rows, 'full-context', 'mem0-library']) {
      const j = report.cells.find(
        (c) => c.row === row && c.metric === 'judge' && c.cell === 'overall',
      )!;
      expect(j.paper).not.toBeNull();
      expect(j.ours).not.toBeNull();
      expect(j.diff).toBeCloseTo(j.ours! - j.paper!, 10);
    }
    // Table 2's latency figures beside ours: each row's own answers' percentiles, in seconds.
    const table2 = report.table2 ?? [];
    for (const [row, { answers: own }] of runs) {
      const mine = table2Columns(null, own);
      const figure = (column: string) => table2.find((c) => c.row === row && c.column === column);
      expect(figure('totalP50')?.ours, row).toBeCloseTo(mine.totalMs!.p50 / 1000, 10);
      expect(figure('searchP95')?.ours, row).toBeCloseTo(mine.searchMs!.p95 / 1000, 10);
      expect(figure('totalP95')?.paper, row).not.toBeNull();
    }
    expect(table2.find((c) => c.row === 'rag-k1-c128' && c.column === 'searchP50')).toMatchObject({
      paper: 0.281,
    });
    expect(
      table2.find((c) => c.row === 'full-context' && c.column === 'memoryTokens'),
    ).toMatchObject({ paper: 26031 });
    // Mem0's row: the paper's latency and memory tokens (Table 2's Mem0 row) beside ours.
    expect(table2.find((c) => c.row === 'mem0-library' && c.column === 'searchP50')).toMatchObject({
      paper: 0.148,
    });
    expect(
      table2.find((c) => c.row === 'mem0-library' && c.column === 'memoryTokens'),
    ).toMatchObject({ paper: 1764 });
    expect(report.setting).toContain('embedder of ');
    expect(report.setting).toMatch(/embedder of [^:]*mem0-library[^:]*: openai:fake-embed/);
    // Memory tokens per question: each stored count is the context part of the prompt the server
    // received (questions of a row may be answered in any order, so compare them sorted).
    const byNumber = (a: number, b: number) => a - b;
    [...runs.values()].slice(0, 15).forEach(({ answers: own }, row) => {
      const sent = context(row).map(estimateTokens).sort(byNumber);
      expect(sent.every((n) => n > 0)).toBe(true);
      expect(own.map((a) => a.memoryTokens ?? -1).sort(byNumber), `row ${row}`).toEqual(sent);
    });
    for (const [row, { answers: own }] of runs) {
      const mean = own.reduce((s, a) => s + a.memoryTokens!, 0) / own.length;
      const figure = table2.find((c) => c.row === row && c.column === 'memoryTokens');
      expect(figure?.ours, row).toBeCloseTo(mean, 10);
    }

    // The same command again, as a table: every row complete, nothing asked again.
    const asked = server.requests.length;
    const again = await cli(args);
    expect(again.code, again.err).toBe(0);
    expect(server.requests).toHaveLength(asked);
    // One line per cell: the paper's figure ± its std, ours (no std over one run), ours - paper.
    for (const c of report.cells.filter((x) => x.metric === 'judge' && x.cell === 'overall')) {
      const diff = `${c.diff! >= 0 ? '+' : ''}${c.diff!.toFixed(2)}`;
      expect(c.paperStd).not.toBeNull();
      expect(again.out).toMatch(
        new RegExp(
          `${c.row}\\s+J\\s+overall\\s+${c.paper!.toFixed(2)} ± ${c.paperStd!.toFixed(2)}\\s+${c.ours!.toFixed(2)}\\s+\\${diff}\\n`,
        ),
      );
    }

    // Ours is the full history's tokens, far below the paper's 10 conversations of ~26k.
    expect(again.out).toMatch(/full-context\s+memory tokens\s+26031\s+\d+\s+-\d+\n/);
    expect(again.out).toMatch(
      /rag-k2-c8192\s+total p95 \(s\)\s+9\.942\s+\d+\.\d{3}\s+-\d+\.\d{3}\n/,
    );
  }, 300_000);

  it('mem0-table2 offline runs the rows that need no memory LLM, without a judge', async () => {
    const rows = [1, 2].flatMap((k) =>
      [128, 256, 512, 1024, 2048, 4096, 8192].map((c) => `rag-k${k}-c${c}`),
    );
    const offline = await cli(['reproduce', 'mem0-table2', ...chunksData, '--repeats', '1']);
    expect(offline.code, offline.err).toBe(0);
    expect(offline.out).toContain("This is NOT the paper's setting");
    expect(offline.out).toContain('1 complete run(s) per row (the paper: 10)');
    for (const row of [...rows, 'full-context']) {
      expect(offline.out).toMatch(new RegExp(`${row}\\s+set F1\\s+overall\\s+-\\s+\\d+\\.\\d\\d`));
      expect(offline.out).toMatch(
        new RegExp(`${row}\\s+J\\s+overall\\s+\\d+\\.\\d\\d ± \\d\\.\\d\\d\\s+-\\s+-\\n`),
      );
    }
    // Mem0's row needs a memory LLM: offline it is the paper's figures only.
    expect(offline.out).toMatch(/mem0-library\s+J\s+overall\s+66\.88 ± 0\.15\s+-\s+-\n/);
    expect(offline.out).toMatch(/mem0-library\s+search p50 \(s\)\s+0\.148\s+-\s+-\n/);
    // Without --embedder-* the RAG rows embed offline, and the setting line says so.
    expect(offline.out).toContain('embedder of rag-k1-c128');
    expect(offline.out).toContain("wink-sif-100d, the offline word vectors, not the paper's");
  }, 300_000);
});
