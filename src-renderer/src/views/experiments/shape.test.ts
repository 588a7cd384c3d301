import { describe, expect, it } from 'vitest';
import type { ApiInput, DatasetSummary } from '@shared/api';
import { MAX_CONCURRENCY } from '@shared/experiment/config';
import { MAX_TIMEOUT_MS } from '@shared/experiment/llm';
import {
  estimateLine,
  defaultPreset,
  formatEta,
  invalidSampleCount,
  memoryFor,
  withEmbedder,
  memoryOptions,
  parallelChoices,
  parseIntInRange,
  percent,
  RUN_FORM_BOUNDS,
  runFormFieldOf,
  runFormIssues,
  samplesToRun,
} from './shape';

describe('formatEta', () => {
  it('formats as mm:ss and rounds to the second', () => {
    expect(formatEta(0)).toBe('00:00');
    expect(formatEta(1_499)).toBe('00:01');
    expect(formatEta(65_000)).toBe('01:05');
    expect(formatEta(59 * 60_000 + 59_000)).toBe('59:59');
  });
  it('adds hours from an hour on', () => {
    expect(formatEta(3_600_000 + 61_000)).toBe('1:01:01');
  });
  it('shows a dash when there is no estimate', () => {
    expect(formatEta(null)).toBe('—');
    expect(formatEta(Number.NaN)).toBe('—');
    expect(formatEta(-5)).toBe('—');
  });
});

describe('run form choices', () => {
  it('picks the preset the engine marks as default, else the first', () => {
    expect(
      defaultPreset([
        { name: 'text', isDefault: false, llmStage: null, embedder: false },
        { name: 'hybrid', isDefault: true, llmStage: null, embedder: true },
      ]),
    ).toBe('hybrid');
    expect(
      defaultPreset([{ name: 'text', isDefault: false, llmStage: null, embedder: false }]),
    ).toBe('text');
    expect(defaultPreset([])).toBeNull();
  });

  it('offers 1..min(cores, samples) workers', () => {
    expect(parallelChoices(8, 3)).toEqual([1, 2, 3]);
    expect(parallelChoices(2, 10)).toEqual([1, 2]);
    expect(parallelChoices(undefined, 10)).toEqual([1]);
  });

  it('sends no sample list when every sample is chosen', () => {
    const dataset = {
      stats: { samples: [{ sampleId: 'a' }, { sampleId: 'b' }] },
    } as unknown as DatasetSummary;
    expect(samplesToRun(dataset, new Set(['a', 'b']))).toBeUndefined();
    // Kept in the dataset's order, whatever order they were ticked in.
    expect(samplesToRun(dataset, new Set(['b']))).toEqual(['b']);
    expect(samplesToRun(dataset, new Set())).toEqual([]);
  });

  it('parses integers in range only', () => {
    expect(parseIntInRange('10', 1, 1000)).toBe(10);
    expect(parseIntInRange(' 7 ', 1, 10)).toBe(7);
    expect(parseIntInRange('0', 1, 10)).toBeNull();
    expect(parseIntInRange('1.5', 1, 10)).toBeNull();
    expect(parseIntInRange('', 1, 10)).toBeNull();
  });

  it('clamps percentages', () => {
    expect(percent(0.456)).toBe(46);
    expect(percent(2)).toBe(100);
  });
});

describe('memory choices', () => {
  const presets = [
    { name: 'hybrid', isDefault: true, llmStage: null, embedder: true },
    { name: 'tiers', isDefault: false, llmStage: 'summaries', embedder: false },
    { name: 'designed', isDefault: false, llmStage: null, embedder: false },
    { name: 'mem0', isDefault: false, llmStage: 'extraction', requiresLlm: true, embedder: true },
  ];
  const design = {
    name: 'my design',
    indexes: [
      { name: 'text', type: 'text' as const, k1: 1.2, b: 0.75, stem: true, stopWords: true },
    ],
    fusion: { method: 'rrf' as const, weights: {}, rrfK: 60 },
    retrieval: {
      candidates: 50,
      previousTurnScore: 0.5,
      nextTurnScore: 0.2,
      speakerBoost: 0.4,
      dropQuestionWords: true,
    },
  };
  const designs = [{ design, savedAt: '2026-11-23T00:00:00.000Z' }];

  it('lists the presets but `designed`, then each saved design', () => {
    expect(memoryOptions(presets, designs)).toEqual([
      {
        value: 'hybrid',
        label: 'hybrid (default)',
        llmStage: null,
        requiresLlm: false,
        embedder: true,
      },
      {
        value: 'tiers',
        label: 'tiers',
        llmStage: 'summaries',
        requiresLlm: false,
        embedder: false,
      },
      // A preset that cannot run without a memory LLM says so, and the form asks for one.
      { value: 'mem0', label: 'mem0', llmStage: 'extraction', requiresLlm: true, embedder: true },
      {
        value: 'design:my design',
        label: 'design: my design',
        llmStage: null,
        requiresLlm: false,
        embedder: false,
      },
    ]);
  });

  it('runs a saved design as the designed preset with the design as its config', () => {
    expect(memoryFor('design:my design', presets, designs)).toEqual({
      preset: 'designed',
      config: design,
    });
    expect(memoryFor('tiers', presets, designs)).toEqual({ preset: 'tiers', config: {} });
    // `designed` alone has no design to run; a deleted design or preset is no choice.
    expect(memoryFor('designed', presets, designs)).toBeNull();
    expect(memoryFor('design:gone', presets, designs)).toBeNull();
    expect(memoryFor('vector', presets, designs)).toBeNull();
  });

  it('puts a chosen OpenAI-compatible embedder into the preset config, and leaves wink to the default', () => {
    const hybrid = { preset: 'hybrid', config: { candidates: 40 } };
    const endpoint = {
      kind: 'openai' as const,
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'nomic-embed-text',
      apiKeyEnv: 'OLLAMA_API_KEY',
    };
    expect(withEmbedder(hybrid, endpoint)).toEqual({
      preset: 'hybrid',
      config: { candidates: 40, embedder: endpoint },
    });
    expect(withEmbedder(hybrid, 'wink-sif-100d')).toBe(hybrid);
    expect(withEmbedder(hybrid, null)).toBe(hybrid);
  });
});

describe('runFormFieldOf', () => {
  it('places an engine error beside the field its path starts with', () => {
    expect(runFormFieldOf({ path: ['memory', 'config', 'topK'] })).toBe('memory');
    expect(runFormFieldOf({ path: ['samples', 0] })).toBe('samples');
    expect(runFormFieldOf({ path: ['retrieval', 'topK'] })).toBe('retrieval');
    // No field of the form: shown below it.
    expect(runFormFieldOf({ path: ['datasetId'] })).toBeNull();
    expect(runFormFieldOf({})).toBeNull();
    expect(runFormFieldOf(null)).toBeNull();
  });
});

describe('RUN_FORM_BOUNDS', () => {
  it('offers the bounds the config schema enforces, not a copy of them', () => {
    expect(RUN_FORM_BOUNDS.topK).toEqual({ min: 1, max: 1000, int: true });
    expect(RUN_FORM_BOUNDS.judgeRepeats).toEqual({ min: 1, max: 20, int: true });
    expect(RUN_FORM_BOUNDS.concurrency.max).toBe(MAX_CONCURRENCY);
    // Seconds in the form, milliseconds in the schema: whole seconds inside its bounds.
    expect(RUN_FORM_BOUNDS.timeoutSeconds).toEqual({
      min: 1,
      max: Math.floor(MAX_TIMEOUT_MS / 1000),
      int: true,
    });
  });
});

describe('runFormIssues', () => {
  const run: ApiInput<'experiments.start'> = {
    datasetId: 'a'.repeat(64),
    memory: { preset: 'hybrid' },
    answerer: { kind: 'extractive' },
    retrieval: { topK: 10 },
  };
  const endpoint = { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' };

  it('is empty for a run the engine takes', () => {
    expect(runFormIssues(run)).toEqual({});
  });

  it("puts the schema's message beside the field its path names", () => {
    // A saved endpoint at temperature 0.7 as the mem0 judge: the schema's refinement, not a
    // rule the form restates.
    expect(
      runFormIssues({ ...run, judge: { ...endpoint, temperature: 0.7, protocol: 'mem0' } }),
    ).toEqual({
      judge: ['judge.temperature: the mem0 judge protocol is defined at temperature 0'],
    });
    const tooMany = runFormIssues({ ...run, retrieval: { topK: 1001 } });
    expect(Object.keys(tooMany)).toEqual(['retrieval']);
    expect(tooMany.retrieval?.[0]).toMatch(/^retrieval\.topK: .*1000/);
    // A path the form has no field for is the form's.
    expect(Object.keys(runFormIssues({ ...run, datasetId: 'x' }))).toEqual(['form']);
  });
});

describe('invalidSampleCount', () => {
  const problem = (severity: 'error' | 'warning', sampleIndex: number | null) => ({
    severity,
    code: 'DATASET_INVALID' as const,
    message: 'm',
    path: [],
    sampleIndex,
    sampleId: null,
  });
  it('counts samples with errors once each, not warnings or file-level problems', () => {
    expect(
      invalidSampleCount({
        problems: [
          problem('error', 1),
          problem('error', 1),
          problem('warning', 0),
          problem('error', 3),
        ],
      }),
    ).toBe(2);
  });
});

describe('estimateLine', () => {
  const planned = {
    samples: 1,
    tests: 4,
    questions: 16,
    answerCalls: 16,
    judgeCalls: 24,
    promptTokens: 12_000,
    completionTokens: 3_400,
    cost: 0.0397,
  };
  it('says how many calls of each kind, the tokens and the cost', () => {
    expect(estimateLine(planned)).toBe(
      '≈ 40 LLM calls (16 answer + 24 judge), ~15,400 tokens, $0.04',
    );
    // Fractions of a cent keep their first digits.
    expect(estimateLine({ ...planned, cost: 0.00123 })).toMatch(/, \$0\.0012$/);
  });
  it('asks for prices when the cost is unknown, and says an extractive run calls no LLM', () => {
    expect(estimateLine({ ...planned, cost: null })).toMatch(
      /tokens, cost unknown: set prices in Models$/,
    );
    expect(estimateLine({ ...planned, answerCalls: 0, judgeCalls: 0 })).toBe(
      'no LLM calls (16 answers, extractive)',
    );
  });
});
