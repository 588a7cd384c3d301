import { describe, expect, it } from 'vitest';
import { MAX_MANIFEST_WARNINGS } from '../../../src-shared/runs';
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
  it('adds up sample outcomes: notes once each, the first embedder, embed and cache counters', () => {
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
    expect(tally.embedCounts).toMatchObject({ requests: 5, cacheHits: 0, cacheMisses: 0 });
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

describe('manifestWithTally', () => {
  it("adds this launch's notes, embedding counts and cache hits to an earlier launch's", () => {
    const config = ExperimentConfigSchema.parse({
      datasetPath: '/data/x.json',
      answerer: { kind: 'llm', baseUrl: 'http://127.0.0.1:1/v1', model: 'm' },
    });
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
        outcome: outcome({
          notes: ['old', 'new'],
          embedder: 'wink',
          stats: { 'embed.requests': 5, 'answer.cacheHits': 2, 'answer.cacheMisses': 3 },
        }),
      },
    ]);
    const after = manifestWithTally(before, tally, config, undefined, 'on');
    expect(after.memory.notes).toEqual(['old', 'new']);
    expect(after.embedder).toBe('wink');
    expect(after.embedding).toMatchObject({ requests: 15, cacheHits: 1, cacheMisses: 2 });
    expect(after.answerCache).toEqual({ mode: 'on', hits: 6, misses: 4 });
    expect(manifestWithTally(before, tally, config, undefined, 'off').answerCache).toEqual(
      before.answerCache,
    );
  });

  it("adds the memory LLM's cache hits beside its sent calls, over launches", () => {
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
    const tally = fold([
      {
        type: 'sample-finished',
        outcome: outcome({ stats: { 'memory.cacheHits': 2, 'memory.cacheMisses': 324 } }),
      },
    ]);
    expect(manifestWithTally(before, tally, config, undefined, 'on').memoryCache).toEqual({
      hits: 80,
      misses: 324,
    });
    expect(manifestWithTally(before, tally, config, undefined, 'off').memoryCache).toEqual(
      before.memoryCache,
    );
  });

  it("counts embedding requests from the ledger, a killed launch's included, not from this launch's tally", () => {
    const config = ExperimentConfigSchema.parse({ datasetPath: '/data/x.json' });
    // A launch killed with -9 never folded its tally in: the stored manifest has none of it.
    const killed = {
      config,
      memory: { preset: 'hybrid', notes: [] },
      embedder: null,
    } as unknown as RunManifest;
    const resumed = fold([
      { type: 'sample-finished', outcome: outcome({ stats: { 'embed.requests': 324 } }) },
    ]);
    const after = manifestWithTally(killed, resumed, config, undefined, undefined, 613);
    expect(after.embedding?.requests).toBe(613);
  });
});
