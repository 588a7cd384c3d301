import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Embedder } from './embedder';
import { textHash } from './hash';
import type { CollectionLogger } from './types';

/** Test support only: temp directories, a deterministic embedder and a recording logger. */
export function makeTempDirs(): { make(): string; cleanup(): void } {
  const dirs: string[] = [];
  return {
    make() {
      const dir = mkdtempSync(join(tmpdir(), 'hybrid-collection-'));
      dirs.push(dir);
      return dir;
    },
    cleanup() {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Same text -> same non-zero vector; counts calls so tests can see when it was used. */
export function hashEmbedder(dim: number): Embedder & { calls: number } {
  const embedder = {
    name: `hash-${dim}d`,
    dim,
    calls: 0,
    async embed(texts: readonly string[]): Promise<Float32Array[]> {
      embedder.calls++;
      return texts.map((text) => {
        const v = new Float32Array(dim);
        let h = textHash(text);
        for (let i = 0; i < dim; i++) {
          h = textHash(String(h), i);
          v[i] = (h % 1000) / 1000 - 0.5;
        }
        v[0] = (v[0] ?? 0) + 0.01; // never the zero vector
        return v;
      });
    },
  };
  return embedder;
}

export function recordingLogger(): CollectionLogger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message) => warnings.push(message) };
}
