import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExperimentConfigSchema } from '../../../src-shared/experiment';
import { insertOldSchemaRun } from '../../../tests/support/runs-db';
import { fixtureManifest } from '../../../tests/support/runs-fixture';
import { repeatGroup } from './repeats';
import { loadSweep } from './spec';
import { openRunsDb } from '../runs/db';
import { configHash } from '../runs/manifest';
import { RunStore } from '../runs/store';

const dir = mkdtempSync(join(tmpdir(), 'workbench-config-hash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * An LLM run's config exactly as a run stored it before `category5Mapping` took the profiles'
 * words (`adversarialReplyMapping`), and the hashes computed for it then (golden values: printed
 * by the build before the rename). Repeat groups, sweep ids and resume key on these hashes.
 */
const STORED = JSON.parse(
  '{"datasetPath":"/d.json","memory":{"preset":"hybrid-context","config":{}},"answerer":{"kind":"llm","baseUrl":"http://127.0.0.1:1/v1","model":"m","temperature":0,"maxTokens":64,"timeoutMs":60000,"maxRetries":4,"concurrency":4,"baseDelayMs":500,"maxReplyBytes":4194304,"category5Mapping":"lenient","contextTokens":128000},"retrieval":{"topK":10},"seed":42,"timeouts":{"insertMs":30000,"answerMs":60000},"includeNoEvidence":true,"parallel":1}',
) as Record<string, unknown>;
const STORED_HASH = '4fca4ce797c76be2d516c99545f4b118fda576364b2b2a7eb17f435cb94b6c30';
const llm = { kind: 'llm', baseUrl: 'http://127.0.0.1:1/v1', model: 'm' };
/** The same endpoint with the mapping left to its default (`locomo`), as most runs have it. */
const DEFAULT_HASH = '6517af4a32502f6fa7561ef801dff32ec39e3bc6f4e6e39945c7cf0a724af678';

describe('config hashes across the adversarialReplyMapping rename', () => {
  it('a stored config reads under the new name and hashes as it did when it was stored', () => {
    const config = ExperimentConfigSchema.parse(STORED);
    expect(config.answerer).toMatchObject({ kind: 'llm', adversarialReplyMapping: 'lenient' });
    expect(config.answerer).not.toHaveProperty('category5Mapping');
    expect(configHash(config)).toBe(STORED_HASH);
  });

  it('a new config with the same settings, under the new name or by default, hashes the same', () => {
    const renamed = ExperimentConfigSchema.parse({
      datasetPath: '/d.json',
      answerer: { ...llm, adversarialReplyMapping: 'lenient' },
    });
    expect(configHash(renamed)).toBe(STORED_HASH);
    const byDefault = ExperimentConfigSchema.parse({ datasetPath: '/d.json', answerer: llm });
    expect(configHash(byDefault)).toBe(DEFAULT_HASH);
    // The hash reads the setting: another mapping is another config.
    expect(configHash(byDefault)).not.toBe(STORED_HASH);
  });

  it("a repeat group's id and a sweep's id (its axis under the old name) are what they were", () => {
    const config = ExperimentConfigSchema.parse({ datasetPath: '/d.json', answerer: llm });
    expect(repeatGroup(config, 3).sweepId).toBe('repeats-cb27a096a3');
    const spec = {
      name: 'g',
      base: { datasetPath: '/d.json', answerer: llm },
      axes: { 'answerer.category5Mapping': ['locomo', 'lenient'] },
    };
    const sweep = loadSweep(spec, 'g.yaml', '/');
    expect(sweep.sweepId).toBe('g-55b840e797');
    expect(
      sweep.cells.map((c) => (c.config.answerer.kind === 'llm' ? c.config.answerer : null)),
    ).toMatchObject([
      { adversarialReplyMapping: 'locomo' },
      { adversarialReplyMapping: 'lenient' },
    ]);
  });

  it('refuses a config that gives both names with different values, naming the old one', () => {
    const both = { ...llm, category5Mapping: 'lenient', adversarialReplyMapping: 'locomo' };
    const parsed = ExperimentConfigSchema.safeParse({ datasetPath: '/d.json', answerer: both });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain('category5Mapping');
    const same = { ...llm, category5Mapping: 'lenient', adversarialReplyMapping: 'lenient' };
    expect(
      configHash(ExperimentConfigSchema.parse({ datasetPath: '/d.json', answerer: same })),
    ).toBe(STORED_HASH);
  });

  it('a runs DB holding a run stored under the old name reads it, with its stored hash', () => {
    const file = join(dir, 'runs.db');
    const db = openRunsDb(file);
    insertOldSchemaRun(db, {
      ...fixtureManifest('r1'),
      config: STORED as never,
      configHash: STORED_HASH,
    });
    db.close();
    const store = RunStore.open(file);
    try {
      const { manifest } = store.getRun('r1');
      expect(manifest.config.answerer).toMatchObject({ adversarialReplyMapping: 'lenient' });
      expect(manifest.configHash).toBe(STORED_HASH);
      expect(configHash(manifest.config)).toBe(manifest.configHash);
    } finally {
      store.close();
    }
  });
});
