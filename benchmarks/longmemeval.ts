import { statSync } from 'node:fs';
import { createMemoryService } from '../src-main/core/memory/registry';
import '../src-main/core/memory/presets';
import { jsonArrayElements } from '../src-main/core/dataset/jsonArrayStream';
import { readLongMemEvalQuestion } from '../src-main/core/dataset/longmemeval';
import { retrieveSample } from '../src-main/core/memory/retrieval/evaluate';
import { fmt, machineLine, peakRssMb, writeSection } from './common';

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
    const r = await retrieveSample(sample, (ctx) => createMemoryService('hybrid', {}, ctx), 10);
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
  ].join('\n');
  process.stdout.write(`\n${body}\n`);
  if (write) await writeSection('longmemeval', body);
}
