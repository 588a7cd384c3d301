import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryService } from '../src-main/core/memory/registry';
import '../src-main/core/memory/presets';
import { jsonArrayElements } from '../src-main/core/dataset/jsonArrayStream';
import { readLongMemEvalQuestion } from '../src-main/core/dataset/longmemeval';
import { evaluateRetrieval } from '../src-main/core/memory/retrieval/evaluate';
import { REPO, fmt, machineLine, peakRssMb, writeSection } from './common';

interface CliRun {
  wallS: number;
  elapsedS: number;
  peakRssMb: number | null;
  questions: number;
  limitBytes: number;
}

/** The child's peak RSS so far (VmHWM), or null once it is gone. */
function childPeakRssMb(pid: number): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * The real run path: `cli experiment --data <file>` in a child process (default preset and
 * answerer, one lane), with the whole-file limit set below the file's size so the run streams it
 * as it streams longmemeval_m. Peak RSS is the child's (its worker threads included).
 */
async function cliExperiment(data: string, bytes: number): Promise<CliRun> {
  const dir = mkdtempSync(join(tmpdir(), 'mw-bench-lme-cli-'));
  const limitBytes = Math.max(1, Math.floor(bytes / 2));
  try {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        ...['--import', 'tsx', 'src-main/cli/main.ts', 'experiment', '--data', data],
        ...['--runs-db', join(dir, 'runs.db'), '--data-dir', join(dir, 'data'), '--json'],
      ],
      {
        cwd: REPO,
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, MEMORY_WORKBENCH_MAX_DATASET_BYTES: String(limitBytes) },
      },
    );
    let peak: number | null = null;
    const poll = setInterval(() => {
      const now = child.pid === undefined ? null : childPeakRssMb(child.pid);
      if (now !== null) peak = Math.max(peak ?? 0, now);
    }, 200);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearInterval(poll);
    const wallS = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`bench longmemeval: cli experiment exited with ${code}`);
    const report = JSON.parse(out) as { elapsedMs: number; summary: { questions: number } };
    return {
      wallS,
      elapsedS: report.elapsedMs / 1000,
      peakRssMb: peak,
      questions: report.summary.questions,
      limitBytes,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * LongMemEval at M scale: the file is read element by element (jsonArrayElements), each question
 * validated into a sample, its haystack inserted packet by packet into its own memory service
 * (the offline default, `hybrid`), asked once, then the service is closed and its folder removed.
 * Peak RSS therefore depends on one haystack, not on the file. Data: `--data <file>`, e.g. one
 * written by `npx tsx scripts/generate-longmemeval-m.ts` (same shape, random words).
 */
export async function longMemEvalSuite(data: string, write: boolean): Promise<void> {
  if (data === '') {
    throw new Error(
      'bench longmemeval: pass --data <file> (npx tsx scripts/generate-longmemeval-m.ts /tmp/lme_m.json)',
    );
  }
  const bytes = statSync(data).size;
  const t0 = performance.now();
  let questions = 0;
  let turns = 0;
  let sessions = 0;
  let insertMs = 0;
  let problems = 0;
  for await (const { index, value } of jsonArrayElements(data)) {
    const read = readLongMemEvalQuestion(value, index, { source: data });
    problems += read.problems.filter((p) => p.severity === 'error').length;
    const sample = read.sample;
    if (!sample) continue;
    const r = await evaluateRetrieval(
      [sample],
      (ctx) => createMemoryService('hybrid', {}, ctx),
      10,
    );
    questions++;
    turns += r.turns;
    sessions += sample.sessions.length;
    insertMs += r.insertMs;
    process.stdout.write(
      `${sample.sampleId}: ${r.turns} turns in ${fmt(r.insertMs / 1000, 1)} s, peak RSS ${fmt(peakRssMb() ?? Number.NaN, 0)} MB\n`,
    );
  }
  const wallS = (performance.now() - t0) / 1000;
  const rss = peakRssMb();
  process.stdout.write('\ncli experiment on the same file (streamed) ...\n');
  const cli = await cliExperiment(data, bytes);
  const body = [
    '## LongMemEval at M scale (`npm run bench -- longmemeval --data <file>`)',
    '',
    `File: ${(bytes / 2 ** 20).toFixed(0)} MiB, ${questions} questions, ${sessions.toLocaleString('en-US')} sessions, ${turns.toLocaleString('en-US')} turns (${problems} invalid questions). ${machineLine()}.`,
    '',
    '| measure | value |',
    '|---|---|',
    `| ingest rate (hybrid, offline word vectors) | ${fmt(turns / (insertMs / 1000), 0)} turns/s |`,
    `| peak RSS of the process | ${rss === null ? '-' : `${rss.toFixed(0)} MB`} (target ≤ 1,536 MB) |`,
    `| wall time (read, validate, ingest, ask, drop) | ${fmt(wallS, 1)} s |`,
    `| wall time per question | ${fmt(wallS / Math.max(1, questions), 1)} s |`,
    '',
    'Each question is read from the file on its own, gets its own memory service (created, fed',
    'its haystack, asked, closed and deleted), so peak RSS is bounded by one haystack whatever',
    'the number of questions; the full 500-question M file takes 500 times the per-question time.',
    '',
    `The real run path, \`cli experiment --data <file> --json\` (hybrid, extractive answerer, one lane, worker thread, runs DB), with \`MEMORY_WORKBENCH_MAX_DATASET_BYTES=${cli.limitBytes}\` so the file is over the whole-file limit and streamed as longmemeval_m is (index pass, then one question at a time):`,
    '',
    '| measure (cli experiment, streamed) | value |',
    '|---|---|',
    `| questions answered | ${cli.questions} |`,
    `| peak RSS of the CLI process (workers included) | ${cli.peakRssMb === null ? '-' : `${cli.peakRssMb.toFixed(0)} MB`} (target ≤ 1,536 MB) |`,
    `| end-to-end rate (turns / wall time) | ${fmt(turns / cli.wallS, 0)} turns/s |`,
    `| run time (elapsed in the report: ingest, ask, score) | ${fmt(cli.elapsedS, 1)} s |`,
    `| wall time (start-up, index pass, run, exit) | ${fmt(cli.wallS, 1)} s |`,
  ].join('\n');
  process.stdout.write(`\n${body}\n`);
  if (write) await writeSection('longmemeval', body);
}
