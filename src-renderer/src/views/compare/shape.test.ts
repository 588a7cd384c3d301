import { describe, expect, it } from 'vitest';
import { finalAnswer, fullLocomoAnswerPair } from '../../../../tests/support/compare-fixture';
import { LONGMEMEVAL_PROFILE, LOCOMO_PROFILE } from '@shared/benchmarks';
import { compareRuns, type RunComparison } from '@shared/compare';
import {
  buildQuestionRows,
  categoryCounts,
  categoryTableRows,
  compareChartRows,
  COST_HEADERS,
  withCompareIntervals,
  compareIntervalSteps,
  applyComparePatch,
  compareParamsToRecord,
  compareRequest,
  filterQuestionRows,
  flipChipCounts,
  formatDelta,
  formatScore,
  isComparableStatus,
  isErrorCell,
  isFinishedStatus,
  parseCompareParams,
  sampleCounts,
  pickerRuns,
  shortRunLabel,
  significance,
  onlyFlip,
  toggleFlip,
  toggleRun,
} from './shape';

const answer = finalAnswer;

/**
 * A: baseline. B improves q0, regresses q1, keeps q2, lacks q3 (missing), errors on q4.
 * C (third run) regresses q0 only. q5 exists only in B: missing from the baseline.
 */
function threeRuns(): RunComparison {
  const a = [
    answer('s1', 0, 1, 0.2),
    answer('s1', 1, 2, 1),
    answer('s1', 2, 2, 0.5),
    answer('s1', 3, 4, 1),
    answer('s2', 4, 5, 1),
  ];
  const b = [
    answer('s1', 0, 1, 0.9, { prediction: 'Paris in May' }),
    answer('s1', 1, 2, 0),
    answer('s1', 2, 2, 0.5),
    answer('s2', 4, 5, 0, { prediction: '[ERROR]', error: 'timeout after 30000 ms' }),
    answer('s2', 5, 3, 1),
  ];
  const c = a.map((x) =>
    x.questionIndex === 0 ? { ...x, scores: { ...x.scores, officialF1: 0 } } : x,
  );
  return compareRuns(
    [
      { runId: 'ra', label: 'text · ra', answers: a },
      { runId: 'rb', label: 'hybrid · rb', answers: b },
      { runId: 'rc', label: 'vector · rc', answers: c },
    ],
    { seed: 0, resamples: 200 },
  );
}

describe('URL state', () => {
  it('round-trips every field and leaves defaults out of the URL', () => {
    const params = parseCompareParams(
      new URLSearchParams(
        'runs=r1,r2,r1&base=r2&metric=evidenceRecall&scheme=mem0&flips=regressed,improved&cat=3&sample=conv-26&q=paris&open=conv-1:4&sort=delta-1.desc',
      ),
    );
    // Duplicates dropped; flips in canonical order so one filter has one URL.
    expect(params).toEqual({
      runs: ['r1', 'r2'],
      baseline: 'r2',
      metric: 'evidenceRecall',
      scheme: 'mem0',
      flips: ['improved', 'regressed'],
      category: 3,
      sample: 'conv-26',
      search: 'paris',
      open: 'conv-1:4',
      sort: 'delta-1.desc',
    });
    expect(parseCompareParams(new URLSearchParams(compareParamsToRecord(params)))).toEqual(params);
    expect(
      compareParamsToRecord(parseCompareParams(new URLSearchParams('metric=officialF1'))),
    ).toEqual({});
  });

  it('falls back to defaults on values it does not know', () => {
    const params = parseCompareParams(
      new URLSearchParams('metric=bleu&scheme=nope&flips=lost,missing&cat=99'),
    );
    expect(params.metric).toBe('officialF1');
    expect(params.scheme).toBe('official');
    expect(params.flips).toEqual(['missing']);
    expect(params.category).toBeNull();
    // An empty sample is every sample, and it is left out of the URL again.
    const empty = parseCompareParams(new URLSearchParams('sample='));
    expect(empty.sample).toBeNull();
    expect(compareParamsToRecord(empty)).toEqual({});
  });
});

describe('changing the pair', () => {
  const filtered = parseCompareParams(
    new URLSearchParams(
      'runs=r1,r2&base=r1&flips=regressed&cat=2&sample=s1&q=paris&open=s1:3&scheme=mem0',
    ),
  );

  it('resets the question filters and the open question when the runs or the baseline change', () => {
    const cleared = { flips: [], category: null, sample: null, search: '', open: null };
    expect(applyComparePatch(filtered, { runs: ['r1', 'r3'] })).toMatchObject({
      runs: ['r1', 'r3'],
      ...cleared,
    });
    expect(applyComparePatch(filtered, { baseline: 'r2' })).toMatchObject({
      baseline: 'r2',
      ...cleared,
    });
    // Same runs in another order: the letters change, so the filters go too.
    expect(applyComparePatch(filtered, { runs: ['r2', 'r1'] })).toMatchObject(cleared);
    // View settings are not tied to the pair and stay.
    expect(applyComparePatch(filtered, { runs: ['r1', 'r3'] }).scheme).toBe('mem0');
  });

  it('keeps them for any other change', () => {
    expect(applyComparePatch(filtered, { metric: 'setF1' })).toEqual({
      ...filtered,
      metric: 'setF1',
    });
    expect(applyComparePatch(filtered, { runs: ['r1', 'r2'], baseline: 'r1' })).toEqual(filtered);
  });
});

describe('the run picker', () => {
  const run = (id: string, name: string, tags: string[], preset = 'hybrid') => ({
    id,
    name,
    tags,
    preset,
    answerer: 'extractive-v1',
  });
  const runs = [
    run('r3', 'window 13', ['stm', 'ablation'], 'stm'),
    run('r2', 'hybrid top-k 5', ['baseline']),
    run('r1', '', []),
  ];
  const ids = (list: ReadonlyArray<{ id: string }>) => list.map((r) => r.id);

  it('finds runs by every word of the search in name, tags, preset or id', () => {
    expect(ids(pickerRuns(runs, [], ''))).toEqual(['r3', 'r2', 'r1']);
    expect(ids(pickerRuns(runs, [], 'ABLATION'))).toEqual(['r3']);
    expect(ids(pickerRuns(runs, [], 'hybrid 5'))).toEqual(['r2']);
    expect(ids(pickerRuns(runs, [], 'r1'))).toEqual(['r1']);
    expect(ids(pickerRuns(runs, [], 'nothing'))).toEqual([]);
  });

  it('finds a sweep cell by its sweep, its grid point and its samples', () => {
    const cell = {
      ...run('r9', '', []),
      sampleIds: ['conv-26'],
      sweep: {
        sweepId: 'sw-7f3a',
        name: 'topk-grid',
        cellKey: 'retrieval.topK=5 #0',
        cellIndex: 1,
        values: { 'retrieval.topK': 5 },
        repeat: 0,
      },
    };
    const all = [cell, ...runs];
    expect(ids(pickerRuns(all, [], 'topk-grid'))).toEqual(['r9']);
    expect(ids(pickerRuns(all, [], 'sw-7f3a'))).toEqual(['r9']);
    expect(ids(pickerRuns(all, [], 'retrieval.topK=5'))).toEqual(['r9']);
    expect(ids(pickerRuns(all, [], 'conv-26'))).toEqual(['r9']);
  });

  it('keeps the picked runs first, in pick order, whatever the search', () => {
    expect(ids(pickerRuns(runs, ['r1', 'r3'], ''))).toEqual(['r1', 'r3', 'r2']);
    expect(ids(pickerRuns(runs, ['r1'], 'baseline'))).toEqual(['r1', 'r2']);
  });
});

describe('picking runs', () => {
  it('makes the first run picked the baseline and hands the role on when it is removed', () => {
    let state = toggleRun({ runs: [], baseline: null }, 'r1');
    expect(state).toEqual({ runs: ['r1'], baseline: 'r1' });
    state = toggleRun(state, 'r2');
    expect(state).toEqual({ runs: ['r1', 'r2'], baseline: 'r1' });
    state = toggleRun(state, 'r1');
    expect(state).toEqual({ runs: ['r2'], baseline: 'r2' });
    // Removing a non-baseline run leaves the baseline alone.
    expect(toggleRun({ runs: ['r1', 'r2'], baseline: 'r2' }, 'r1')).toEqual({
      runs: ['r2'],
      baseline: 'r2',
    });
  });

  it('refuses a ninth run: the API compares at most eight', () => {
    const eight = { runs: ['1', '2', '3', '4', '5', '6', '7', '8'], baseline: '1' };
    expect(toggleRun(eight, '9')).toBe(eight);
  });

  it('asks the engine only for a valid selection', () => {
    expect(compareRequest({ runs: ['r1'], baseline: 'r1', metric: 'officialF1' })).toBeNull();
    expect(compareRequest({ runs: ['r1', 'r2'], baseline: 'r3', metric: 'officialF1' })).toBeNull();
    expect(
      compareRequest({ runs: ['r1', 'r2'], baseline: 'r2', metric: 'evidenceRecall' }),
    ).toEqual({ runIds: ['r1', 'r2'], baselineRunId: 'r2', metric: 'evidenceRecall', seed: 0 });
  });
});

describe('numbers', () => {
  it('formats deltas with a sign and the interval', () => {
    expect(formatDelta({ meanDiff: 0.0421, low: 0.0104, high: 0.0751, n: 282 })).toEqual({
      diff: '+0.042',
      interval: '[+0.010, +0.075]',
      significance: 'improved',
      description: '+0.042 [+0.010, +0.075], significant improvement, n=282 paired questions',
      conversations: '',
      mcnemar: '',
      detectable: '',
    });
    // With the conversation-level interval, McNemar and the detectable effect beside it.
    expect(
      formatDelta(
        { meanDiff: 0.0421, low: 0.0104, high: 0.0751, n: 282 },
        {
          cluster: { meanDiff: 0.0421, low: -0.0203, high: 0.0902, n: 282, clusters: 10 },
          mcnemar: { baselineOnly: 5, candidateOnly: 12, pValue: 0.1436 },
          minimumDetectable: 0.0312,
        },
      ),
    ).toMatchObject({
      conversations: '[−0.020, +0.090] by 10 conversations',
      mcnemar: 'McNemar p=0.144 (12 up, 5 down)',
      detectable: 'detectable ±0.031',
      description:
        '+0.042 [+0.010, +0.075], significant improvement, n=282 paired questions; [−0.020, +0.090] by 10 conversations; McNemar p=0.144 (12 up, 5 down); detectable ±0.031 at this n (alpha 0.05, power 0.8)',
    });
    // A true minus sign; a change that rounds to zero carries no direction.
    expect(formatDelta({ meanDiff: -0.0004, low: -0.12, high: 0.1, n: 5 })).toMatchObject({
      diff: '0.000',
      interval: '[−0.120, +0.100]',
      significance: 'not-significant',
    });
  });

  it('calls a change significant only when its interval excludes 0', () => {
    expect(significance({ meanDiff: -0.2, low: -0.3, high: -0.01, n: 10 })).toBe('regressed');
    expect(significance({ meanDiff: 0.2, low: 0.01, high: 0.3, n: 10 })).toBe('improved');
    // Touching 0 is not excluding it.
    expect(significance({ meanDiff: 0.2, low: 0, high: 0.3, n: 10 })).toBe('not-significant');
    expect(significance(null)).toBe('none');
  });

  it('shows a dash where the runs share no question (NaN arrives as null over JSON)', () => {
    const overJson = JSON.parse(JSON.stringify({ meanDiff: NaN, low: NaN, high: NaN, n: 0 }));
    expect(formatDelta(overJson)).toMatchObject({ diff: '—', interval: '', significance: 'none' });
    expect(formatScore(null)).toBe('—');
    expect(formatScore(0.5)).toBe('0.500');
  });
});

describe('category table and chart', () => {
  it('labels rows in the chosen scheme, with the questions of each category', () => {
    const comparison = threeRuns();
    const official = categoryTableRows(comparison, 'official', LOCOMO_PROFILE);
    expect(official.map((r) => [r.label, r.questions])).toEqual([
      ['All', 6],
      ['1 multi-hop', 1],
      ['2 temporal', 2],
      ['3 open-domain', 1],
      ['4 single-hop', 1],
      ['5 adversarial', 1],
    ]);
    const mem0 = categoryTableRows(comparison, 'mem0', LOCOMO_PROFILE);
    expect(mem0.map((r) => r.label)).toEqual([
      'All',
      '1 single-hop',
      '2 temporal',
      '3 multi-hop',
      '4 open-domain',
      '5 excluded',
    ]);
    // The baseline has no delta column of its own.
    expect(official[0]!.deltas[0]!.diff).toBe('—');
    expect(official[0]!.deltas[1]!.diff).not.toBe('—');
  });

  it('gives the shared chart one row per category with every run’s mean and n', () => {
    const chart = compareChartRows(threeRuns(), 'mem0', LOCOMO_PROFILE);
    expect(chart.map((r) => [r.category, r.label, r.n])).toEqual([
      [1, 'single-hop', 1],
      [2, 'temporal', 2],
      [3, 'multi-hop', 0],
      [4, 'open-domain', 1],
      [5, 'excluded', 1],
    ]);
    // Category 3 exists only in B: the baseline has no bar there, B has its 1.
    expect(chart[2]).toMatchObject({
      values: { run0: null, run1: 1, run2: null },
      ns: { run0: 0, run1: 1, run2: 0 },
    });
  });

  it("gives each run's bar the 95% interval of its mean, as whiskers, where it has scores", () => {
    const comparison = threeRuns();
    const chart = withCompareIntervals(
      compareChartRows(comparison, 'mem0', LOCOMO_PROFILE),
      comparison,
    );
    // Temporal: A scored 1 and 0.5, B 0 and 0.5: the interval spans the scores' range.
    expect(chart[1]?.intervals).toEqual({ run0: [0.5, 1], run1: [0, 0.5], run2: [0.5, 1] });
    // One question: no spread. No question in a run: no whisker.
    expect(chart[2]?.intervals).toEqual({ run1: [1, 1] });
  });

  it('computes the whiskers one bootstrap per step, to the same rows as all at once', () => {
    const comparison = threeRuns();
    const bars = compareChartRows(comparison, 'mem0', LOCOMO_PROFILE);
    const steps = compareIntervalSteps(bars, comparison);
    let paused = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) paused++;
    // One pause per bootstrap: each run's category that has scores.
    expect(paused).toBe(
      bars.reduce((n, row) => n + Object.values(row.ns).filter((k) => k > 0).length, 0),
    );
    expect(step.value).toEqual(withCompareIntervals(bars, comparison));
  });
});

describe('question rows', () => {
  const rows = buildQuestionRows(threeRuns());
  const keys = (filtered: typeof rows) => filtered.map((r) => `${r.sampleId}/${r.questionIndex}`);

  it('aligns the runs by sample and question index and keeps missing apart from wrong', () => {
    expect(keys(rows)).toEqual(['s1/0', 's1/1', 's1/2', 's1/3', 's2/4', 's2/5']);
    const q3 = rows[3]!;
    expect(q3.cells[1]).toBeNull();
    expect(q3.flips[1]).toBe('missing');
    // B's error is a scored 0 answer, so it regresses; it is flagged as an error cell.
    expect(rows[4]!.flips[1]).toBe('regressed');
    expect(isErrorCell(rows[4]!.cells[1]!)).toBe(true);
    expect(isErrorCell(rows[0]!.cells[1]!)).toBe(false);
  });

  it('filters by any non-baseline flip, category and text in predictions', () => {
    const all = { flips: [], category: null, sample: null, search: '' } as const;
    // q0: B improved, C regressed: a row some run lost shows under "regressed" too.
    expect(keys(filterQuestionRows(rows, { ...all, flips: ['regressed'] }))).toEqual([
      's1/0',
      's1/1',
      's2/4',
    ]);
    expect(keys(filterQuestionRows(rows, { ...all, flips: ['improved'] }))).toEqual(['s1/0']);
    expect(keys(filterQuestionRows(rows, { ...all, flips: ['missing'] }))).toEqual([
      's1/3',
      's2/5',
    ]);
    expect(keys(filterQuestionRows(rows, { ...all, category: 2 }))).toEqual(['s1/1', 's1/2']);
    expect(keys(filterQuestionRows(rows, { ...all, search: '  PARIS ' }))).toEqual(['s1/0']);
    expect(filterQuestionRows(rows, { ...all, search: 'paris', flips: ['missing'] })).toEqual([]);
    expect(keys(filterQuestionRows(rows, { ...all, sample: 's2' }))).toEqual(['s2/4', 's2/5']);
    // The sample narrows with the other filters, not instead of them.
    expect(keys(filterQuestionRows(rows, { ...all, sample: 's1', flips: ['missing'] }))).toEqual([
      's1/3',
    ]);
    expect(filterQuestionRows(rows, { ...all, sample: 'nope' })).toEqual([]);
  });

  it('counts chips under the other filters', () => {
    expect(flipChipCounts(rows, { category: null, sample: null, search: '' })).toEqual({
      improved: 1,
      regressed: 3,
      // q0..q5 for C: unchanged on q1..q4; B unchanged on q2.
      unchanged: 4,
      missing: 2,
    });
    expect(flipChipCounts(rows, { category: 2, sample: null, search: '' })).toEqual({
      improved: 0,
      regressed: 1,
      unchanged: 2,
      missing: 0,
    });
  });

  it('counts questions per sample in dataset order, keeping a selected sample with no rows', () => {
    expect(sampleCounts(rows)).toEqual([
      { sampleId: 's1', questions: 4 },
      { sampleId: 's2', questions: 2 },
    ]);
    expect(sampleCounts(rows, 's2')).toEqual(sampleCounts(rows));
    expect(sampleCounts(rows, 'gone').at(-1)).toEqual({ sampleId: 'gone', questions: 0 });
    expect(flipChipCounts(rows, { category: null, sample: 's2', search: '' })).toMatchObject({
      missing: 1,
      regressed: 1,
    });
  });

  it('shortens engine labels to the preset for legends', () => {
    expect(shortRunLabel('hybrid · 20261122-081329-053-2ffcc5')).toBe('hybrid');
    expect(shortRunLabel('custom')).toBe('custom');
    // A sweep cell's derived name keeps its grid point.
    expect(shortRunLabel('grid · retrieval.topK=5 · 20261122-081329-053-2ffcc5')).toBe(
      'grid · retrieval.topK=5',
    );
  });

  it('toggles flip chips in canonical order', () => {
    expect(toggleFlip(['regressed'], 'improved')).toEqual(['improved', 'regressed']);
    expect(toggleFlip(['improved', 'regressed'], 'improved')).toEqual(['regressed']);
  });

  it('i then r shows only regressions, as the hint says; the same key again shows all', () => {
    expect(onlyFlip([], 'improved')).toEqual(['improved']);
    expect(onlyFlip(['improved'], 'regressed')).toEqual(['regressed']);
    expect(onlyFlip(['improved', 'regressed'], 'regressed')).toEqual(['regressed']);
    expect(onlyFlip(['regressed'], 'regressed')).toEqual([]);
  });
});

describe('two full LoCoMo runs', () => {
  // How fast this is belongs to `npm run bench -- compare-view`; here, that it holds at full size.
  it('compares and shapes 2 x 1,986 questions: every question a row, every category counted', () => {
    const { base, other } = fullLocomoAnswerPair();
    expect(base).toHaveLength(1986);
    const comparison = compareRuns(
      [
        { runId: 'a', label: 'a', answers: base },
        { runId: 'b', label: 'b', answers: other },
      ],
      { seed: 0 },
    );
    const table = categoryTableRows(comparison, 'official', LOCOMO_PROFILE);
    const rows = buildQuestionRows(comparison);
    expect(rows).toHaveLength(1986);
    expect(table[0]!.questions).toBe(1986);
    expect(categoryCounts(rows, LOCOMO_PROFILE)).toEqual({ 1: 282, 2: 321, 3: 96, 4: 841, 5: 446 });
    const chips = flipChipCounts(rows, { category: null, sample: null, search: '' });
    expect(chips.regressed).toBeGreaterThan(0);
    const searched = filterQuestionRows(rows, {
      flips: ['regressed'],
      category: 4,
      sample: null,
      search: 'question conv-3',
    });
    expect(searched.length).toBeGreaterThan(0);
    expect(searched.every((row) => row.category === 4 && row.sampleId === 'conv-3')).toBe(true);
  });
});

describe('run statuses in the picker', () => {
  it('compares degraded runs like completed ones: they finished, their errors count as wrong', () => {
    expect(isComparableStatus('degraded')).toBe(true);
    expect(isFinishedStatus('degraded')).toBe(true);
    expect(isComparableStatus('running')).toBe(false);
    expect(isFinishedStatus('cancelled')).toBe(false);
  });
});

describe('categoryCounts', () => {
  it('lists every LoCoMo category by default, 0 where no question falls', () => {
    expect(categoryCounts([], LOCOMO_PROFILE)).toEqual({ 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 });
    expect(categoryCounts(buildQuestionRows(threeRuns()), LOCOMO_PROFILE)).toEqual({
      1: 1,
      2: 2,
      3: 1,
      4: 1,
      5: 1,
    });
  });

  it("lists the baseline benchmark's categories: LongMemEval's twelve, not LoCoMo's five", () => {
    const a = [answer('q1', 0, 6, 1), answer('q2', 0, 10, 0), answer('q3', 0, 10, 1)];
    const rows = buildQuestionRows(
      compareRuns(
        [
          { runId: 'ra', label: 'text · ra', answers: a },
          { runId: 'rb', label: 'hybrid · rb', answers: a },
        ],
        { seed: 0, resamples: 10 },
      ),
    );
    const counts = categoryCounts(rows, LONGMEMEVAL_PROFILE);
    expect(Object.keys(counts).map(Number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(counts[6]).toBe(1);
    expect(counts[10]).toBe(2);
    expect(counts[5]).toBe(0);
  });
});

describe('the cost table heads', () => {
  it("name which memory tokens they count: the memory LLM's spend or the retrieved context", () => {
    const heads = Object.values(COST_HEADERS);
    expect(new Set(heads).size).toBe(heads.length);
    // No head is another's stem ("Memory tokens" beside "Memory tokens / question").
    for (const a of heads)
      for (const b of heads) if (a !== b) expect(b.startsWith(a), `${a} | ${b}`).toBe(false);
    expect(COST_HEADERS.memory).toMatch(/memory LLM/i);
    expect(COST_HEADERS.memoryTokens).toMatch(/retrieved/i);
    expect(COST_HEADERS.memoryTokens).toMatch(/question/);
  });
});
