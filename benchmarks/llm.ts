import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance as perfHooks } from 'node:perf_hooks';
import {
  DEFAULT_MEMORY_PRESET,
  DEFAULT_RUN_CONCURRENCY,
  ExperimentConfigSchema,
  type ExperimentConfigInput,
  type ProgressEvent,
} from '../src-shared/experiment';
import { estimateOf } from '../src-main/core/pipeline/plan';
import { startRunBypassingLauncher } from '../src-main/core/launch/testSeam';
import { workerExecutor } from '../src-main/core/pipeline/executors';
import { RunStore } from '../src-main/core/runs/store';
import {
  defaultChatReply,
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../tests/support/fake-openai-server';
import { machineLine, peakRssMb, writeSection } from './common';

/**
 * Full LoCoMo stream runs with the default preset against a local OpenAI-compatible server that
 * takes a fixed latency per call (1 s, where the per-test barrier shows, and 0.1 s, where the
 * per-call CPU does) and enforces a rate limit (a 429 with Retry-After beyond it): the default
 * command and `--parallel 2 --concurrency CONCURRENCY`, each with the response cache on (fresh)
 * and the endpoint's requestsPerMinute set to the server's limit. The server counts what the
 * targets are about: requests in flight, request starts per 60 s window, 429s.
 *
 * BENCH_LLM_LATENCY_MS (comma-separated) / BENCH_LLM_CONCURRENCY / BENCH_LLM_RPM override the
 * defaults; BENCH_LLM_PARALLEL=1 or =2 runs only that command (to alternate builds by hand).
 *
 * Besides wall time, each run reports CPU time (the lanes' worker threads, stamped on their progress
 * events, and the whole process): wall / ideal at 0.1 s is CPU-bound and moves with the machine's
 * load, CPU per call much less.
 */
const LATENCIES_MS = (process.env['BENCH_LLM_LATENCY_MS'] ?? '1000,100')
  .split(',')
  .map((ms) => Number(ms.trim()));
const CONCURRENCY = Number(process.env['BENCH_LLM_CONCURRENCY'] ?? 32);
/**
 * 3000 a minute at 1 s, scaled with the request rate: 32 in flight at 1 s start 1,920 a minute,
 * so the limit is felt without binding, and at 0.1 s it would bind long before the pipeline does.
 */
const rateLimitFor = (latencyMs: number): number =>
  Number(process.env['BENCH_LLM_RPM'] ?? Math.round((3000 * 1000) / latencyMs));
const WINDOW_MS = 60_000;

interface ServerCounts {
  requests: number;
  inFlight: number;
  peakInFlight: number;
  throttled: number;
  starts: number[];
  /** Milliseconds with at least one request in flight. */
  busyMs: number;
  /** Characters of the messages of the requests answered (what the dry run estimates / 4). */
  promptChars: number;
  busySince: number;
  /** Wall time by requests in flight: index 0 = none, `concurrency` = all slots used. */
  msAtLevel: number[];
  /** When the level last changed, and when the first request started and the last one ended. */
  levelSince: number;
  firstStart: number;
  lastEnd: number;
}

/** Files the time since the last change under the current number of requests in flight. */
function levelChange(counts: ServerCounts, now: number): void {
  const level = Math.min(counts.inFlight, counts.msAtLevel.length - 1);
  counts.msAtLevel[level] = (counts.msAtLevel[level] ?? 0) + now - counts.levelSince;
  counts.levelSince = now;
}

function startServer(
  counts: ServerCounts,
  latencyMs: number,
  rateLimitRpm: number,
): Promise<FakeOpenAIServer> {
  return startFakeOpenAIServer({
    chat: async (chat) => {
      const now = Date.now();
      while (counts.starts.length > 0 && (counts.starts[0] as number) <= now - WINDOW_MS) {
        counts.starts.shift();
      }
      if (counts.starts.length >= rateLimitRpm) {
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
      counts.promptChars += chat.messages.reduce((n, m) => n + m.content.length, 0);
      if (counts.firstStart === 0) counts.firstStart = now;
      levelChange(counts, now);
      if (counts.inFlight++ === 0) counts.busySince = now;
      counts.peakInFlight = Math.max(counts.peakInFlight, counts.inFlight);
      await new Promise((resolve) => setTimeout(resolve, latencyMs));
      const end = Date.now();
      levelChange(counts, end);
      counts.lastEnd = end;
      if (--counts.inFlight === 0) counts.busyMs += end - counts.busySince;
      return defaultChatReply(chat);
    },
  });
}

/**
 * The two commands the docs name: the default (one lane, the run's default concurrency) and two
 * lanes at CONCURRENCY. Reporting only the second hid the default's per-test barrier.
 */
const ALL_COMMANDS: readonly { label: string; parallel: number; concurrency?: number }[] = [
  { label: 'default (`--parallel 1`, no `--concurrency`)', parallel: 1 },
  { label: `\`--parallel 2 --concurrency ${CONCURRENCY}\``, parallel: 2, concurrency: CONCURRENCY },
];
const ONLY_PARALLEL = process.env['BENCH_LLM_PARALLEL'];
const COMMANDS = ALL_COMMANDS.filter(
  (c) => ONLY_PARALLEL === undefined || String(c.parallel) === ONLY_PARALLEL,
);

interface Setup {
  label: string;
  parallel: number;
  concurrency?: number;
  latencyMs: number;
  rateLimitRpm: number;
}

/** Each command at each latency, the slow endpoint first. */
const SETUPS: readonly Setup[] = LATENCIES_MS.flatMap((latencyMs) =>
  COMMANDS.map((command) => ({
    ...command,
    label: `${command.label}, ${latencyMs / 1000} s`,
    latencyMs,
    rateLimitRpm: rateLimitFor(latencyMs),
  })),
);

interface LlmRunMeasure {
  answers: number;
  hits: number;
  misses: number;
  requests: number;
  wallMs: number;
  idealMs: number;
  busyMs: number;
  peakInFlight: number;
  peakWindow: number;
  throttled: number;
  samples: number;
  /** The dry run's prompt tokens per answer call over the prompt characters / 4 per request sent. */
  estimateRatio: number;
  /** CPU time of the lanes' worker threads over their samples (start-up excluded), ms. */
  laneCpuMs: number;
  /** CPU time of the whole process over the run (lanes, main thread, the fake server), ms. */
  processCpuMs: number;
  /** Wall time before the first request and after the last reply (inserts, start-up, finish). */
  beforeFirstMs: number;
  afterLastMs: number;
  /** Between the first request and the last reply: time with every slot in use, and with none. */
  fullMs: number;
  idleMs: number;
  /** Mean requests in flight between the first request and the last reply. */
  meanInFlight: number;
  /** The main thread's event-loop utilisation over the run (it grants slots and commits tests). */
  mainLoopBusy: number;
}

/** The CPU stamp a worker adds to each progress event (`stampThreadCpu`). */
const cpuOf = (e: ProgressEvent): number | undefined => {
  const stamp = (e as { threadCpuMs?: unknown }).threadCpuMs;
  return typeof stamp === 'number' ? stamp : undefined;
};

async function measureRun(data: string, dir: string, setup: Setup): Promise<LlmRunMeasure> {
  const counts: ServerCounts = {
    requests: 0,
    inFlight: 0,
    peakInFlight: 0,
    throttled: 0,
    starts: [],
    busyMs: 0,
    busySince: 0,
    promptChars: 0,
    msAtLevel: new Array<number>((setup.concurrency ?? DEFAULT_RUN_CONCURRENCY) + 1).fill(0),
    levelSince: Date.now(),
    firstStart: 0,
    lastEnd: 0,
  };
  /** Most request starts in any 60 s window, checked as each request starts. */
  let peakWindow = 0;
  const server = await startServer(counts, setup.latencyMs, setup.rateLimitRpm);
  const watch = setInterval(() => {
    peakWindow = Math.max(peakWindow, counts.starts.length);
  }, 50);
  const runDir = mkdtempSync(join(dir, 'run-'));
  const store = RunStore.open(join(runDir, 'runs.db'));
  try {
    const config: ExperimentConfigInput = {
      datasetPath: data,
      parallel: setup.parallel,
      ...(setup.concurrency !== undefined ? { concurrency: setup.concurrency } : {}),
      answerer: {
        kind: 'llm',
        baseUrl: server.url,
        model: 'bench-chat',
        requestsPerMinute: setup.rateLimitRpm,
        timeoutMs: 120_000,
      },
      timeouts: { answerMs: 600_000 },
    };
    const estimate = await estimateOf(ExperimentConfigSchema.parse(config));
    // Each sample runs on one worker thread: its CPU is its last stamp less its first.
    const sampleCpu = new Map<string, { first: number; last: number }>();
    const onProgress = (e: ProgressEvent): void => {
      const cpu = cpuOf(e);
      const sampleId = (e as { sampleId?: unknown }).sampleId;
      if (cpu === undefined || typeof sampleId !== 'string') return;
      const seen = sampleCpu.get(sampleId);
      if (seen) seen.last = cpu;
      else sampleCpu.set(sampleId, { first: cpu, last: cpu });
    };
    const cpu0 = process.cpuUsage();
    const loop0 = perfHooks.eventLoopUtilization();
    const wall0 = Date.now();
    const t0 = performance.now();
    const handle = await startRunBypassingLauncher(config, {
      store,
      dataDir: runDir,
      executor: workerExecutor({ stampThreadCpu: true }),
      responseCache: 'on',
      onProgress,
    });
    const outcome = await handle.done;
    const wallMs = performance.now() - t0;
    const wallEnd = Date.now();
    const cpu = process.cpuUsage(cpu0);
    const mainLoopBusy = perfHooks.eventLoopUtilization(loop0).utilization;
    if (outcome.status !== 'completed')
      throw new Error(`bench: run ${outcome.status}: ${outcome.error ?? ''}`);
    const run = store.getRun(handle.runId);
    const cache = run.manifest.answerCache ?? { hits: 0, misses: 0 };
    const concurrency = setup.concurrency ?? DEFAULT_RUN_CONCURRENCY;
    return {
      answers: cache.hits + cache.misses,
      hits: cache.hits,
      misses: cache.misses,
      requests: counts.requests,
      wallMs,
      idealMs: (cache.misses * setup.latencyMs) / concurrency,
      busyMs: counts.busyMs,
      peakInFlight: counts.peakInFlight,
      peakWindow,
      throttled: counts.throttled,
      samples: run.sampleInfo.length,
      estimateRatio:
        estimate && estimate.answerCalls > 0 && counts.requests > 0
          ? estimate.promptTokens /
            estimate.answerCalls /
            (counts.promptChars / 4 / counts.requests)
          : Number.NaN,
      laneCpuMs: [...sampleCpu.values()].reduce((sum, c) => sum + c.last - c.first, 0),
      processCpuMs: (cpu.user + cpu.system) / 1000,
      beforeFirstMs: counts.firstStart - wall0,
      afterLastMs: wallEnd - counts.lastEnd,
      fullMs: counts.msAtLevel.at(-1) ?? 0,
      idleMs: counts.msAtLevel[0] ?? 0,
      meanInFlight:
        counts.msAtLevel.reduce((sum, ms, level) => sum + ms * level, 0) /
        Math.max(1, counts.lastEnd - counts.firstStart),
      mainLoopBusy,
    };
  } finally {
    clearInterval(watch);
    store.close();
    await server.close();
  }
}

export async function llmSuite(data: string, write: boolean, _extra: string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mw-bench-llm-'));
  try {
    const measured: LlmRunMeasure[] = [];
    // The machine's load as each run ends: a ratio taken under a colleague's build is not a ratio.
    const machines: string[] = [];
    for (const setup of SETUPS) {
      measured.push(await measureRun(data, dir, setup));
      machines.push(machineLine());
    }
    const rss = peakRssMb();
    const row = (name: string, cell: (m: LlmRunMeasure) => string, target = ''): string =>
      `| ${name} | ${measured.map(cell).join(' | ')} | ${target} |`;
    const ratio = (a: number, b: number): string => (a / Math.max(1, b)).toFixed(2);
    const first = measured[0] as LlmRunMeasure;
    const lines = [
      '## LLM runs at scale (concurrency, rate limit, response cache)',
      '',
      'Reproduce: `npm run bench -- llm` (same dataset resolution as above; `BENCH_LLM_LATENCY_MS` (a comma-separated list, default 1000,100), `BENCH_LLM_CONCURRENCY`, `BENCH_LLM_RPM` override the defaults; `BENCH_LLM_PARALLEL=1` or `=2` runs one of the two commands).',
      '',
      ...SETUPS.map(
        (setup, i) =>
          `Measured ${new Date().toISOString().slice(0, 10)} on ${machines[i] ?? ''} (${setup.label}).`,
      ),
      '',
      `A full stream run (${first.samples} samples, default preset \`${DEFAULT_MEMORY_PRESET}\`, worker threads) with the LLM answerer against a local OpenAI-compatible server that takes ${LATENCIES_MS.map((ms) => `${ms} ms`).join(' or ')} per call and answers 429 + Retry-After beyond ${LATENCIES_MS.map((ms) => rateLimitFor(ms)).join(' or ')} request starts per 60 s (the same headroom over 32 requests in flight at each latency); each run has that \`requestsPerMinute\`, a fresh response cache and a fresh server. The default run's concurrency is ${DEFAULT_RUN_CONCURRENCY}.`,
      '',
      `| measure | ${SETUPS.map((s) => s.label).join(' | ')} | target |`,
      `|---|${SETUPS.map(() => '---|').join('')}---|`,
      row('answer calls asked (hits + misses)', (m) => m.answers.toLocaleString('en-US')),
      row(
        'served by the response cache',
        (m) =>
          `${m.hits.toLocaleString('en-US')} (${((100 * m.hits) / Math.max(1, m.answers)).toFixed(1)}%)`,
        '>= 25%',
      ),
      row('requests the server answered', (m) => m.requests.toLocaleString('en-US')),
      row(
        'wall time (startExperiment to done, inserts included)',
        (m) => `${(m.wallMs / 1000).toFixed(1)} s`,
      ),
      row(
        'ideal answering time: misses x latency / concurrency',
        (m) => `${(m.idealMs / 1000).toFixed(1)} s`,
      ),
      row('wall / ideal', (m) => ratio(m.wallMs, m.idealMs), '<= 1.1 at 1 s, <= 1.3 at 0.1 s'),
      row('server busy (>= 1 request in flight) / ideal', (m) => ratio(m.busyMs, m.idealMs)),
      row(
        'before the first request / after the last reply',
        (m) => `${(m.beforeFirstMs / 1000).toFixed(1)} s / ${(m.afterLastMs / 1000).toFixed(1)} s`,
      ),
      row(
        'between them: every slot in use / none in use',
        (m) => `${(m.fullMs / 1000).toFixed(1)} s / ${(m.idleMs / 1000).toFixed(1)} s`,
      ),
      row('mean requests in flight between them', (m) => m.meanInFlight.toFixed(1)),
      row(
        "main thread's event-loop utilisation (grants slots, commits tests, runs the fake server)",
        (m) => `${(100 * m.mainLoopBusy).toFixed(0)}%`,
      ),
      row(
        'CPU of the lanes (worker threads, over their samples)',
        (m) => `${(m.laneCpuMs / 1000).toFixed(1)} s`,
      ),
      row(
        'lanes CPU per answer call asked',
        (m) => `${(m.laneCpuMs / Math.max(1, m.answers)).toFixed(2)} ms`,
      ),
      row(
        'CPU of the whole process (lanes, main thread, fake server)',
        (m) => `${(m.processCpuMs / 1000).toFixed(1)} s`,
      ),
      row('most requests in flight at the server', (m) => String(m.peakInFlight), '<= concurrency'),
      row(
        'most request starts in any 60 s window',
        (m) => String(m.peakWindow),
        `<= ${LATENCIES_MS.map((ms) => rateLimitFor(ms)).join(' / ')}`,
      ),
      row(
        '429s sent by the server',
        (m) => String(m.throttled),
        '0 expected with requestsPerMinute set',
      ),
      row(
        'dry-run prompt tokens per call / sent prompt characters ÷ 4 per request',
        (m) => m.estimateRatio.toFixed(3),
        '1 within a few %',
      ),
      // One figure for the whole process: in the first column, the others left empty.
      `| peak RSS of the bench process over all its runs (VmHWM; worker threads share it) | ${rss === null ? 'n/a' : `${rss.toFixed(0)} MB`} |${SETUPS.slice(
        1,
      )
        .map(() => ' |')
        .join('')} <= 1,024 MB |`,
    ];
    const body = lines.join('\n');
    process.stdout.write(`${body}\n`);
    if (write) await writeSection('llm', body);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
