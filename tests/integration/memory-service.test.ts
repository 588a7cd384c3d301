import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../src-shared/errors';
import { runCli } from '../../src-main/cli/main';
import { ExperimentManager } from '../../src-main/core/experiments';
import { MemoryProtocolClient, openTransport } from '../../src-main/core/memory/external/client';
import { runConformance } from '../../src-main/core/memory/external/conformance';
import { prepareMemoryPreset } from '../../src-main/core/memory/registry';
// Registers the built-in presets, external among them.
import '../../src-main/core/memory/presets';
import {
  FAKE_HELLO,
  PYTHON,
  TS_SERVICE,
  pythonCommand,
  PYTHON_SERVICE,
  startFakeService,
  startHttpService,
  tsCommand,
} from '../support/memory-services';

/**
 * The memory protocol against real processes: the reference services pass the conformance suite
 * on both transports, and services that misbehave get coded errors that name the method and field.
 */

const repo = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'workbench-memproto-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function rejection(promise: Promise<unknown>): Promise<WorkbenchError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WorkbenchError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('reference services pass the conformance suite', () => {
  it.each([
    ['python, stdio', pythonCommand],
    ['typescript, stdio', tsCommand],
  ])('%s', async (_name, command) => {
    const report = await runConformance({ command });
    const failed = report.checks.filter((c) => c.status === 'fail');
    expect(failed).toEqual([]);
    expect(report.passed).toBe(true);
    expect(report.indexingLagMs).not.toBeNull();
    expect(report.checks.map((c) => c.id)).toEqual(
      expect.arrayContaining([
        'top-k',
        'speakers',
        'dates',
        'dia-ids',
        'concurrency',
        'indexing-lag',
      ]),
    );
  });

  it.each([
    ['python, http', [PYTHON, PYTHON_SERVICE]],
    ['typescript, http', [process.execPath, '--import', 'tsx', TS_SERVICE]],
  ])('%s', async (_name, command) => {
    const service = await startHttpService(command);
    try {
      const report = await runConformance({ url: service.url });
      expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
      expect(report.hello?.protocol).toBe('memory-workbench/1');
    } finally {
      await service.stop();
    }
  });
  it('typescript, http on a unix socket', async () => {
    const socket = join(dir, 'memory.sock');
    const service = await startHttpService(
      [process.execPath, '--import', 'tsx', TS_SERVICE],
      ['--socket', socket],
    );
    try {
      expect(service.url).toBe(`unix:${socket}`);
      const report = await runConformance({ url: service.url });
      expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
      expect(report.where).toBe(`unix:${socket}`);
    } finally {
      await service.stop();
    }
  });
});

describe('a misbehaving service', () => {
  /** Ignores top_k and stamps every memory with the wall clock: two classic unfair shortcuts. */
  function sloppyService() {
    const turns: Array<{ dia_id: string; speaker: string; text: string }> = [];
    return startFakeService((method, params) => {
      if (method === 'hello') return FAKE_HELLO;
      if (method === 'open') return { session: 's1' };
      if (method === 'insert') {
        turns.push(...(params['packet'] as { turns: typeof turns }).turns);
        return {};
      }
      if (method === 'retrieve') {
        return {
          items: turns.map((t) => ({
            text: `${t.speaker}: ${t.text}`,
            score: 1,
            dia_ids: [t.dia_id],
            date_time: new Date().toISOString().slice(0, 19),
          })),
        };
      }
      return {};
    });
  }

  it('fails the top_k and date checks, and memory-check exits 1 with a JSON report', async () => {
    const service = await sloppyService();
    try {
      const report = await runConformance({ url: service.url }, { lagLimitMs: 1000 });
      const status = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
      expect(status['top-k']).toBe('fail');
      expect(status['dates']).toBe('fail');
      expect(status['speakers']).toBe('pass');
      expect(report.passed).toBe(false);

      let out = '';
      const code = await runCli(['memory-check', service.url, '--json', '--lag-limit-ms', '1000'], {
        stdout: (t) => (out += t),
        stderr: () => undefined,
      });
      expect(code).toBe(1);
      expect(JSON.parse(out)).toMatchObject({ passed: false, where: `${service.url}/` });
    } finally {
      await service.stop();
    }
  });

  it('a garbage result is an UPSTREAM error naming the method and the bad field', async () => {
    const service = await startFakeService((method) =>
      method === 'hello' ? FAKE_HELLO : { items: [{ text: 'x', score: 1, dia_ids: 'D1:1' }] },
    );
    const client = new MemoryProtocolClient(openTransport({ url: service.url }));
    try {
      const error = await rejection(
        client.call('retrieve', { session: 's', question: 'q', top_k: 1, question_date: null }),
      );
      expect(error.code).toBe('UPSTREAM');
      expect(error.message).toContain('retrieve replied with an invalid result: items[0].dia_ids');
      expect(error.path).toEqual(['retrieve', 'items', 0, 'dia_ids']);
    } finally {
      await client.close();
      await service.stop();
    }
  });

  it('a response over the size cap is refused while it is read', async () => {
    const service = await startFakeService(() =>
      JSON.stringify({ ...FAKE_HELLO, pad: 'x'.repeat(300_000) }),
    );
    const client = new MemoryProtocolClient(
      openTransport({ url: service.url, maxResponseBytes: 100_000 }),
    );
    try {
      const error = await rejection(client.hello());
      expect(error.code).toBe('UPSTREAM');
      expect(error.message).toContain('hello: response larger than 100000 bytes');
    } finally {
      await service.stop();
    }
  });

  it('a stdio service that prints logs on stdout fails with a message that says where logs go', async () => {
    const client = new MemoryProtocolClient(
      openTransport({ command: `${PYTHON} -c "print('starting up'); import time; time.sleep(5)"` }),
    );
    const error = await rejection(client.hello());
    await client.close();
    expect(error.code).toBe('UPSTREAM');
    expect(error.message).toContain(
      'stdout line is not JSON (log to stderr instead): "starting up"',
    );
  });

  it('a command that cannot start says so', async () => {
    const client = new MemoryProtocolClient(openTransport({ command: '/no/such/memory-service' }));
    const error = await rejection(client.hello());
    await client.close();
    expect(error.message).toContain('could not be started (ENOENT)');
  });
});

describe('who may point a run at a service', () => {
  it('refuses a non-loopback url unless allowed, and a command or allowRemote from the browser-mode API', async () => {
    const browser = { mayStartProcesses: false };
    expect(
      (await rejection(prepareMemoryPreset('external', { url: 'http://192.0.2.7:8000' }, browser)))
        .code,
    ).toBe('FORBIDDEN');
    const command = await rejection(
      prepareMemoryPreset('external', { command: pythonCommand }, browser),
    );
    expect(command.code).toBe('FORBIDDEN');
    expect(command.path).toEqual(['memory', 'config', 'command']);
    expect(
      (
        await rejection(
          prepareMemoryPreset(
            'external',
            { url: 'http://192.0.2.7:8000', allowRemote: true },
            browser,
          ),
        )
      ).code,
    ).toBe('FORBIDDEN');
    // Even the local user's allowRemote does not send a token in clear over the network.
    const token = await rejection(
      prepareMemoryPreset(
        'external',
        { url: 'http://192.0.2.7:8000', allowRemote: true, tokenEnv: 'MEMSVC_TOKEN' },
        { mayStartProcesses: true, apiKeys: { MEMSVC_TOKEN: 'k' } },
      ),
    );
    expect(token.message).toContain('refusing to send the key in MEMSVC_TOKEN over plain http');
    // The local user may start the command: it answers hello and is recorded.
    const record = await prepareMemoryPreset(
      'external',
      { command: pythonCommand },
      { mayStartProcesses: true },
    );
    expect(record?.hello).toMatchObject({ name: 'bm25-python' });
    expect(record?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('the API experiment manager (browser mode) refuses a command before any run exists', async () => {
    mkdirSync(join(dir, 'api'));
    const manager = new ExperimentManager(join(dir, 'api'), () => undefined);
    const error = await rejection(
      manager.start({
        datasetPath: join(repo, 'tests/fixtures/locomo/mini.json'),
        memory: { preset: 'external', config: { command: pythonCommand } },
      }),
    );
    expect(error.code).toBe('FORBIDDEN');
    expect(await manager.read('runs.list', {})).toEqual([]);
    await manager.close();
  });
});
