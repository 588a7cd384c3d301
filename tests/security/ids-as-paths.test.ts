import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../src-shared/api';
import { EXTRA_PRESETS_ENV } from '../../src-main/core/pipeline/loadPresets';
import { createService, type Service } from '../../src-main/core/service';
import { startServer, type RunningServer } from '../../src-main/server/server';
import { REPO, runCli } from '../support/cli';
import { runEnded } from '../support/run-events';

/**
 * Issue 39 item 3: a dataset whose sample_id is `..` made the runner's "fresh collection" rmSync
 * remove <data dir>/collections, with every kept collection of earlier runs in it. Sample ids
 * now become folder names only through core/path-component.ts. Real CLI child process, real
 * server over HTTP, real files.
 */

const root = mkdtempSync(join(tmpdir(), 'workbench-sec-ids-'));
const dataDir = join(root, 'data');
const collections = join(dataDir, 'collections');
const presets = join(REPO, 'tests/fixtures/experiment/test-presets.ts');
const env = { MEMORY_WORKBENCH_DATA: dataDir, [EXTRA_PRESETS_ENV]: presets };
const mini = JSON.parse(
  readFileSync(join(REPO, 'tests/fixtures/locomo/mini.json'), 'utf8'),
) as Array<Record<string, unknown>>;

const HOSTILE_IDS = ['..', '.', 'a/../b', '', 'x'.repeat(300), 'ünï/çødé', '../../..', 'CON'];

/** Every sample of mini.json once under each hostile id (the empty one is refused, skipped). */
const hostileDataset = JSON.stringify(
  HOSTILE_IDS.map((id) => ({ ...structuredClone(mini[0]), sample_id: id })),
);
const hostileFile = join(root, 'hostile.json');
writeFileSync(hostileFile, hostileDataset);

/** Every folder and file under `dir` (a file with its size): what a kept collection holds. */
function listing(dir: string): Record<string, number | 'folder'> {
  const out: Record<string, number | 'folder'> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    out[relative(dir, path)] = entry.isFile() ? statSync(path).size : 'folder';
  }
  return out;
}

let keptRun = '';
let kept: Record<string, number | 'folder'> = {};

beforeAll(async () => {
  const first = await runCli(
    [
      'experiment',
      '--data',
      join(REPO, 'tests/fixtures/locomo/mini.json'),
      '--preset',
      'test-recency',
      '--keep-collections',
      '--json',
    ],
    env,
  );
  expect(first.code).toBe(0);
  keptRun = (JSON.parse(first.out) as { runId: string }).runId;
  // The test preset keeps its memory in the process: a file stands for a collection's data.
  for (const sample of readdirSync(join(collections, keptRun)))
    writeFileSync(join(collections, keptRun, sample, 'items.db'), 'collection data');
  kept = listing(join(collections, keptRun));
  expect(Object.values(kept)).toContain('collection data'.length);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('ids from a dataset never become paths (issue 39 item 3)', () => {
  it('CLI: a run over samples named .., ., a/../b, "", 300 x, unicode leaves an earlier kept collection intact', async () => {
    const r = await runCli(
      ['experiment', '--data', hostileFile, '--preset', 'test-recency', '--skip-invalid', '--json'],
      env,
    );
    expect(r.code).toBe(0);
    const run = JSON.parse(r.out) as { runId: string; status: string };
    expect(run.status).toBe('completed');
    expect(listing(join(collections, keptRun))).toEqual(kept);
    // Nothing of the hostile run is left anywhere under the data folder's collections.
    expect(readdirSync(collections)).toEqual([keptRun]);
  });

  it('CLI --keep-collections: each sample has its own folder, inside the run’s folder', async () => {
    const r = await runCli(
      [
        'experiment',
        '--data',
        hostileFile,
        '--preset',
        'test-recency',
        '--skip-invalid',
        '--keep-collections',
        '--json',
      ],
      env,
    );
    expect(r.code).toBe(0);
    const { runId } = JSON.parse(r.out) as { runId: string };
    const folders = readdirSync(join(collections, runId));
    // One folder per valid sample (the empty id is refused): no two ids shared one.
    expect(folders).toHaveLength(HOSTILE_IDS.length - 1);
    for (const folder of folders) expect(folder).toMatch(/^[a-z0-9_.-]{1,72}$/);
    expect(listing(join(collections, keptRun))).toEqual(kept);
    rmSync(join(collections, runId), { recursive: true });
  });

  describe('browser API', () => {
    const TOKEN = 'ids-as-paths-token-0123456789';
    const events: ApiEvent[] = [];
    let service: Service;
    let server: RunningServer;

    beforeAll(async () => {
      process.env[EXTRA_PRESETS_ENV] = presets;
      service = createService({
        dataDir,
        transport: 'http',
        datasetDirs: [],
        readWorkers: 0,
        emit: (event) => events.push(event),
      });
      server = await startServer({ handlers: service.handlers, staticDir: root, token: TOKEN });
    });
    afterAll(async () => {
      await server?.close();
      await service?.close();
      delete process.env[EXTRA_PRESETS_ENV];
    });

    function api(method: string, input: unknown): Promise<{ ok: boolean; data?: unknown }> {
      return new Promise((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: server.port,
            path: `/api/${method}`,
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          },
          (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () => resolve(JSON.parse(body) as { ok: boolean; data?: unknown }));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(input));
      });
    }

    it('an uploaded dataset with the same ids, run from the browser API, leaves the kept collection intact', async () => {
      const upload = await api('datasets.upload', {
        name: 'hostile.json',
        content: hostileDataset,
      });
      expect(upload.ok).toBe(true);
      const { datasetId } = upload.data as { datasetId: string };
      const started = await api('experiments.start', {
        datasetId,
        memory: { preset: 'test-recency', config: {} },
        skipInvalid: true,
      });
      expect(started).toMatchObject({ ok: true });
      const { runId } = started.data as { runId: string };
      const end = await runEnded(events, runId);
      expect(end.type).toBe('run-finished');
      expect(listing(join(collections, keptRun))).toEqual(kept);
      expect(readdirSync(collections)).toEqual([keptRun]);
    });
  });
});
