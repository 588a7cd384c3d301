import { describe, expect, it } from 'vitest';
import { MAX_MANIFEST_WARNINGS, type LlmCallRecord } from '../../../src-shared/runs';
import { ExperimentConfigSchema } from '../../../src-shared/experiment';
import type { RunManifest } from '../runs/manifest';
import { emptyTally, manifestWithTally, reduceTally, type TallyAction } from './runTally';
import type { SampleOutcome } from './runSample';

function outcome(over: Partial<SampleOutcome>): SampleOutcome {
  return {
    sampleId: 's1',
    status: 'completed',
    preset: 'hybrid',
    notes: [],
    embedder: null,
    stats: {},
    testsCommitted: 1,
    testsSkipped: 0,
    insertErrors: 0,
    insertErrorMessages: [],
    answerErrors: 0,
    ...over,
  };
}

const fold = (actions: TallyAction[]) => actions.reduce(reduceTally, emptyTally());

describe('reduceTally', () => {
  it('adds up sample outcomes: notes once each, the first embedder', () => {
    const tally = fold([
      {
        type: 'sample-finished',
        outcome: outcome({
          notes: ['a', 'b'],
          embedder: 'wink',
          stats: { 'embed.requests': 2, 'answer.cacheHits': 1 },
        }),
      },
      {
        type: 'sample-finished',
        outcome: outcome({ notes: ['b', 'c'], embedder: 'other', stats: { 'embed.requests': 3 } }),
      },
    ]);
    expect(tally.notes).toEqual(['a', 'b', 'c']);
    expect(tally.embedder).toBe('wink');
  });

  it('keeps warnings within the cap and counts the rest', () => {
    const warnings = Array.from({ length: MAX_MANIFEST_WARNINGS + 3 }, (_, i) => ({
      type: 'warning' as const,
      sampleId: 's1',
      message: `w${i}`,
    }));
    const tally = fold(warnings);
    expect(tally.warnings).toHaveLength(MAX_MANIFEST_WARNINGS);
    expect(tally.warnings[0]).toBe('s1: w0');
    expect(tally.warningsDropped).toBe(3);
  });

  it('on a stop, warns about answer errors seen but never committed, naming the last', () => {
    const tally = fold([
      { type: 'answered', error: true, errorMessage: 'HTTP 500' },
      { type: 'answered', error: false },
      { type: 'answered', error: true, errorMessage: 'HTTP 503' },
      { type: 'stopped', committedAnswerErrors: 1 },
    ]);
    expect(tally.warnings).toEqual([
      '1 answer error(s) in tests dropped uncommitted by the stop; last: HTTP 503',
    ]);
    expect(fold([{ type: 'stopped', committedAnswerErrors: 0 }]).warnings).toEqual([]);
  });

  it('records failed samples by id', () => {
    expect(fold([{ type: 'sample-failed', sampleId: 's2', message: 'boom' }]).failures).toEqual([
      's2: boom',
    ]);
  });
});

const filed = (
  role: LlmCallRecord['role'],
  model: string,
  counts: Partial<LlmCallRecord>,
): LlmCallRecord => ({
  role,
  model,
  calls: 0,
  failures: 0,
  promptTokens: 0,
  completionTokens: 0,
  ...counts,
});

describe('manifestWithTally', () => {
  it("adds this launch's notes and takes embedding and cache counters from the ledger, every launch's", () => {
    const config = ExperimentConfigSchema.parse({
      datasetPath: '/data/x.json',
      answerer: { kind: 'llm', baseUrl: 'http://127.0.0.1:1/v1', model: 'm' },
    });
    // The stored manifest is an earlier launch's; the ledger holds that launch's counts too.
    const before = {
      config,
      memory: { preset: 'hybrid', notes: ['old'] },
      embedder: null,
      embedding: { embedders: [], requests: 10, cacheHits: 1, cacheMisses: 2 },
      answerCache: { mode: 'on', hits: 4, misses: 1 },
    } as unknown as RunManifest;
    const tally = fold([
      {
        type: 'sample-finished',
        outcome: outcome({ notes: ['old', 'new'], embedder: 'wink' }),
      },
    ]);
    const ledger = [
      filed('embedder', 'e', { calls: 15, cacheHits: 1, cacheMisses: 2 }),
      filed('answer', 'm', { calls: 4, cacheHits: 6, cacheMisses: 4 }),
    ];
    const after = manifestWithTally(before, tally, config, undefined, 'on', ledger);
    expect(after.memory.notes).toEqual(['old', 'new']);
    expect(after.embedder).toBe('wink');
    expect(after.embedding).toMatchObject({ requests: 15, cacheHits: 1, cacheMisses: 2 });
    expect(after.answerCache).toEqual({ mode: 'on', hits: 6, misses: 4 });
    expect(manifestWithTally(before, tally, config, undefined, 'off', ledger).answerCache).toEqual(
      before.answerCache,
    );
  });

  it("counts the memory LLM's cache hits beside its sent calls from the ledger", () => {
    const config = ExperimentConfigSchema.parse({
      datasetPath: '/data/x.json',
      memory: { preset: 'hybrid', llm: { baseUrl: 'http://127.0.0.1:1/v1', model: 'mem' } },
    });
    const before = {
      config,
      memory: { preset: 'hybrid', notes: [] },
      embedder: null,
      memoryCache: { hits: 78, misses: 0 },
    } as unknown as RunManifest;
    const ledger = [filed('memory', 'mem', { calls: 324, cacheHits: 80, cacheMisses: 324 })];
    expect(
      manifestWithTally(before, emptyTally(), config, undefined, 'on', ledger).memoryCache,
    ).toEqual({
      hits: 80,
      misses: 324,
    });
    expect(
      manifestWithTally(before, emptyTally(), config, undefined, 'off', ledger).memoryCache,
    ).toEqual(before.memoryCache);
  });

  it("records the request shapes filed in the ledger as the manifest's requestParams", () => {
    const config = ExperimentConfigSchema.parse({ datasetPath: '/data/x.json' });
    const killed = {
      config,
      memory: { preset: 'hybrid', notes: [] },
      embedder: null,
    } as unknown as RunManifest;
    const shapes = [{ role: 'answer' as const, step: 'answer', params: { max_tokens: 800 } }];
    expect(
      manifestWithTally(killed, emptyTally(), config, undefined, undefined, [], shapes)
        .requestParams,
    ).toEqual(shapes);
    expect(
      manifestWithTally(killed, emptyTally(), config, undefined, undefined).requestParams,
    ).toBeUndefined();
  });
});
