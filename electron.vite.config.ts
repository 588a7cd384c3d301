import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

const shared = { '@shared': resolve(__dirname, 'src-shared') };

export default defineConfig({
  main: {
    resolve: { alias: shared },
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/app/main.ts'),
          // Experiments run in worker_threads; the worker is its own entry so it can be spawned by path.
          worker: resolve(__dirname, 'src-main/core/pipeline/worker-entry.ts'),
          // Heavy runs DB reads run in their own worker so the main thread keeps serving.
          'runs-read-worker': resolve(__dirname, 'src-main/core/read-worker-entry.ts'),
          // Opening a large dataset (read, parse, validate) runs off the main thread too.
          'dataset-load-worker': resolve(__dirname, 'src-main/core/dataset-load-worker-entry.ts'),
        },
      },
    },
  },
  preload: {
    resolve: { alias: shared },
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(__dirname, 'src-main/app/preload.ts') },
        // A sandboxed preload must be CommonJS.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src-renderer'),
    resolve: { alias: shared },
    plugins: [react()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      // electron-vite leaves the renderer unminified: 2.4 MB of source parsed on every first load.
      minify: true,
      rollupOptions: { input: resolve(__dirname, 'src-renderer/index.html') },
    },
  },
});
