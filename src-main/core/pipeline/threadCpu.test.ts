import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { threadCpuMs } from './threadCpu';

const linux = process.platform === 'linux';

describe.runIf(linux)('threadCpuMs', () => {
  it("counts this thread's work and not another thread's", async () => {
    const before = threadCpuMs() as number;
    // A worker spins for 300 ms of its own CPU while this thread waits, idle.
    const spin = new Worker(
      `const end = Date.now() + 300; while (Date.now() < end);
       require('node:worker_threads').parentPort.postMessage('done');`,
      { eval: true },
    );
    await new Promise((resolve) => spin.once('message', resolve));
    await spin.terminate();
    const waited = (threadCpuMs() as number) - before;

    const start = threadCpuMs() as number;
    let spun = 0;
    const until = (): number => (threadCpuMs() as number) - start;
    while (until() < 200) spun++;
    // This thread's clock moved by what it spun, in whole ticks (10 ms).
    expect(until()).toBeGreaterThanOrEqual(200);
    expect(until() % 10).toBe(0);
    expect(spun).toBeGreaterThan(0);
    // Waiting for the worker cost this thread far less than the worker's 300 ms.
    expect(waited).toBeLessThan(150);
  });
});
