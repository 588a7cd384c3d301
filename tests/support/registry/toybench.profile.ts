import type { BenchmarkProfile } from '../../../src-shared/benchmarks';

/**
 * A throwaway benchmark profile that exists only for tests: a second dataset's categories, named
 * in two schemes, one adversarial, with numbers LoCoMo does not use. A real dataset adds a loader
 * whose `format` is this id.
 */
export const TOYBENCH_PROFILE: BenchmarkProfile = {
  id: 'toybench',
  label: 'Toy benchmark',
  schemes: [
    { id: 'paper', label: 'toy paper' },
    { id: 'short', label: 'short names' },
  ],
  categories: [
    { id: 10, names: { paper: 'lookup', short: 'L' }, adversarial: false },
    {
      id: 20,
      names: { paper: 'listing', short: 'LI' },
      adversarial: false,
      officialRule: 'comma-parts',
    },
    { id: 30, names: { paper: 'trap', short: 'T' }, adversarial: true, officialRule: 'abstain' },
  ],
  defaultJudgeProtocol: 'mem0',
  reportFormats: [],
};
