import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  resolve: {
    alias: { '@shared': fileURLToPath(new URL('./src-shared', import.meta.url)) },
  },
  test: {
    include: ['src-*/**/*.test.ts', 'src-*/**/*.test.tsx', 'tests/**/*.test.ts'],
    environment: 'node',
    // Native addons (better-sqlite3, hnswlib-node) and worker_threads behave best in forked processes.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
