import type { BenchmarkProfile } from '../../../src-shared/benchmarks';

/**
 * A throwaway benchmark profile that exists only for tests: a second dataset's categories, named
 * in two schemes (the first `official`, as every profile's is), one adversarial, with numbers
 * LoCoMo does not use, and the one table its paper prints. A real dataset adds a loader whose
 * `format` is this id.
 */
export const TOYBENCH_PROFILE: BenchmarkProfile = {
  id: 'toybench',
  label: 'Toy benchmark',
  schemes: [
    { id: 'official', label: 'toy paper' },
    { id: 'short', label: 'short names' },
  ],
  categories: [
    { id: 10, names: { official: 'lookup', short: 'L' }, adversarial: false },
    {
      id: 20,
      names: { official: 'listing', short: 'LI' },
      adversarial: false,
      officialRule: 'comma-parts',
    },
    {
      id: 30,
      names: { official: 'trap', short: 'T' },
      adversarial: true,
      officialRule: 'abstain',
    },
  ],
  defaultJudgeProtocol: 'mem0',
  // Its paper's overalls: every question, and the headline without the trap category.
  overallNames: {
    all: { label: 'all, official', note: 'official toy convention' },
    answerable: { label: 'categories 10, 20', note: 'traps left out' },
  },
  reportFormats: [
    {
      id: 'toybench',
      label: 'Toy table',
      help: "the toy paper's table: lookup, listing, overall (official F1 ×100)",
      layout: {
        scheme: 'official',
        groups: ['lookup', 'listing', null],
        metrics: [{ id: 'officialF1', sub: null }],
        decimals: 1,
        caption: 'official F1 ×100; categories named as in the toy paper',
      },
    },
  ],
};
