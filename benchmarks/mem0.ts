import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDatasetFile } from '../src-main/core/dataset/load';
import { workerExecutor } from '../src-main/core/pipeline/executors';
import { startRunBypassingLauncher } from '../src-main/core/launch/testSeam';
import { RunStore } from '../src-main/core/runs/store';
import { openSqlite } from '../src-main/core/sqlite';
import { startFakeOpenAIServer } from '../tests/support/fake-openai-server';
import { fakeMem0Chat } from '../tests/support/fake-mem0-model';
import { machineLine, peakRssMb, percentile, writeSection } from './common';

/**
 * The `mem0` preset (the released mem0ai library in the experiment worker) over the first
 * BENCH_MEM0_SAMPLES conversations of the LoCoMo file, against a local OpenAI-compatible server
 * that takes BENCH_MEM0_LATENCY_MS per chat and per embeddings request (Mem0's extraction answered
 * with each user line as a memory, deterministic embeddings). The extractive answerer keeps the
 * answer side offline, so the wall time is ingest plus Mem0's searches. Reported per conversation:
 * the library's LLM calls and tokens (the call ledger), its embedding requests, and wall time.
 */
const LATENCY_MS = Number(process.env['BENCH_MEM0_LATENCY_MS'] ?? 50);
const SAMPLES = Number(process.env['BENCH_MEM0_SAMPLES'] ?? 2);

export async function mem0Suite(data: string, write: boolean, _extra: string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mw-bench-mem0-'));
  const delay = (): Promise<void> => new Promise((r) => setTimeout(r, LATENCY_MS));
  const server = await startFakeOpenAIServer({
    chat: async (chat, request) => {
      await delay();
      return fakeMem0Chat(chat, request);
    },
  });
  server.setFault({ kind: 'delay', ms: LATENCY_MS }, { times: Infinity, path: '/v1/embeddings' });
  const store = RunStore.open(join(dir, 'runs.db'));
  try {
    const samples = (await loadDatasetFile(data)).samples.slice(0, SAMPLES);
    const t0 = performance.now();
    const handle = await startRunBypassingLauncher(
      {
        datasetPath: data,
        samples: samples.map((s) => s.sampleId),
        parallel: 1,
        memory: {
          preset: 'mem0',
          config: { embedder: { kind: 'openai', baseUrl: server.url, model: 'bench-embed' } },
          llm: { baseUrl: server.url, model: 'bench-memory', timeoutMs: 60_000 },
        },
        timeouts: { insertMs: 600_000, answerMs: 600_000 },
      },
      // A fresh data folder: no response or embedding cache answers for the server.
      { store, dataDir: dir, executor: workerExecutor(), responseCache: 'on' },
    );
    const outcome = await handle.done;
    const wallMs = performance.now() - t0;
    if (outcome.status !== 'completed')
      throw new Error(`bench: run ${outcome.status}: ${outcome.error ?? ''}`);
    const sqlite = openSqlite(join(dir, 'runs.db'), { readonly: true, fileMustExist: true });
    const ledger = sqlite
      .prepare(
        'SELECT role, SUM(calls) AS calls, SUM(prompt_tokens) AS p, SUM(completion_tokens) AS c FROM llm_calls GROUP BY role',
      )
      .all() as Array<{ role: string; calls: number; p: number; c: number }>;
    const retrieve = (
      sqlite.prepare('SELECT retrieve_ms AS ms FROM answers').all() as Array<{ ms: number }>
    )
      .map((r) => r.ms)
      .sort((a, b) => a - b);
    sqlite.close();
    const role = (name: string): { calls: number; p: number; c: number } =>
      ledger.find((r) => r.role === name) ?? { calls: 0, p: 0, c: 0 };
    const memory = role('memory');
    const embedder = role('embedder');
    const n = samples.length;
    const turns = samples.reduce(
      (t, s) => t + s.sessions.reduce((u, x) => u + x.turns.length, 0),
      0,
    );
    const rss = peakRssMb();
    const per = (x: number): string =>
      (x / n).toLocaleString('en-US', { maximumFractionDigits: 0 });
    const lines = [
      '## Mem0 (released library) ingest',
      '',
      'Reproduce: `npm run bench -- mem0` (`BENCH_MEM0_SAMPLES`, `BENCH_MEM0_LATENCY_MS` override the defaults).',
      '',
      `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}.`,
      '',
      `The \`mem0\` preset (mem0ai 3.3.1 in the experiment worker) over the first ${n} LoCoMo conversations (${turns.toLocaleString('en-US')} turns), one worker, against a local OpenAI-compatible server that takes ${LATENCY_MS} ms per chat and per embeddings request; extractive answers (no answer LLM).`,
      '',
      '| measure | per conversation | total |',
      '|---|---|---|',
      `| memory LLM calls (Mem0's extraction) | ${per(memory.calls)} | ${memory.calls.toLocaleString('en-US')} |`,
      `| memory LLM tokens (prompt + completion, as the server counts them) | ${per(memory.p + memory.c)} | ${(memory.p + memory.c).toLocaleString('en-US')} |`,
      `| embedding requests | ${per(embedder.calls)} | ${embedder.calls.toLocaleString('en-US')} |`,
      `| wall time (ingest and searches) | ${(wallMs / 1000 / n).toFixed(1)} s | ${(wallMs / 1000).toFixed(1)} s |`,
      `| search latency p50 / p95 (both speakers) | ${percentile(retrieve, 0.5).toFixed(1)} / ${percentile(retrieve, 0.95).toFixed(1)} ms | |`,
      `| peak RSS (VmHWM) | | ${rss === null ? 'n/a' : `${rss.toFixed(0)} MB`} |`,
    ];
    const body = lines.join('\n');
    process.stdout.write(`${body}\n`);
    if (write) await writeSection('mem0', body);
  } finally {
    store.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
