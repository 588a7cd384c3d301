import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DatasetSummary } from '../../src-shared/api';
import { createService, type Service } from '../../src-main/core/service';
import { startServer, type RunningServer } from '../../src-main/server/server';
import { writeBigLocomo } from '../support/big-locomo';

/**
 * Issue 23 item 8: opening a large dataset (400 MB blocked `app.info` for 13 s) reads, parses and
 * validates it off the main thread, so the server answers other requests meanwhile. Through the
 * real service and HTTP server, with a generated ~40 MB LoCoMo-shaped file.
 */
const TOKEN = 'test-token-dataset-open';
let root: string;
let big: string;
let samples: number;
let service: Service;
let server: RunningServer;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mw-open-off-thread-'));
  const datasets = join(root, 'datasets');
  mkdirSync(datasets);
  big = join(datasets, 'big-locomo.json');
  samples = writeBigLocomo(big, 40 * 1024 * 1024);
  writeFileSync(join(root, 'static.html'), '');
  service = createService({ dataDir: root, transport: 'http', datasetDirs: [datasets] });
  server = await startServer({ handlers: service.handlers, staticDir: root, token: TOKEN });
});

afterAll(async () => {
  await service.close();
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

/** `answered`: the reply's status line arrived (a large body may take a while longer). */
function call<T>(name: string, input: unknown, answered: () => void = () => {}): Promise<T> {
  const body = JSON.stringify(input);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: `/api/${name}`,
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      },
      (res) => {
        answered();
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          const reply = JSON.parse(text) as { ok: boolean; data: T; error?: unknown };
          if (reply.ok) resolve(reply.data);
          else reject(new Error(`${name}: ${JSON.stringify(reply.error)}`));
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('datasets.open of a large file', () => {
  it('answers app.info while the file is being parsed and validated', async () => {
    // "The open's heavy part has begun", seen the same way whichever thread does it: the main
    // thread starting to parse the file's text (the old way: app.info, sent only then, waits
    // behind the whole parse), or the main thread starting the load's worker thread.
    let begun!: () => void;
    const heavyPartBegun = new Promise<void>((resolve) => (begun = resolve));
    const parse = JSON.parse;
    const spy = vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver) => {
      if (typeof text === 'string' && text.length > 1024 * 1024) begun();
      return parse(text, reviver) as unknown;
    });
    process.once('worker', () => begun());
    try {
      const order: string[] = [];
      // Ordered by when each reply began: the open's summary is large enough that a small reply
      // started after it could still finish first.
      const opened = call<DatasetSummary>('datasets.open', { path: big }, () =>
        order.push('datasets.open'),
      );
      await heavyPartBegun;
      const info = call('app.info', {}, () => order.push('app.info'));
      const [summary] = await Promise.all([opened, info]);
      expect(order).toEqual(['app.info', 'datasets.open']);
      // And the file opened whole: every generated sample, none refused.
      expect(summary.stats.totals.samples).toBe(samples);
      expect(summary.problems.filter((p) => p.severity === 'error')).toEqual([]);
      const first = await call<{ sampleId: string; sessions: unknown[] }>('datasets.sample', {
        datasetId: summary.datasetId,
        sampleId: 'mini-1-copy0',
      });
      expect(first.sampleId).toBe('mini-1-copy0');
    } finally {
      spy.mockRestore();
    }
  });
});
