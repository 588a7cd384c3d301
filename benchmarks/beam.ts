import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DEFAULT_BEAM_ROOT, buildBeam10M } from './beam-10m';
import { REPO, fmt, machineLine, percentile, writeSection } from './common';

/**
 * BEAM offline (issue 36): the 20 chats of 100K through `cli experiment` (the default preset and
 * extractive answerer, every probing question re-asked at each test as it becomes answerable), and
 * a 10M-token conversation built from the shared chats (benchmarks/beam-10m.ts, plan-<k>
 * sub-chats streamed as one conversation) ingested and every question asked once (ingest-all),
 * plus the same build at a quarter of the size for the growth exponent. Each run is the built
 * CLI in a child process: its wall time, its CPU (/proc), its peak RSS (VmHWM, worker threads
 * included) and the p50 of its questions' retrieval time from its runs DB.
 */

const TARGETS = {
  wall100K: 15,
  rss100K: 600,
  wall10M: 120,
  rss10M: 1536,
  p50Ratio: 2,
  exponent: 1.1,
};

interface CliRun {
  label: string;
  wallS: number;
  cpuS: number;
  peakRssMb: number;
  answers: number;
  turns: number;
  retrieveP50Ms: number;
  load: string;
}

const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

/** utime + stime of a live process, seconds (clock ticks of 10 ms), or null once it is gone. */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

function peakRss(pid: number): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

async function cliExperiment(
  label: string,
  data: string,
  turns: number,
  args: string[],
): Promise<CliRun> {
  const dir = mkdtempSync(join(tmpdir(), 'mw-bench-beam-'));
  const before = load();
  try {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        join(REPO, 'out/cli/main.js'),
        ...['experiment', '--data', data, '--data-dir', dir, '--json', ...args],
      ],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let peak = 0;
    let cpu = 0;
    const poll = setInterval(() => {
      if (child.pid === undefined) return;
      peak = Math.max(peak, peakRss(child.pid) ?? 0);
      cpu = Math.max(cpu, cpuSeconds(child.pid) ?? 0);
    }, 100);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearInterval(poll);
    const wallS = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`bench beam: cli experiment (${label}) exited with ${code}`);
    const { runId } = JSON.parse(out) as { runId: string };
    const db = new Database(join(dir, 'runs.db'), { readonly: true });
    const retrieve = (
      db
        .prepare('SELECT retrieve_ms AS ms FROM answers WHERE run_id = ? ORDER BY ms')
        .all(runId) as Array<{
        ms: number;
      }>
    ).map((r) => r.ms);
    db.close();
    return {
      label,
      wallS,
      cpuS: cpu,
      peakRssMb: peak,
      answers: retrieve.length,
      turns,
      retrieveP50Ms: percentile(retrieve, 0.5),
      load: `${before} -> ${load()}`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function beamSuite(_data: string, write: boolean): Promise<void> {
  const chats100K = join(DEFAULT_BEAM_ROOT, '100K');
  if (!existsSync(chats100K)) {
    throw new Error(`bench beam: the BEAM chats are not at ${chats100K} (../shared/datasets/beam)`);
  }
  // The CLI as `npm run cli` runs it, built once before anything is timed.
  spawnSync(process.execPath, ['scripts/build-cli.mjs', '--if-stale'], {
    cwd: REPO,
    stdio: 'inherit',
  });
  const dir = mkdtempSync(join(tmpdir(), 'mw-bench-beam-10m-'));
  const runs: CliRun[] = [];
  let built10M;
  let builtQuarter;
  try {
    runs.push(await cliExperiment('100K, 20 chats, stream', chats100K, 5732, []));
    builtQuarter = buildBeam10M(join(dir, 'quarter'), 2_500_000);
    runs.push(
      await cliExperiment('2.5M, one chat, ingest-all', builtQuarter.chat, builtQuarter.messages, [
        '--mode',
        'ingest-all',
      ]),
    );
    rmSync(join(dir, 'quarter'), { recursive: true, force: true });
    built10M = buildBeam10M(join(dir, 'full'));
    runs.push(
      await cliExperiment('10M, one chat, ingest-all', built10M.chat, built10M.messages, [
        '--mode',
        'ingest-all',
      ]),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const [small, quarter, full] = runs as [CliRun, CliRun, CliRun];
  const exponent = Math.log(full.cpuS / quarter.cpuS) / Math.log(full.turns / quarter.turns);
  const ratio = full.retrieveP50Ms / small.retrieveP50Ms;
  const lines: string[] = [];
  lines.push('## BEAM offline: 100K chats and a 10M-token conversation');
  lines.push('');
  lines.push(
    `Reproduce: \`npm run bench -- beam\` (../shared/datasets/beam; the 10M conversation is built by \`benchmarks/beam-10m.ts\` from the 100K and 500K chats into a temp dir: ${built10M?.plans ?? 0} plan sub-chats, ${built10M?.messages.toLocaleString('en-US') ?? 0} messages, ~${((built10M?.tokens ?? 0) / 1e6).toFixed(1)}M tokens as characters / 4, ${built10M?.questions ?? 0} questions). Each run is \`node out/cli/main.js experiment\` in a child process, default preset and extractive answerer; wall and CPU are the child's, peak RSS its VmHWM (worker threads included), query p50 the median \`retrieve_ms\` of its answers.`,
  );
  lines.push('');
  lines.push(`Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}.`);
  lines.push('');
  lines.push(
    '| run | turns | answers | wall s | CPU s | peak RSS MB | query p50 ms | load average (1, 5, 15 min) before -> after |',
  );
  lines.push('|---|---|---|---|---|---|---|---|');
  for (const r of runs) {
    lines.push(
      `| ${r.label} | ${r.turns.toLocaleString('en-US')} | ${r.answers.toLocaleString('en-US')} | ${fmt(r.wallS, 1)} | ${fmt(r.cpuS, 1)} | ${fmt(r.peakRssMb, 0)} | ${fmt(r.retrieveP50Ms, 2)} | ${r.load} |`,
    );
  }
  lines.push('');
  lines.push(
    `Targets: 100K <= ${TARGETS.wall100K} s and <= ${TARGETS.rss100K} MB (${fmt(small.wallS, 1)} s, ${fmt(small.peakRssMb, 0)} MB); 10M <= ${TARGETS.wall10M} s and <= ${TARGETS.rss10M} MB (${fmt(full.wallS, 1)} s, ${fmt(full.peakRssMb, 0)} MB); query p50 10M / 100K <= ${TARGETS.p50Ratio} (**${fmt(ratio, 2)}**); growth exponent of the run's CPU in turns, 2.5M -> 10M, log(CPU ratio) / log(turn ratio) <= ${TARGETS.exponent} (**${fmt(exponent, 2)}**). Wall time on a shared, loaded machine follows the other jobs; CPU is the code's.`,
  );
  const body = lines.join('\n');
  process.stdout.write(`${body}\n`);
  if (write) await writeSection('beam', body);
}
