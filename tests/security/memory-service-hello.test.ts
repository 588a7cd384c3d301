import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_HELLO_CHARS } from '../../src-shared/memory-protocol';
import { prepareMemoryPreset } from '../../src-main/core/memory/registry';
// Registers the built-in presets, external among them.
import '../../src-main/core/memory/presets';
import { FAKE_HELLO, startFakeService, type RunningService } from '../support/memory-services';

/**
 * What a memory service says before a run starts (`hello`, probed on the main thread) is held to
 * the same limits as the rest of the run: the deadline the config sets, and a size a manifest can
 * carry.
 */

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const prepare = (config: Record<string, unknown>) =>
  prepareMemoryPreset('external', config, {
    mayStartProcesses: false,
    apiKeys: {},
  });

/** Accepts connections and never answers. */
async function startSilentService(): Promise<RunningService> {
  const server: Server = createServer(() => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('the hello a run starts with', () => {
  it('is given up on after controlTimeoutMs, not after the default 30 s', async () => {
    const silent = await startSilentService();
    stops.push(silent.stop);
    const started = Date.now();
    await expect(prepare({ url: silent.url, controlTimeoutMs: 300 })).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: expect.stringContaining('hello'),
    });
    // Well under the 30 s default it used to wait whatever the config said.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('with a 15 MB extra field is refused, not stored whole in the run', async () => {
    const service = await startFakeService((method) =>
      method === 'hello' ? { ...FAKE_HELLO, padding: 'x'.repeat(15_000_000) } : {},
    );
    stops.push(service.stop);
    await expect(prepare({ url: service.url })).rejects.toMatchObject({
      code: 'UPSTREAM',
      message: expect.stringContaining(
        `hello is larger than ${MAX_HELLO_CHARS} characters of JSON`,
      ),
    });
  });

  it('with a modest extra field is kept as the service sent it', async () => {
    const service = await startFakeService((method) =>
      method === 'hello' ? { ...FAKE_HELLO, build: 'abc123' } : {},
    );
    stops.push(service.stop);
    const record = await prepare({ url: service.url });
    expect(record?.hello).toMatchObject({ build: 'abc123' });
  });

  it('has a deadline Node can hold: controlTimeoutMs past 2^31-1 ms is refused', async () => {
    await expect(
      prepare({ url: 'http://127.0.0.1:1', controlTimeoutMs: 3e9 }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('controlTimeoutMs'),
    });
  });
});
