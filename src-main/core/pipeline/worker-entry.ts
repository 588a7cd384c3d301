// Worker thread entry for experiments (filled in by the pipeline). Kept as its own build entry so
// the Electron main process and the CLI can spawn it by path.
import { parentPort } from 'node:worker_threads';

parentPort?.postMessage({ type: 'ready' });
