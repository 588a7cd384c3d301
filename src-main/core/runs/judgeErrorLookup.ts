import type { JudgeErrorLookup } from '../../../src-shared/judgePanel';
import { measuredJudgeError } from './judgeAudit';
import { SqliteRunReader, type RunReader } from './reader';
import type { RunStore } from './store';

/**
 * Where a judge's measured error comes from for every headline that names a judge (issue 37
 * item 4): `cli judge-audit`'s verdicts in this runs DB, through judge-stats' measuredJudgeError
 * (the share of known-wrong answers the judge accepts, its latest audit set).
 *
 * SEAM: human labels (judge-label's judge-vs-human) are the other source; they are not on this
 * branch, so a judge measured only by people prints no error yet. Adding them is this body only.
 */
export function judgeErrorLookupFor(reader: RunReader): JudgeErrorLookup {
  if (!(reader instanceof SqliteRunReader)) return () => null;
  // measuredJudgeError is typed for the store but only reads its `db`: the read worker's reader
  // serves it as well.
  const store = reader as unknown as RunStore;
  return (judge) => {
    const error = measuredJudgeError(store, judge);
    return error === null ? null : { source: 'audit', falseAcceptance: error.falseAcceptance };
  };
}
