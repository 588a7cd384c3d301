import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../../src-shared/api';
import type { Sample } from '../../../src-shared/dataset';
import { CollectionDesignSchema, type CollectionDesign } from '../../../src-shared/designs';
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../../../tests/support/fake-openai-server';
import { loadDatasetFile } from '../dataset';
import { ApiKeySource } from '../keys';
import { DesignsService, MAX_PLAYGROUNDS, designFromPreset } from './index';

const MINI = fileURLToPath(new URL('../../../tests/fixtures/locomo/mini.json', import.meta.url));

let root: string;
let samples: Map<string, Sample>;
const events: ApiEvent[] = [];
let service: DesignsService;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mw-playground-'));
  samples = new Map((await loadDatasetFile(MINI)).samples.map((s) => [s.sampleId, s]));
  service = new DesignsService(
    root,
    (e) => events.push(e),
    async (_datasetId, sampleId) => samples.get(sampleId) as Sample,
  );
});
afterAll(() => {
  service.close();
  rmSync(root, { recursive: true, force: true });
});

/** Every index type over mini-1 (8 turns: D1:1-3, D2:1-2, D10:1-3 in conversation order). */
const everything: CollectionDesign = CollectionDesignSchema.parse({
  name: 'everything',
  indexes: [
    { name: 'text', type: 'text' },
    { name: 'vector', type: 'vector' },
    { name: 'recent', type: 'fifo', capacity: 3 },
    { name: 'latest', type: 'sorted', field: 'position', order: 'desc' },
    { name: 'links', type: 'graph', startFrom: 'text', neighboursFrom: 'vector', neighbours: 2 },
  ],
  fusion: { method: 'rrf', weights: { text: 2, recent: 0.5, latest: 0.5 } },
});

const progressOf = (id: string) =>
  events.filter(
    (e): e is Extract<ApiEvent, { type: 'playground-progress' }> =>
      e.type === 'playground-progress' && e.playgroundId === id,
  );

describe('playground', () => {
  it('builds a design over mini-1 with progress events and answers per index and fused', async () => {
    const { playgroundId, total } = await service.build('ds', 'mini-1', everything);
    expect(total).toBe(8);
    const result = await service.query(playgroundId, 'Where did Ann move?', 5);

    const progress = progressOf(playgroundId);
    expect(progress.at(-1)).toEqual({
      type: 'playground-progress',
      playgroundId,
      inserted: 8,
      total: 8,
      done: true,
    });
    expect(progress.filter((e) => e.done)).toHaveLength(1);

    expect(result.perIndex.map((p) => [p.index, p.type])).toEqual([
      ['text', 'text'],
      ['vector', 'vector'],
      ['recent', 'fifo'],
      ['latest', 'sorted'],
      ['links', 'graph'],
    ]);
    const ids = (index: string) =>
      result.perIndex.find((p) => p.index === index)?.hits.map((h) => h.diaId);
    // The fifo keeps the 3 newest turns, newest first; the sorted index orders all by position.
    expect(ids('recent')).toEqual(['D10:3', 'D10:2', 'D10:1']);
    expect(ids('latest')).toEqual(['D10:3', 'D10:2', 'D10:1', 'D2:2', 'D2:1']);
    // "Where did Ann move?" loses its question words ("where", "did"): "Ann move". Only D1:1
    // ("Ann: I moved to Paris.") has the stem "move", and it also names Ann, so BM25 ranks it
    // first; the graph walk starts from the text index's best hits, so D1:1 is a start node.
    expect(ids('text')?.[0]).toBe('D1:1');
    expect(ids('links')).toContain('D1:1');
    // Fused by rrf, agreement across lists beats one strong list: D10:3 ("Ann: Ten three.") is in
    // all five (first in the fifo and the sorted index, in the text top 5 through "Ann", a graph
    // start node, and in the vector list), while D1:1 is first in text only. That is what this
    // design asks for (recency lists at weight 0.5 each), and the playground makes it visible.
    const top = result.fused[0];
    expect(top).toMatchObject({ diaId: 'D10:3', speaker: 'Ann', rank: 1, speakerBoosted: true });
    expect(top?.contributions.map((c) => c.index).sort()).toEqual([
      'latest',
      'links',
      'recent',
      'text',
      'vector',
    ]);
    expect(result.fused.map((h) => h.diaId)).toContain('D1:1');
    expect(result.namedSpeakers).toEqual(['Ann']);
    expect(result.fused).toHaveLength(5);
    expect(result.ms).toBeGreaterThanOrEqual(0);
  });

  it('the hybrid prefill puts the turn that answers a curated query first', async () => {
    const { playgroundId } = await service.build('ds', 'mini-1', designFromPreset('hybrid'));
    const result = await service.query(playgroundId, 'Where did Ann move?', 3);
    expect(result.perIndex.map((p) => p.index)).toEqual(['text', 'vector']);
    // Only D1:1 ("Ann: I moved to Paris.") has the stem "move" (BM25 ~2.5 against ~0.6 for turns
    // that only share "Ann"); weighted fusion normalises text to 1 for it while the vector list
    // (weight 0.2) barely separates the turns, and Ann is named, so her turns get x1.4.
    const fused = result.fused.map((h) => h.diaId);
    expect(fused[0]).toBe('D1:1');
    expect(result.fused[0]?.text).toBe('Ann: I moved to Paris.');
    // D1:2 follows as D1:1's next turn (next-turn context 0.2 * s(D1:1)), though it matched little.
    expect(fused[1]).toBe('D1:2');
    expect(result.fused.every((h, i) => h.rank === i + 1)).toBe(true);
  });

  it("scores each list against a question's evidence in the engine, and only when asked", async () => {
    const { playgroundId } = await service.build('ds', 'mini-1', designFromPreset('hybrid'));
    const qa = (samples.get('mini-1') as Sample).qa;
    const question = qa.find((q) => q.question === 'When did Ann buy it?');
    expect(question?.evidence).toEqual(['D2:2', 'D1:3']);
    const index = question?.index as number;
    const result = await service.query(playgroundId, 'When did Ann buy it?', 3, index);
    expect(result.questionIndex).toBe(index);
    const expected = (hits: ReadonlyArray<{ diaId: string | null }>) => {
      const found = ['D2:2', 'D1:3'].filter((id) => hits.some((h) => h.diaId === id)).length;
      return { found, total: 2, recall: found / 2 };
    };
    expect(result.fusedRecall).toEqual(expected(result.fused));
    expect(result.perIndex).toHaveLength(2);
    for (const column of result.perIndex) expect(column.recall).toEqual(expected(column.hits));

    const unscored = await service.query(playgroundId, 'When did Ann buy it?', 3);
    expect(unscored.questionIndex).toBeNull();
    expect(unscored.fusedRecall).toBeNull();
    expect(unscored.perIndex.map((c) => c.recall)).toEqual([null, null]);

    const noEvidence = qa.find((q) => q.evidence.length === 0)?.index as number;
    for (const bad of [noEvidence, 999])
      await expect(service.query(playgroundId, 'cat', 3, bad)).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        path: ['questionIndex'],
      });
  });

  it(`keeps at most ${MAX_PLAYGROUNDS} playgrounds and disposes the oldest`, async () => {
    const design = designFromPreset('text');
    const first = await service.build('ds', 'mini-2', design);
    await service.query(first.playgroundId, 'fifth', 1);
    const dir = join(root, 'playground', first.playgroundId);
    expect(existsSync(dir)).toBe(true);
    for (let i = 0; i < MAX_PLAYGROUNDS; i++) await service.build('ds', 'mini-2', design);
    expect(existsSync(dir)).toBe(false);
    await expect(service.query(first.playgroundId, 'fifth', 1)).rejects.toThrow(/does not exist/);
    expect(service.dispose(first.playgroundId)).toBe(false);
  });

  it('reports a failed build as an event and from query', async () => {
    // A sample with a turn whose text holds NUL: the collection refuses it.
    const base = samples.get('mini-2') as Sample;
    const broken: Sample = {
      ...base,
      sampleId: 'broken',
      sessions: base.sessions.map((s) => ({
        ...s,
        turns: s.turns.map((t, i) => (i === 2 ? { ...t, text: 'bad\u0000text' } : t)),
      })),
    };
    samples.set('broken', broken);
    const { playgroundId } = await service.build('ds', 'broken', designFromPreset('text'));
    await expect(service.query(playgroundId, 'five', 1)).rejects.toThrow(/NUL/);
    const last = progressOf(playgroundId).at(-1);
    expect(last?.done).toBe(true);
    expect(last?.error?.code).toBe('INVALID_INPUT');
  });
});

describe('playground with an OpenAI-compatible embedder', () => {
  const KEY = 'sk-playground-embed-4417';
  let server: FakeOpenAIServer;
  let keyed: DesignsService;
  const keyedEvents: ApiEvent[] = [];
  beforeAll(async () => {
    server = await startFakeOpenAIServer({ apiKey: KEY, dim: 8 });
    keyed = new DesignsService(
      join(root, 'keyed'),
      (e) => keyedEvents.push(e),
      async (_datasetId, sampleId) => samples.get(sampleId) as Sample,
      new ApiKeySource({ env: { PLAYGROUND_EMBED_API_KEY: KEY } }),
    );
  });
  afterAll(async () => {
    keyed.close();
    await server.close();
  });
  const endpointDesign = (apiKeyEnv: string): CollectionDesign =>
    CollectionDesignSchema.parse({
      name: 'endpoint',
      indexes: [
        {
          name: 'vector',
          type: 'vector',
          embedder: { kind: 'openai', baseUrl: server.url, model: 'fake-embed', apiKeyEnv },
        },
      ],
    });

  it("embeds with the key the service's key source resolves for the design", async () => {
    const { playgroundId } = await keyed.build(
      'ds',
      'mini-1',
      endpointDesign('PLAYGROUND_EMBED_API_KEY'),
    );
    const result = await keyed.query(playgroundId, 'Where did Ann move?', 3);
    expect(result.fused.length).toBeGreaterThan(0);
    const embeddings = server.requests.filter((r) => r.path === '/v1/embeddings');
    expect(embeddings.length).toBeGreaterThan(0);
    expect(embeddings.every((r) => r.headers['authorization'] === `Bearer ${KEY}`)).toBe(true);
  });

  it('fails the build naming the design field when the key variable is not set', async () => {
    const { playgroundId } = await keyed.build('ds', 'mini-1', endpointDesign('UNSET_API_KEY'));
    await expect(keyed.query(playgroundId, 'x', 1)).rejects.toThrow(
      'design.indexes.0.embedder.apiKeyEnv: environment variable UNSET_API_KEY is not set',
    );
  });
});
