import { describe, expect, it } from 'vitest';
import { JUDGE_PROTOCOLS } from '../../../src-shared/experiment';
import { judgeConfigAsSent, judgeProtocolOf } from './judge-protocols';

/**
 * The judge protocol registry's contract: every name the config schema accepts resolves to a
 * complete protocol. Each protocol's prompts and parsing are pinned byte for byte in the golden
 * tests; this one walks them all, so a new protocol needs no edit here.
 */
describe('judge protocol registry', () => {
  const item = { question: 'Where did Caroline go?', gold: 'Sweden', answer: 'To Sweden' };

  it.each(JUDGE_PROTOCOLS)('%s resolves to a complete protocol', (name) => {
    const protocol = judgeProtocolOf(name);
    expect(protocol.name).toBe(name);
    // The record keys the judge cache and is stored in the manifest: a style and a real hash.
    expect(protocol.record.style).not.toBe('');
    expect(protocol.record.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(protocol.record.templates).length).toBeGreaterThan(0);
    expect(typeof protocol.jsonMode).toBe('boolean');
    expect(typeof protocol.unparseableIsWrong).toBe('boolean');
    if (protocol.maxTokens !== undefined) expect(protocol.maxTokens).toBeGreaterThan(0);
    if (protocol.rubric !== undefined) {
      // A rubric judge (BEAM) scores rubric items, never a question against a gold.
      expect(protocol.rubric).toBe(name);
      expect(() => protocol.messages(item)).toThrow(/rubric/);
    } else {
      // Every prompt carries the item it judges.
      const sent = protocol
        .messages({ ...item, task: 'single-session-user', abstention: false })
        .map((m) => m.content)
        .join('\n');
      for (const text of Object.values(item)) expect(sent).toContain(text);
    }
    expect(judgeConfigAsSent({ protocol: name, maxTokens: 64 }).maxTokens).toBe(
      protocol.maxTokens ?? 64,
    );
  });

  it('gives each protocol a prompt of its own (the hash keys the judge cache)', () => {
    const hashes = JUDGE_PROTOCOLS.map((name) => judgeProtocolOf(name).record.sha256);
    expect(new Set(hashes).size).toBe(hashes.length);
  });
});
