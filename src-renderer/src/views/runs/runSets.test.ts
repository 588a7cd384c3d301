import { describe, expect, it } from 'vitest';
import { runName, runTitle } from '@shared/runs';
import { groupBySampleSet, runHaystack, runMarks } from './runSets';

const TEN = Array.from({ length: 10 }, (_, i) => `conv-${i + 1}`);

function run(
  id: string,
  f1: number,
  over: Partial<{
    status: 'completed' | 'cancelled' | 'degraded';
    sampleIds: string[];
    questions: number;
    answered: number;
    datasetPath: string;
  }> = {},
) {
  const questions = over.questions ?? 1986;
  return {
    id,
    f1,
    name: '',
    status: over.status ?? 'completed',
    datasetPath: over.datasetPath ?? '/data/locomo10.json',
    datasetSha256: over.datasetPath === undefined ? 'sha-locomo' : null,
    sampleIds: over.sampleIds ?? TEN,
    questions,
    summary: { questions: over.answered ?? questions },
  };
}

describe('the run list at sweep scale', () => {
  // The case: a one-sample run (0.372) and a cancelled one (0.33) outscore full runs.
  const runs = [
    run('full-a', 0.24),
    run('one', 0.372, { sampleIds: ['conv-26'], questions: 199 }),
    run('cancelled', 0.33, { status: 'cancelled', answered: 400 }),
    run('full-b', 0.23),
  ];
  const marks = runMarks(runs);

  it('marks a partial run and a run on fewer samples, and leaves full runs unmarked', () => {
    expect(marks.get('full-a')?.badge).toBeNull();
    expect(marks.get('full-b')?.badge).toBeNull();
    expect(marks.get('one')).toMatchObject({
      badge: '1 sample',
      subset: true,
      partial: false,
      setLabel: '1 sample: conv-26',
    });
    expect(marks.get('cancelled')).toMatchObject({ badge: 'partial', partial: true });
    expect(marks.get('cancelled')?.reason).toBe('cancelled: 400 of 1986 questions answered');
    expect(marks.get('full-a')?.setLabel).toBe('10 samples');
  });

  it('says how many samples the widest run of the dataset has, the dataset known by its sha256', () => {
    expect(marks.get('one')?.reason).toBe(
      '1 sample: conv-26, of 10 in the widest run of its dataset',
    );
  });

  it('a finished run that answered fewer questions than planned is partial too', () => {
    const short = runMarks([run('short', 0.3, { answered: 1900 })]);
    expect(short.get('short')?.partial).toBe(true);
  });

  it('an uploaded copy is the same dataset as the file: the sha256 decides, not the path', () => {
    const copy = { ...run('copy', 0.4, { sampleIds: ['conv-26'] }), datasetPath: '/up/ab12.json' };
    expect(runMarks([run('file', 0.2), copy]).get('copy')?.subset).toBe(true);
  });

  it('the widest set is per dataset: a LongMemEval run is not a subset of LoCoMo', () => {
    const other = runMarks([
      run('locomo', 0.2),
      run('lme', 0.5, { sampleIds: ['q1'], datasetPath: '/data/lme.json' }),
    ]);
    expect(other.get('lme')?.subset).toBe(false);
  });

  it('grouping by sample set puts full runs of the widest set first, the sort kept within', () => {
    // Sorted by F1, descending, as the table would.
    const byF1 = [...runs].sort((a, b) => b.f1 - a.f1);
    expect(byF1.map((r) => r.id)).toEqual(['one', 'cancelled', 'full-a', 'full-b']);
    const grouped = groupBySampleSet(byF1, marks, (r) => r.sampleIds.length);
    expect(grouped.map((r) => r.id)).toEqual(['full-a', 'full-b', 'cancelled', 'one']);
  });
});

describe('sweep cells are named from their sweep and grid point', () => {
  const cell = {
    id: 'r1',
    name: '',
    preset: 'hybrid',
    tags: [],
    answerer: null,
    sampleIds: ['conv-26'],
    sweep: {
      sweepId: 'sw-1',
      name: 'grid',
      cellKey: 'memory.preset=hybrid,retrieval.topK=10 #1',
      cellIndex: 3,
      values: { 'memory.preset': 'hybrid', 'retrieval.topK': 10 },
      repeat: 1,
    },
  };

  it('derives the name, and a name the user gave wins', () => {
    expect(runName(cell)).toBe('grid · memory.preset=hybrid,retrieval.topK=10 #1');
    expect(runTitle(cell)).toBe('grid · memory.preset=hybrid,retrieval.topK=10 #1');
    expect(runName({ ...cell, name: 'best cell' })).toBe('best cell');
    expect(runTitle({ ...cell, sweep: undefined })).toBe('hybrid · r1');
  });

  it('is found by sweep id, sweep name, grid point and sample', () => {
    const text = runHaystack(cell);
    for (const word of ['sw-1', 'grid', 'retrieval.topK=10', 'conv-26']) {
      expect(text).toContain(word);
    }
  });
});
