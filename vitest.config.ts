import { configDefaults, defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  resolve: {
    alias: { '@shared': fileURLToPath(new URL('./src-shared', import.meta.url)) },
  },
  test: {
    include: ['src-*/**/*.test.ts', 'src-*/**/*.test.tsx', 'tests/**/*.test.ts'],
    // The scratch-copy test runs the unit suite again in a copy: its own step,
    // `npm run test:how-to-add` (vitest.how-to-add.config.ts), after this suite.
    exclude: [...configDefaults.exclude, 'tests/how-to-add/**'],
    environment: 'node',
    // Native addons (better-sqlite3, hnswlib-node) and worker_threads behave best in forked processes.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
