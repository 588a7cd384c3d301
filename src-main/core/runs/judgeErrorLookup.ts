import type { JudgeErrorLookup } from '../../../src-shared/judgePanel';
import type { RunReader } from './reader';

/**
 * SEAM (issue 37 item 4): where a judge's measured error comes from for every headline that names
 * a judge. It is to read `cli judge-audit`'s verdicts (judge-stats' `measuredJudgeError(store,
 * judge)`: the share of known-wrong answers the judge accepts) and, failing that, human labels
 * (judge-label's judge-vs-human). Neither lookup is on its branch yet, so no judge has a measured
 * error here and headlines print without one; wiring them is this function's body only.
 */
export function judgeErrorLookupFor(_reader: RunReader): JudgeErrorLookup {
  return () => null;
}
