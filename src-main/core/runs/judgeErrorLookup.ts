import { judgeKey } from '../../../src-shared/judges';
import type { JudgeErrorLookup } from '../../../src-shared/judgePanel';
import { RUN_JUDGE, humanJudgeAgreement } from './humanAgreement';
import { measuredJudgeError } from './judgeAudit';
import { SqliteRunReader, type RunReader } from './reader';
import type { RunStore } from './store';

/**
 * Where a judge's measured error comes from for every headline of run `runId` that names a judge
 * (issue 37 item 4). Human labels of this run come first: they measure the judge on these very
 * answers (judge-vs-human's false acceptance, humanAgreement.ts). Without them, `cli judge-audit`'s
 * latest audit of that judge in this runs DB (the share of known-wrong answers it accepts).
 */
export function judgeErrorLookupFor(reader: RunReader, runId: string): JudgeErrorLookup {
  if (!(reader instanceof SqliteRunReader)) return () => null;
  // Both lookups are typed for the store but only read its `db`: the read worker's reader serves
  // them as well.
  const store = reader as unknown as RunStore;
  return (judge, own) => {
    // Only the false-acceptance rate is read (a Wilson interval): no bootstrap is worth drawing.
    const human = humanJudgeAgreement(store, runId, own ? RUN_JUDGE : judgeKey(judge), {
      resamples: 1,
    });
    if (human !== null && human.falseAcceptance.n > 0)
      return { source: 'human', falseAcceptance: human.falseAcceptance };
    const audit = measuredJudgeError(store, judge);
    return audit === null ? null : { source: 'audit', falseAcceptance: audit.falseAcceptance };
  };
}
