import type { EvidenceProblem } from '../../../src-shared/dataset/types';

/**
 * LoCoMo evidence lists are hand-written and inconsistent: several ids in one string
 * (`D8:6; D9:17`, `D9:1 D4:4 D4:6`), zero padding (`D30:05`), a stray colon (`D:11:26`), a bare
 * `D`, and ids that name no turn. Visibility and recall@k are only as good as these ids, so we
 * repair what resolves unambiguously and report everything else instead of guessing.
 */

export interface NormalisedEvidence {
  /** Ids of existing turns, deduplicated, in file order. */
  evidence: string[];
  problems: EvidenceProblem[];
}

const CANONICAL = /^D(\d+):(\d+)$/;
const MISPLACED_COLON = /^D:(\d+):(\d+)$/;
const SEPARATORS = /[;,\s]+/;

type Candidate =
  | { kind: 'canonical'; id: string; repaired: 'zero-padded' | null }
  | { kind: 'misplaced-colon'; id: string }
  | { kind: 'malformed' };

function candidateFor(part: string): Candidate {
  const canonical = CANONICAL.exec(part);
  if (canonical) {
    const id = `D${Number(canonical[1])}:${Number(canonical[2])}`;
    return { kind: 'canonical', id, repaired: id === part ? null : 'zero-padded' };
  }
  const colon = MISPLACED_COLON.exec(part);
  if (colon) return { kind: 'misplaced-colon', id: `D${Number(colon[1])}:${Number(colon[2])}` };
  return { kind: 'malformed' };
}

export function normaliseEvidence(
  raw: readonly string[],
  turnIds: ReadonlySet<string>,
): NormalisedEvidence {
  const evidence: string[] = [];
  const seen = new Set<string>();
  const problems: EvidenceProblem[] = [];

  for (const entry of raw) {
    const parts = entry
      .trim()
      .split(SEPARATORS)
      .filter((p) => p !== '');
    const split = parts.length > 1;
    if (parts.length === 0) {
      problems.push({ raw: entry, problem: 'malformed' });
      continue;
    }
    for (const part of parts) {
      const where = split ? { part } : {};
      let id: string | null = null;
      let repair: EvidenceProblem['problem'] | null = split ? 'split' : null;
      if (turnIds.has(part)) {
        // An exact match wins even if oddly shaped: the file's own ids are the truth.
        id = part;
      } else {
        const candidate = candidateFor(part);
        if (candidate.kind !== 'malformed' && turnIds.has(candidate.id)) {
          id = candidate.id;
          if (candidate.kind === 'misplaced-colon') repair = 'misplaced-colon';
          else if (candidate.repaired) repair = candidate.repaired;
        } else {
          problems.push({
            raw: entry,
            problem: candidate.kind === 'malformed' ? 'malformed' : 'unresolved',
            ...where,
          });
          continue;
        }
      }
      if (seen.has(id)) {
        problems.push({ raw: entry, problem: 'duplicate', ...where, repairedTo: id });
        continue;
      }
      seen.add(id);
      evidence.push(id);
      if (repair) problems.push({ raw: entry, problem: repair, ...where, repairedTo: id });
    }
  }
  return { evidence, problems };
}

/** Problems that changed an id into one that resolves (what `stats` calls "repaired"). */
export function isRepair(problem: EvidenceProblem): boolean {
  return problem.repairedTo !== undefined && problem.problem !== 'duplicate';
}

/** Problems where an entry or part resolved to nothing. */
export function isUnresolved(problem: EvidenceProblem): boolean {
  return problem.problem === 'unresolved' || problem.problem === 'malformed';
}
