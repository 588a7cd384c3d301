import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JudgeConfigSchema } from '../../../src-shared/experiment';
import { writeFixtureRun } from '../../../tests/support/runs-fixture';
import { rescoreJudge } from './rescoreJudge';
import { RunStore } from './store';

const dir = mkdtempSync(join(tmpdir(), 'workbench-rescore-judge-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A port nothing listens on: taken from the OS, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('rescoreJudge', () => {
  it('counts no call when no request reached an endpoint (nothing listens at 0.0.0.0)', async () => {
    const store = RunStore.open(join(dir, 'runs.db'));
    try {
      writeFixtureRun(store, { runId: 'run-a' });
      const config = JudgeConfigSchema.parse({
        baseUrl: `http://0.0.0.0:${await closedPort()}/v1`,
        model: 'judge',
        maxRetries: 0,
      });
      const result = await rescoreJudge(store, 'run-a', config);
      // Every judged group failed to connect: errors, and not one call made.
      expect(result.errors).toBeGreaterThan(0);
      expect(result.calls).toBe(0);
    } finally {
      store.close();
    }
  });
});
