import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Sample } from '../../../../src-shared/dataset';
import { WorkbenchError } from '../../../../src-shared/errors';
import { LlmClient } from '../../answer/llm-client';
import { loadDatasetText } from '../../dataset/load';
import { packetsOf } from '../../dataset/packets';
import { createMemoryService, prepareMemoryPreset } from '../registry';
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../../../../tests/support/fake-openai-server';
import { fakeMem0Chat, isMem0Extraction } from '../../../../tests/support/fake-mem0-model';
import { tempDirs } from './fixtures';
import { MEM0_LIBRARY_VERSION } from './mem0';
import './index';

/**
 * The `mem0` preset runs the released mem0ai library in this thread (its telemetry switch set in
 * this test's environment, as the experiment worker's is), against the fake OpenAI-compatible
 * server: the library's own requests arrive, through the workbench's clients, and each speaker's
 * facts are stored and found under that speaker.
 */
const dirs = tempDirs('mem0');
const MINI = new URL('../../../../tests/fixtures/locomo/mini.json', import.meta.url);
const sample: Sample = loadDatasetText(readFileSync(MINI, 'utf8'), 'mini.json')
  .samples[0] as Sample;
const [speakerA, speakerB] = sample.speakers;
let server: FakeOpenAIServer;
let mem0Dir: string;

beforeAll(async () => {
  server = await startFakeOpenAIServer({ chat: fakeMem0Chat });
  mem0Dir = join(dirs.make(), 'mem0-home');
  vi.stubEnv('MEM0_TELEMETRY', 'false');
  vi.stubEnv('MEM0_DIR', mem0Dir);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await server.close();
  dirs.cleanup();
});

function memoryLlm(): LlmClient {
  return new LlmClient({
    baseUrl: server.url,
    model: 'fake-memory',
    temperature: 0,
    maxTokens: 512,
    timeoutMs: 5_000,
    maxRetries: 0,
    concurrency: 2,
    baseDelayMs: 1,
  });
}

const embedder = (): { kind: 'openai'; baseUrl: string; model: string } => ({
  kind: 'openai',
  baseUrl: server.url,
  model: 'fake-embed',
});

describe('mem0 preset (mem0ai/oss)', () => {
  it('records the pinned library and its bundle in the manifest, before any run', async () => {
    const record = await prepareMemoryPreset('mem0', {}, { mayStartProcesses: false });
    expect(record?.where).toContain(`mem0ai@${MEM0_LIBRARY_VERSION}`);
    expect(record?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(record?.hello).toMatchObject({ library: 'mem0ai/oss', version: MEM0_LIBRARY_VERSION });
  });

  it('refuses to open without a memory LLM, saying what to give', async () => {
    const error = await createMemoryService('mem0', {}, { sample, dir: dirs.make() }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkbenchError);
    expect((error as WorkbenchError).message).toContain('--memory-base-url and --memory-model');
  });

  it("sends the library's own requests through the workbench clients and keeps each speaker's facts apart", async () => {
    server.requests.length = 0;
    const llm = memoryLlm();
    const memory = await createMemoryService(
      'mem0',
      { embedder: embedder() },
      { sample, dir: dirs.make(), llm, seed: 7 },
    );
    try {
      const packets = packetsOf(sample);
      for (const packet of packets) await memory.insert(packet);

      const chats = server.requests.filter((r) => r.path === '/v1/chat/completions');
      const extractions = chats.filter((r) => isMem0Extraction(r.body));
      // One add per speaker per packet, each one extraction call, all of them through our client.
      expect(extractions).toHaveLength(packets.length * 2);
      expect(llm.stats.calls).toBe(chats.length);
      for (const r of extractions) {
        const body = r.body as {
          model: string;
          seed: number;
          response_format: unknown;
          messages: Array<{ role: string; content: string }>;
        };
        expect(body.model).toBe('fake-memory');
        expect(body.seed).toBe(7);
        expect(body.response_format).toEqual({ type: 'json_object' });
        expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
        expect((body.messages[0]?.content.length ?? 0) > 1000).toBe(true);
      }
      // add.py's feed: the speaker's own turn as `user`, the other's as `assistant`, named.
      const first = packets[0]?.dialogs[0];
      expect(first?.speaker).toBe(speakerA);
      const wanted = `user: ${speakerA}: ${first?.rawText}`;
      const asked = extractions.map(
        (r) => (r.body as { messages: Array<{ content: string }> }).messages[1]?.content ?? '',
      );
      expect(asked.some((c) => c.includes(wanted))).toBe(true);
      expect(asked.some((c) => c.includes(`assistant: ${speakerA}: ${first?.rawText}`))).toBe(true);
      // The library's embeddings went through the workbench embedder too.
      expect(server.requests.some((r) => r.path === '/v1/embeddings')).toBe(true);
      expect(memory.stats()['mem0.refusedRequests']).toBe(0);

      // The fake embeddings carry no meaning: the query is the fact's own text, so its vector
      // is the fact's and the fact must come first in A's list.
      const factText = `${speakerA}: ${first?.rawText}`;
      const hits = await memory.retrieve(factText, 30);
      expect(hits.length).toBeGreaterThan(0);
      // Every fact is the owner's own words: A's list holds only A's turns, B's only B's.
      for (const hit of hits) expect(hit.text.startsWith(`${hit.speaker}: `)).toBe(true);
      expect(hits.some((h) => h.speaker === speakerA)).toBe(true);
      expect(hits.some((h) => h.speaker === speakerB)).toBe(true);
      const fact = hits.find((h) => h.speaker === speakerA);
      expect(fact?.text).toBe(factText);
      expect(fact?.sessionDateTime).toBe(sample.sessions[0]?.dateTime);
      // Searching sends no LLM request: retrieval does not change what Mem0 remembers.
      expect(server.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(
        chats.length,
      );
      expect(memory.notes().join('\n')).toMatch(/system prompts sent, sha256: [0-9a-f]{64}/);
    } finally {
      await memory.close();
    }
    // The library never looked for (or wrote) its user id file.
    expect(existsSync(mem0Dir)).toBe(false);
  }, 60_000);
});
