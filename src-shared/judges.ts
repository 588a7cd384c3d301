/**
 * A judge's identity on a run (issue 37 item 1): which protocol, which model, at which endpoint
 * origin, asked how many times per answer. Two verdicts of one answer are by the same judge only
 * when all four agree; the runs DB keys `protocol_judge_scores` by them (migration "by judge").
 */

export interface JudgeIdentity {
  protocol: string;
  model: string;
  /** The endpoint's origin (`http://127.0.0.1:8080`); '' when unknown (verdicts stored before it was). */
  origin: string;
  /** Verdicts asked per answer; a judge with more than one has a self-consistency. */
  repeats: number;
}

/** One string per identity, for maps and React keys. */
export function judgeKey(j: JudgeIdentity): string {
  return JSON.stringify([j.protocol, j.model, j.origin, j.repeats]);
}

/** "mem0 · gpt-4o-mini ×3 · http://127.0.0.1:8080": what a table's judge row is called. */
export function judgeLabel(j: JudgeIdentity): string {
  return [
    j.protocol,
    j.model,
    ...(j.repeats > 1 ? [`×${j.repeats}`] : []),
    j.origin === '' ? 'endpoint unknown' : j.origin,
  ].join(' · ');
}

/** The origin of an endpoint URL; the URL itself if it does not parse (the schema checked it). */
export function endpointOrigin(baseUrl: string): string {
  try {
    return new URL(baseUrl).origin;
  } catch {
    return baseUrl;
  }
}

/** Judges one rescore (or one experiment) runs beside the run's own: each is a full pass. */
export const MAX_RESCORE_JUDGES = 8;

/**
 * Column names for judges side by side: the protocol alone while it tells them apart, then with
 * the model, the repeats and the origin, as far as needed ("mem0", "mem0/gpt-4o ×3").
 */
export function judgeColumnNames(judges: readonly JudgeIdentity[]): string[] {
  const parts = (j: JudgeIdentity, depth: number): string =>
    [
      j.protocol,
      ...(depth >= 1 ? [`/${j.model}`] : []),
      ...(depth >= 2 && j.repeats > 1 ? [` ×${j.repeats}`] : []),
      ...(depth >= 3 ? [` @${j.origin === '' ? '?' : j.origin}`] : []),
    ].join('');
  for (let depth = 0; depth < 3; depth++) {
    const names = judges.map((j) => parts(j, depth));
    if (new Set(names).size === names.length) return names;
  }
  return judges.map((j) => parts(j, 3));
}
