import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startExperiment } from '../src-main/core/pipeline/runner';
import { workerExecutor } from '../src-main/core/pipeline/executors';
import { RunStore } from '../src-main/core/runs/store';
import {
  defaultChatReply,
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../tests/support/fake-openai-server';
import { machineLine, peakRssMb, writeSection } from './common';

/**
 * A full LoCoMo stream run with the default preset against a local OpenAI-compatible server that
 * takes LATENCY_MS per call and enforces RATE_LIMIT_RPM (a 429 with Retry-After beyond it): the
 * run answers with `concurrency` CONCURRENCY, the response cache on (fresh) and the endpoint's
 * requestsPerMinute set to the server's limit. The server counts what the targets are about:
 * requests in flight, request starts per 60 s window, 429s.
 *
 * BENCH_LLM_LATENCY_MS / BENCH_LLM_CONCURRENCY / BENCH_LLM_RPM override the defaults.
 */
const LATENCY_MS = Number(process.env['BENCH_LLM_LATENCY_MS'] ?? 1000);
const CONCURRENCY = Number(process.env['BENCH_LLM_CONCURRENCY'] ?? 32);
const RATE_LIMIT_RPM = Number(process.env['BENCH_LLM_RPM'] ?? 3000);
const PARALLEL = 2;
const WINDOW_MS = 60_000;

interface ServerCounts {
  requests: number;
  inFlight: number;
  peakInFlight: number;
  throttled: number;
  starts: number[];
  /** Milliseconds with at least one request in flight. */
  busyMs: number;
  busySince: number;
}

function startServer(counts: ServerCounts): Promise<FakeOpenAIServer> {
  return startFakeOpenAIServer({
    chat: async (chat) => {
      const now = Date.now();
      while (counts.starts.length > 0 && (counts.starts[0] as number) <= now - WINDOW_MS) {
        counts.starts.shift();
      }
      if (counts.starts.length >= RATE_LIMIT_RPM) {
        counts.throttled++;
        const wait = (counts.starts[0] as number) + WINDOW_MS - now;
        return {
          status: 429,
          headers: { 'retry-after': String(Math.ceil(wait / 1000)) },
          json: { error: { message: 'rate limit reached' } },
        };
      }
      counts.starts.push(now);
      counts.requests++;
      if (counts.inFlight++ === 0) counts.busySince = now;
      counts.peakInFlight = Math.max(counts.peakInFlight, counts.inFlight);
      await new Promise((resolve) => setTimeout(resolve, LATENCY_MS));
      if (--counts.inFlight === 0) counts.busyMs += Date.now() - counts.busySince;
      return defaultChatReply(chat);
    },
  });
}

export async function llmSuite(data: string, write: boolean, _extra: string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mw-bench-llm-'));
  const counts: ServerCounts = {
    requests: 0,
    inFlight: 0,
    peakInFlight: 0,
    throttled: 0,
    starts: [],
    busyMs: 0,
    busySince: 0,
  };
  /** Most request starts in any 60 s window, checked as each request starts. */
  let peakWindow = 0;
  const server = await startServer(counts);
  const watch = setInterval(() => {
    peakWindow = Math.max(peakWindow, counts.starts.length);
  }, 50);
  const store = RunStore.open(join(dir, 'runs.db'));
  try {
    const t0 = performance.now();
    const handle = await startExperiment(
      {
        datasetPath: data,
        parallel: PARALLEL,
        concurrency: CONCURRENCY,
        answerer: {
          kind: 'llm',
          baseUrl: server.url,
          model: 'bench-chat',
          requestsPerMinute: RATE_LIMIT_RPM,
          timeoutMs: 120_000,
        },
        timeouts: { answerMs: 600_000 },
      },
      { store, dataDir: dir, executor: workerExecutor(), responseCache: 'on' },
    );
    const outcome = await handle.done;
    const wallMs = performance.now() - t0;
    if (outcome.status !== 'completed')
      throw new Error(`bench: run ${outcome.status}: ${outcome.error ?? ''}`);
    const run = store.getRun(handle.runId);
    const cache = run.manifest.answerCache ?? { hits: 0, misses: 0 };
    const answers = cache.hits + cache.misses;
    const idealMs = (cache.misses * LATENCY_MS) / CONCURRENCY;
    const rss = peakRssMb();
    const saved = answers > 0 ? cache.hits / answers : 0;
    const lines = [
      '## LLM runs at scale (concurrency, rate limit, response cache)',
      '',
      'Reproduce: `npm run bench -- llm` (same dataset resolution as above; `BENCH_LLM_LATENCY_MS`, `BENCH_LLM_CONCURRENCY`, `BENCH_LLM_RPM` override the defaults).',
      '',
      `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}.`,
      '',
      `A full stream run (${run.sampleInfo.length} samples, default preset \`hybrid\`, parallel ${PARALLEL} worker threads) with the LLM answerer against a local OpenAI-compatible server that takes ${LATENCY_MS} ms per call and answers 429 + Retry-After beyond ${RATE_LIMIT_RPM} request starts per 60 s; the run uses \`concurrency\` ${CONCURRENCY} (one budget for both workers), \`requestsPerMinute\` ${RATE_LIMIT_RPM} and a fresh response cache.`,
      '',
      '| measure | value | target |',
      '|---|---|---|',
      `| answer calls asked (hits + misses) | ${answers.toLocaleString('en-US')} | |`,
      `| served by the response cache | ${cache.hits.toLocaleString('en-US')} (${(100 * saved).toFixed(1)}%) | >= 25% |`,
      `| requests the server answered | ${counts.requests.toLocaleString('en-US')} | |`,
      `| wall time (startExperiment to done, inserts included) | ${(wallMs / 1000).toFixed(1)} s | |`,
      `| ideal answering time: misses x ${LATENCY_MS} ms / ${CONCURRENCY} | ${(idealMs / 1000).toFixed(1)} s | |`,
      `| wall / ideal | ${(wallMs / Math.max(1, idealMs)).toFixed(2)} | <= 1.3 |`,
      `| server busy (>= 1 request in flight) / ideal | ${(counts.busyMs / Math.max(1, idealMs)).toFixed(2)} | |`,
      `| most requests in flight at the server | ${counts.peakInFlight} | <= ${CONCURRENCY} |`,
      `| most request starts in any 60 s window | ${peakWindow} | <= ${RATE_LIMIT_RPM} |`,
      `| 429s sent by the server | ${counts.throttled} | 0 expected with requestsPerMinute set |`,
      `| peak RSS (VmHWM; worker threads share it) | ${rss === null ? 'n/a' : `${rss.toFixed(0)} MB`} | <= 1,024 MB |`,
    ];
    const body = lines.join('\n');
    process.stdout.write(`${body}\n`);
    if (write) await writeSection('llm', body);
  } finally {
    clearInterval(watch);
    store.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
