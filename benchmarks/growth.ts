import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDatasetFile } from '../src-main/core/dataset/index';
import { createMemoryService } from '../src-main/core/memory/registry';
import '../src-main/core/memory/presets';
import { evaluateRetrieval } from '../src-main/core/memory/retrieval/evaluate';
import { fmt, machineLine, percentile, writeSection } from './common';
import { readRawSample, repeatSample } from './repeat-sample';
import { DEFAULT_MEMORY_PRESET } from '../src-shared/experiment';

const SAMPLE = 'conv-26';
const REPEATS = [1, 4, 16] as const;
const K = 10;

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

interface Size {
  times: number;
  turns: number;
  questions: number;
  cpuS: number;
  insertMs: number;
  queryMs: number;
  p50: number;
}

/**
 * How the default preset's cost grows with the conversation: conv-26 repeated 1, 4 and 16 times
 * (419 to 6,704 turns, questions repeated with it), every turn inserted, every question asked.
 * The exponent between 4x and 16x is log(cost16 / cost4) / log 4: 1 when a sample's cost grows
 * with its number of calls only, 2 when each call also grows with the turns.
 */
export async function growthSuite(data: string, write: boolean): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mw-bench-growth-'));
  const raw = readRawSample(data, SAMPLE);
  const sizes: Size[] = [];
  try {
    for (const [pass, times] of [1, ...REPEATS].entries()) {
      const file = join(dir, `${SAMPLE}x${times}.json`);
      writeFileSync(file, JSON.stringify([repeatSample(raw, times)]));
      const sample = (await loadDatasetFile(file)).samples[0];
      if (!sample) throw new Error(`growth: ${file} has no sample`);
      // CPU time, not wall time: the machine is shared, and a query waiting for a core would
      // count as a slow query.
      const queryCpu: number[] = [];
      const cpu0 = process.cpuUsage();
      const r = await evaluateRetrieval(
        [sample],
        async (ctx) => {
          const service = await createMemoryService(DEFAULT_MEMORY_PRESET, {}, ctx);
          const retrieve = service.retrieve.bind(service);
          service.retrieve = async (question, k) => {
            const before = process.cpuUsage();
            const hits = await retrieve(question, k);
            queryCpu.push(cpuMs(process.cpuUsage(before)));
            return hits;
          };
          return service;
        },
        K,
      );
      const sampleCpu = cpuMs(process.cpuUsage(cpu0));
      const queryMs = queryCpu.reduce((s, x) => s + x, 0);
      const size: Size = {
        times,
        turns: r.turns,
        questions: r.questions.length,
        cpuS: sampleCpu / 1000,
        insertMs: sampleCpu - queryMs,
        queryMs,
        p50: percentile(
          [...queryCpu].sort((x, y) => x - y),
          0.5,
        ),
      };
      // The first 1x pass only warms up the JIT, the word vectors and SQLite.
      if (pass > 0) sizes.push(size);
      process.stderr.write(`  growth ${times}x: ${size.turns} turns, p50 ${fmt(size.p50, 2)} ms\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const at = (times: number) => sizes.find((s) => s.times === times) as Size;
  const exponent = (f: (s: Size) => number) => Math.log(f(at(16)) / f(at(4))) / Math.log(4);
  const lines: string[] = [];
  lines.push('## Retrieval growth with conversation length');
  lines.push('');
  lines.push(
    `Reproduce: \`npm run bench -- growth\` (${SAMPLE} repeated with \`benchmarks/repeat-sample.ts\`; the default preset \`${DEFAULT_MEMORY_PRESET}\`, k ${K}; questions repeated with the turns; CPU time of this process, as the machine is shared).`,
  );
  lines.push('');
  lines.push(`Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}.`);
  lines.push('');
  lines.push(
    '| repeats | turns | questions | CPU s (whole sample) | insert CPU ms | all queries CPU ms | query p50 CPU ms |',
  );
  lines.push('|---|---|---|---|---|---|---|');
  for (const s of sizes) {
    lines.push(
      `| ${s.times}x | ${s.turns.toLocaleString('en-US')} | ${s.questions.toLocaleString('en-US')} | ${fmt(s.cpuS, 1)} | ${fmt(s.insertMs, 0)} | ${fmt(s.queryMs, 0)} | ${fmt(s.p50, 2)} |`,
    );
  }
  lines.push('');
  lines.push(
    `Query p50 at 16x / 1x: **${fmt(at(16).p50 / at(1).p50, 2)}x** (target <= 2). Growth exponent between 4x and 16x: whole-sample CPU **${fmt(
      exponent((s) => s.cpuS),
      2,
    )}**, all queries **${fmt(
      exponent((s) => s.queryMs),
      2,
    )}** (target <= 1.2).`,
  );
  const body = lines.join('\n');
  process.stdout.write(`${body}\n`);
  if (write) await writeSection('growth', body);
}
