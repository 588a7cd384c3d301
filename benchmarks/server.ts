import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fullRuns } from './compare';
import { REPO, fmt, machineLine, percentile, writeSection } from './common';

const CONCURRENCY = 50;
export const DURATION_MS = 20_000;
export const PROBE_GAP_MS = 20;
const TARGET_P99_MS = 50;

export interface Target {
  port: number;
  token: string;
}

/** One API call over HTTP; the body is drained and dropped (the client's cost stays small). */
export function call(target: Target, agent: Agent, name: string, input: unknown): Promise<number> {
  const body = JSON.stringify(input);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        path: `/api/${name}`,
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${target.token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200)
            reject(new Error(`bench: ${name} answered ${res.statusCode}`));
          else resolve(performance.now() - started);
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      // Node's documented keep-alive race: the server closed an idle socket as it was reused.
      if (req.reusedSocket && error.code === 'ECONNRESET') {
        call(target, agent, name, input).then(resolve, reject);
      } else reject(new Error(`bench: ${name}: ${error.message}`));
    });
    req.end(body);
  });
}

/** `extra`: server-child's optional arguments (dataset folder, dataset worker threshold). */
export async function startChild(
  dataDir: string,
  readWorkers: number,
  extra: readonly string[] = [],
): Promise<{ child: ChildProcess; target: Target }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(REPO, 'benchmarks/server-child.ts'),
      dataDir,
      String(readWorkers),
      ...extra,
    ],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  child.once('exit', (code, signal) => {
    if (code !== 0) process.stderr.write(`bench: the server process ended (${code ?? signal})\n`);
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    lines.close();
    return { child, target: JSON.parse(line) as Target };
  }
  throw new Error('bench: the server process ended before it printed its port');
}

export interface ModeResult {
  label: string;
  probes: number[];
  heavy: number[];
  /** Probes that failed (a reset connection, say) instead of answering: each a stall too. */
  probeErrors: string[];
  load: string;
}

/** The heavy calls the clients loop over: API method and input. */
export type CallMix = ReadonlyArray<readonly [string, unknown]>;

/** `app.info` every PROBE_GAP_MS while `concurrency` clients loop over the heavy calls of `mix`. */
export async function measure(
  dataDir: string,
  mix: CallMix,
  readWorkers: number,
  label: string,
  concurrency = CONCURRENCY,
): Promise<ModeResult> {
  const { child, target } = await startChild(dataDir, readWorkers);
  const heavyAgent = new Agent({ keepAlive: true, maxSockets: concurrency });
  // Its own socket, so a probe never waits for a heavy request's connection.
  const probeAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    // Warm up: worker start, first DB open, JIT.
    for (const [name, input] of mix) await call(target, heavyAgent, name, input);
    await call(target, probeAgent, 'app.info', {});
    const end = performance.now() + DURATION_MS;
    const heavy: number[] = [];
    const probes: number[] = [];
    const probeErrors: string[] = [];
    const client = async (i: number): Promise<void> => {
      for (let k = i; performance.now() < end; k++) {
        const [name, input] = mix[k % mix.length] as [string, unknown];
        heavy.push(await call(target, heavyAgent, name, input));
      }
    };
    // Open loop: a probe is due every PROBE_GAP_MS whether or not the last one has answered, and
    // its latency counts from when it was due, so a stall shows as many slow probes (and in p99
    // and max), not as one slow probe and a gap (coordinated omission).
    const probe = async (): Promise<void> => {
      const start = performance.now();
      const inFlight: Array<Promise<void>> = [];
      for (let i = 0; ; i++) {
        const due = start + i * PROBE_GAP_MS;
        if (due >= end) break;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        inFlight.push(
          call(target, probeAgent, 'app.info', {}).then(
            () => {
              probes.push(performance.now() - due);
            },
            (error: unknown) => {
              probeErrors.push(error instanceof Error ? error.message : String(error));
            },
          ),
        );
      }
      await Promise.all(inFlight);
    };
    await Promise.all([probe(), ...Array.from({ length: concurrency }, (_, i) => client(i))]);
    const load = loadavg()
      .map((x) => x.toFixed(1))
      .join(' ');
    return {
      label,
      probes: probes.sort((x, y) => x - y),
      heavy: heavy.sort((x, y) => x - y),
      probeErrors,
      load,
    };
  } finally {
    heavyAgent.destroy();
    probeAgent.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

/** "0", or how many probes failed and with what, e.g. "3 (read ECONNRESET)". */
function probeErrorsCell(errors: readonly string[]): string {
  if (errors.length === 0) return '0';
  return `${errors.length} (${[...new Set(errors.map((e) => e.replace(/^bench: app\.info: /, '')))].join('; ')})`;
}

/** The latency table of `measure`'s modes, one row each, with the load at each one's end. */
export function resultTable(results: readonly ModeResult[]): string[] {
  const row = (r: ModeResult): string =>
    `| ${r.label} | ${r.probes.length} | ${fmt(percentile(r.probes, 0.5), 1)} | ${fmt(percentile(r.probes, 0.99), 1)} | ` +
    `${fmt(r.probes.at(-1) ?? Number.NaN, 0)} | ${probeErrorsCell(r.probeErrors)} | ${r.heavy.length} | ${fmt(percentile(r.heavy, 0.5), 0)} | ${r.load} |`;
  return [
    `| reads | app.info calls | app.info p50 ms | app.info p99 ms (target <= ${TARGET_P99_MS}) | app.info max ms | app.info failed | heavy calls | heavy p50 ms | load average at the end |`,
    '|---|---|---|---|---|---|---|---|---|',
    ...results.map(row),
  ];
}

/**
 * The local server under a heavy read mix: two full LoCoMo runs, CONCURRENCY clients looping over
 * runs.answers / runs.export (JSON and CSV) / runs.get, and `app.info` probed meanwhile. Measured
 * twice: reads on the main thread (read workers 0, the old behaviour) and in the read worker.
 */
export async function serverSuite(data: string, write: boolean, _extra: string[]): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mw-bench-server-'));
  try {
    const { runIds, answers } = await fullRuns(data, dataDir);
    const loadBefore = loadavg()
      .map((x) => x.toFixed(1))
      .join(' ');
    const [a, b] = runIds as [string, string];
    const mix: CallMix = [
      ['runs.answers', { runId: a }],
      ['runs.export', { runId: b, format: 'json' }],
      ['runs.get', { runId: a }],
      ['runs.answers', { runId: b }],
      ['runs.export', { runId: a, format: 'csv' }],
      ['runs.get', { runId: b }],
    ];
    const results = [
      await measure(dataDir, mix, 0, 'reads on the main thread (before)'),
      await measure(dataDir, mix, 1, 'reads in 1 read worker (default)'),
    ];
    const lines = [
      '## Server (light calls under a heavy read mix)',
      '',
      'Reproduce: `npm run bench -- server` (same dataset resolution as above).',
      '',
      `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}; load average before the ` +
        `measurements ${loadBefore}.`,
      '',
      `Two full runs (hybrid and text; ${answers.join(' and ')} final answers) in a runs DB; the real ` +
        'service behind the real HTTP server in a child process. ' +
        `${CONCURRENCY} clients loop for ${DURATION_MS / 1000} s over runs.answers, runs.export (JSON, ` +
        'CSV) and runs.get of both runs (bodies drained), while one more client calls `app.info` ' +
        `every ${PROBE_GAP_MS} ms on its own connections, open loop: each probe is sent when due ` +
        'whether or not the ones before have answered, and its latency counts from when it was due ' +
        '(a stall shows in p99 and max instead of as a gap). Latencies are seen by the client.',
      '',
      ...resultTable(results),
    ];
    const body = lines.join('\n');
    process.stdout.write(`${body}\n`);
    if (write) await writeSection('server', body);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
