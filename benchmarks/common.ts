import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_DATA = resolve(REPO, '../shared/datasets/locomo10.json');
export const DOC = join(REPO, 'docs/benchmarks.md');

/** Tuning split (defaults were chosen on these) and the held-out rest. */
export const TUNE_SAMPLES = new Set([
  'conv-26',
  'conv-30',
  'conv-41',
  'conv-42',
  'conv-43',
  'conv-44',
]);
export const HELD_OUT_SAMPLES = new Set(['conv-47', 'conv-48', 'conv-49', 'conv-50']);

export function resolveDataset(flag: string | undefined): string {
  const file = flag === undefined ? DEFAULT_DATA : resolve(flag);
  if (!existsSync(file)) {
    throw new Error(
      `bench: dataset not found at ${file}. The LoCoMo file is not in the repo (CC BY-NC); put ` +
        `locomo10.json in ../shared/datasets/ beside the repo or pass --data <file>.`,
    );
  }
  return file;
}

/** Peak resident set of this process (all worker threads included), MB, from /proc. */
export function peakRssMb(): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export function machineLine(): string {
  const cpu = cpus();
  const load = loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  return (
    `${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown cpu'}), ` +
    `${(totalmem() / 2 ** 30).toFixed(1)} GB RAM, Node ${process.version}, ${process.platform}/${process.arch}, ` +
    `load average at the end ${load}`
  );
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[i] as number;
}

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

export const fmt = (x: number, digits = 3): string =>
  Number.isFinite(x) ? x.toFixed(digits) : '-';

/**
 * Replaces (or appends) the section between `<!-- bench:<name> -->` markers in docs/benchmarks.md,
 * formatted by the repo's Prettier config so a fresh measurement keeps `format:check` green.
 */
export async function writeSection(name: string, body: string): Promise<void> {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const block = `${start}\n${body.trim()}\n${end}`;
  let doc = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '# Benchmarks\n';
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i >= 0 && j > i) doc = doc.slice(0, i) + block + doc.slice(j + end.length);
  else doc = `${doc.trimEnd()}\n\n${block}\n`;
  const options = (await prettier.resolveConfig(DOC)) ?? {};
  writeFileSync(DOC, await prettier.format(doc, { ...options, filepath: DOC }));
}
