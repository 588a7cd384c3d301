import { describe, expect, it } from 'vitest';
import type { DatasetSummary } from '@shared/api';
import {
  defaultPreset,
  formatEta,
  parallelChoices,
  parseIntInRange,
  percent,
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
        { name: 'text', isDefault: false, llmStage: null },
        { name: 'hybrid', isDefault: true, llmStage: null },
      ]),
    ).toBe('hybrid');
    expect(defaultPreset([{ name: 'text', isDefault: false, llmStage: null }])).toBe('text');
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
