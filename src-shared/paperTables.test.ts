import { describe, expect, it } from 'vitest';
import type { RunSummary, ScorePair } from './experiment';
import { LOCOMO_PROFILE } from './benchmarks';
import { paperTable } from './paperTables';

const mean = (m: number | null, n: number) => ({ mean: m, n });
// Stored categories: 1 multi-hop (official) = single-hop (Mem0), 4 single-hop = open-domain, ...
const pair = (f1: number, set: number | null, n: number, j: number | null = null): ScorePair => ({
  officialF1: mean(f1, n),
  setF1: mean(set, set === null ? 0 : n),
  bleu1: mean(set === null ? null : set / 2, set === null ? 0 : n),
  judge: { ...mean(j, j === null ? 0 : n), std: null, repeats: j === null ? 0 : 1 },
});
const summary: RunSummary = {
  byCategory: {
    1: pair(0.5, 0.25, 282, 0.75),
    2: pair(0.125, 0.5, 321),
    3: pair(0.3333, 0.1, 96, 0.5),
    4: pair(0.6, 0.4, 841, 0.8),
    5: {
      officialF1: mean(0.9, 446),
      setF1: mean(null, 0),
      bleu1: mean(null, 0),
      judge: { ...mean(null, 0), std: null, repeats: 0 },
    },
  },
  overall: { all: pair(0.55, 0.33, 1986), answerable: pair(0.5, 0.33, 1540) },
  questions: 1986,
  errors: 0,
};

describe('paper tables', () => {
  it('LoCoMo as Markdown: official names, official F1 ×100, n per column', () => {
    expect(
      paperTable(summary, {
        format: 'locomo',
        as: 'md',
        label: 'hybrid · r1',
        profile: LOCOMO_PROFILE,
      }),
    ).toBe(
      [
        '| method | single-hop | multi-hop | temporal | open-domain | adversarial | overall |',
        '|:--|--:|--:|--:|--:|--:|--:|',
        '| hybrid · r1 | 60.0 | 50.0 | 12.5 | 33.3 | 90.0 | 55.0 |',
        '',
        'n: single-hop 841, multi-hop 282, temporal 321, open-domain 96, adversarial 446, overall 1986. ' +
          'official F1 ×100 (LoCoMo task_eval/evaluation.py); categories named as in LoCoMo.',
        '',
      ].join('\n'),
    );
  });

  it('Mem0 Table 1 as Markdown: Mem0 names, F1 B1 J, "–" where J is missing', () => {
    expect(
      paperTable(summary, { format: 'mem0', as: 'md', label: 'r|1', profile: LOCOMO_PROFILE }),
    ).toBe(
      [
        '| method | single-hop F1 | single-hop B1 | single-hop J | multi-hop F1 | multi-hop B1 | multi-hop J | ' +
          'open-domain F1 | open-domain B1 | open-domain J | temporal F1 | temporal B1 | temporal J |',
        '|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
        '| r\\|1 | 25.00 | 12.50 | 75.00 | 10.00 | 5.00 | 50.00 | 40.00 | 20.00 | 80.00 | 50.00 | 25.00 | – |',
        '',
        'n: single-hop 282, multi-hop 96, open-domain 841, temporal 321 (J 0). F1 = set F1, ' +
          'B1 = BLEU-1, J = LLM judge, ×100 (Mem0 evaluation/); categories named as in Mem0.',
        '',
      ].join('\n'),
    );
  });

  it('Mem0 Table 1 as LaTeX: grouped header, escaped label, en dash for no data', () => {
    expect(
      paperTable(summary, {
        format: 'mem0',
        as: 'latex',
        label: 'my_run',
        profile: LOCOMO_PROFILE,
      }),
    ).toBe(
      [
        '\\begin{tabular}{lcccccccccccc}',
        '\\toprule',
        ' & \\multicolumn{3}{c}{single-hop} & \\multicolumn{3}{c}{multi-hop} & \\multicolumn{3}{c}{open-domain} & \\multicolumn{3}{c}{temporal} \\\\',
        '\\cmidrule(lr){2-4} \\cmidrule(lr){5-7} \\cmidrule(lr){8-10} \\cmidrule(lr){11-13}',
        'Method & F1 & B1 & J & F1 & B1 & J & F1 & B1 & J & F1 & B1 & J \\\\',
        '\\midrule',
        'my\\_run & 25.00 & 12.50 & 75.00 & 10.00 & 5.00 & 50.00 & 40.00 & 20.00 & 80.00 & 50.00 & 25.00 & -- \\\\',
        '\\bottomrule',
        '\\multicolumn{13}{l}{\\footnotesize n: single-hop 282, multi-hop 96, open-domain 841, temporal 321 (J 0). ' +
          'F1 = set F1, B1 = BLEU-1, J = LLM judge, $\\times$100 (Mem0 evaluation/); categories named as in Mem0.} \\\\',
        '\\end{tabular}',
        '',
      ].join('\n'),
    );
  });

  it('LoCoMo as LaTeX: one header row', () => {
    const latex = paperTable(summary, {
      format: 'locomo',
      as: 'latex',
      label: 'x',
      profile: LOCOMO_PROFILE,
    });
    expect(latex.split('\n').slice(0, 6)).toEqual([
      '\\begin{tabular}{lcccccc}',
      '\\toprule',
      'Method & single-hop & multi-hop & temporal & open-domain & adversarial & overall \\\\',
      '\\midrule',
      'x & 60.0 & 50.0 & 12.5 & 33.3 & 90.0 & 55.0 \\\\',
      '\\bottomrule',
    ]);
    expect(latex).toContain('task\\_eval/evaluation.py');
  });
});
