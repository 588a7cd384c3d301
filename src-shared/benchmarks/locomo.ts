import type { BenchmarkProfile } from './types';

/**
 * LoCoMo (DESIGN.md §4). Category names differ by source: the official paper and code vs the Mem0
 * paper's relabelling; the stored number is the identity. Category 5 is adversarial: 444 of 446
 * items carry only the tempting wrong answer, so Mem0's metrics (set F1, BLEU-1, J) skip it.
 */
export const LOCOMO_PROFILE: BenchmarkProfile = {
  id: 'locomo',
  label: 'LoCoMo',
  schemes: [
    { id: 'official', label: 'official LoCoMo' },
    { id: 'mem0', label: 'Mem0 paper' },
  ],
  categories: [
    {
      id: 1,
      names: { official: 'multi-hop', mem0: 'single-hop' },
      adversarial: false,
      officialRule: 'comma-parts',
    },
    {
      id: 2,
      names: { official: 'temporal', mem0: 'temporal' },
      adversarial: false,
      dateHint: true,
    },
    {
      id: 3,
      names: { official: 'open-domain', mem0: 'multi-hop' },
      adversarial: false,
      officialRule: 'first-alternative',
    },
    { id: 4, names: { official: 'single-hop', mem0: 'open-domain' }, adversarial: false },
    {
      id: 5,
      names: { official: 'adversarial', mem0: 'excluded' },
      adversarial: true,
      officialRule: 'abstain',
    },
  ],
  defaultJudgeProtocol: 'mem0',
  overallNames: {
    // task_eval's overall: the mean over every question, adversarial ones included.
    all: { label: 'all, official', note: 'official LoCoMo convention' },
    // Mem0's evals.py drops category 5 and averages the rest (n = 1,540 on locomo10.json).
    answerable: { label: 'categories 1-4', note: 'Mem0 convention, adversarial left out' },
  },
  // evaluate_gpts.py's category-5 prompt: "(a) Not mentioned in the conversation" and the tempting
  // wrong answer, in a run-seeded order; get_cat_5_answer reads the reply.
  adversarialQuestions: {
    asked: 'two-option',
    help: "category 5 (adversarial), asked by LoCoMo's answer protocols as (a)/(b), one option 'Not mentioned in the conversation'",
  },
  reportFormats: [
    {
      id: 'locomo',
      label: 'LoCoMo table',
      help: "LoCoMo's QA table: single-hop, multi-hop, temporal, open-domain, adversarial, overall (official F1 ×100, LoCoMo's category names)",
      layout: {
        scheme: 'official',
        groups: ['single-hop', 'multi-hop', 'temporal', 'open-domain', 'adversarial', null],
        metrics: [{ id: 'officialF1', sub: null }],
        decimals: 1,
        caption: 'official F1 ×100 (LoCoMo task_eval/evaluation.py); categories named as in LoCoMo',
      },
    },
    {
      id: 'mem0',
      label: 'Mem0 Table 1',
      help: "Mem0's Table 1: single-hop, multi-hop, open-domain, temporal, each F1 (set F1), B1 (BLEU-1) and J (×100, Mem0's category names)",
      layout: {
        scheme: 'mem0',
        groups: ['single-hop', 'multi-hop', 'open-domain', 'temporal'],
        metrics: [
          { id: 'setF1', sub: 'F1' },
          { id: 'bleu1', sub: 'B1' },
          { id: 'judge', sub: 'J' },
        ],
        decimals: 2,
        caption:
          'F1 = set F1, B1 = BLEU-1, J = LLM judge, ×100 (Mem0 evaluation/); categories named as in Mem0',
      },
    },
  ],
};
