import { MONTH_NAMES } from '../../../../src-shared/calendar';
import { selectTop } from '../../collection/top-k';

/** Weights of the turn re-ranking (the turn presets' and collection designs' shared fields). */
export interface RerankWeights {
  previousTurnScore: number;
  nextTurnScore: number;
  speakerBoost: number;
  /** A turn gains this times the best candidate score of its session (0 or absent: off). */
  sessionScore?: number;
  /** For a question about time, turns that mention a time get x(1 + timeBoost) (0/absent: off). */
  timeBoost?: number;
}

export interface RerankedTurn {
  id: string;
  score: number;
  /** The turn's own candidate score; null for a turn pulled into the pool as a neighbour. */
  base: number | null;
  boosted: boolean;
}

interface TurnSlot {
  id: string;
  pos: number;
  session: number;
  speaker: string;
  timed: boolean;
  /** The turns before and after in the same session: kept so a re-ranking looks nothing up. */
  prev: TurnSlot | null;
  next: TurnSlot | null;
  /** Scratch of one re-ranking, valid while `round` is the order's current round. */
  round: number;
  inPool: boolean;
  base: number | undefined;
}

/**
 * The turns of a conversation in insertion order, with their session and speaker: what the
 * re-ranking needs to find a turn's neighbours within its session.
 */
export class TurnOrder {
  private readonly slots = new Map<string, TurnSlot>();
  private last: TurnSlot | null = null;
  /** Counts re-rankings: a slot's scratch belongs to the round that wrote it. */
  private round = 0;

  get size(): number {
    return this.slots.size;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  /** Appends a turn; a turn placed before keeps its first place. */
  place(id: string, session: number, speaker: string, timed = false): void {
    if (this.slots.has(id)) return;
    const last = this.last;
    const prev = last !== null && last.session === session ? last : null;
    const slot: TurnSlot = {
      id,
      pos: this.slots.size,
      session,
      speaker,
      timed,
      prev,
      next: null,
      round: 0,
      inPool: false,
      base: undefined,
    };
    if (prev !== null) prev.next = slot;
    this.slots.set(id, slot);
    this.last = slot;
  }

  /** The turn before (-1) or after (1) `id` in the same session, or null. */
  neighbour(id: string, step: -1 | 1): string | null {
    const slot = this.slots.get(id);
    if (!slot) return null;
    return (step === -1 ? slot.prev : slot.next)?.id ?? null;
  }

  /**
   * final(t) = (s(t) + p * s(prev t) + n * s(next t)) * (1 + boost if t's speaker is named),
   * over the candidates and their neighbours (a turn that matched nothing can still be the answer
   * to the turn before it). Ties keep conversation order, so results are deterministic. The best
   * `limit` (default all), best first.
   */
  rerank(
    scored: ReadonlyArray<readonly [string, number]>,
    named: readonly string[],
    weights: RerankWeights,
    aboutTime = false,
    limit = Infinity,
  ): RerankedTurn[] {
    // Each call runs to its end without yielding, so one set of scratch fields per slot serves.
    const round = ++this.round;
    const scratch = (slot: TurnSlot): TurnSlot => {
      if (slot.round !== round) {
        slot.round = round;
        slot.inPool = false;
        slot.base = undefined;
      }
      return slot;
    };
    const baseOf = (slot: TurnSlot | null): number =>
      slot !== null && slot.round === round ? (slot.base ?? 0) : 0;
    const candidates: TurnSlot[] = [];
    for (const [id, score] of scored) {
      const slot = this.slots.get(id);
      if (!slot) continue;
      // A repeated id keeps its last score, as a map built from the list would.
      scratch(slot).base = score;
      candidates.push(slot);
    }
    const pool: TurnSlot[] = [];
    const join = (slot: TurnSlot | null) => {
      if (slot === null || scratch(slot).inPool) return;
      slot.inPool = true;
      pool.push(slot);
    };
    const withNeighbours = weights.previousTurnScore > 0 || weights.nextTurnScore > 0;
    for (const slot of candidates) {
      join(slot);
      if (!withNeighbours) continue;
      join(slot.prev);
      join(slot.next);
    }
    const boostedSpeakers = new Set(named);
    const sessionWeight = weights.sessionScore ?? 0;
    const sessionBest = new Map<number, number>();
    if (sessionWeight > 0) {
      for (const [id, score] of scored) {
        const session = this.slots.get(id)?.session;
        if (session === undefined) continue;
        sessionBest.set(session, Math.max(sessionBest.get(session) ?? 0, score));
      }
    }
    const out: Array<RerankedTurn & { pos: number }> = [];
    for (const slot of pool) {
      const own = slot.base;
      let score = own ?? 0;
      if (slot.prev !== null) score += weights.previousTurnScore * baseOf(slot.prev);
      if (slot.next !== null) score += weights.nextTurnScore * baseOf(slot.next);
      score += sessionWeight * (sessionBest.get(slot.session) ?? 0);
      const boosted = boostedSpeakers.has(slot.speaker);
      if (boosted) score *= 1 + weights.speakerBoost;
      if (aboutTime && slot.timed) score *= 1 + (weights.timeBoost ?? 0);
      out.push({ id: slot.id, score, base: own ?? null, boosted, pos: slot.pos });
    }
    const best = selectTop(out, limit, (a, b) => b.score - a.score || a.pos - b.pos);
    return best.map(({ id, score, base: own, boosted }) => ({ id, score, base: own, boosted }));
  }
}

const TIME_WORDS = new RegExp(
  '\\b(yesterday|today|tonight|tomorrow|ago|last|next|this (?:week|weekend|month|year|morning|summer|spring|fall|winter)|(?:mon|tues|wednes|thurs|fri|satur|sun)day|weekend|' +
    `${MONTH_NAMES.join('|')}|\\d{4})\\b`,
  'i',
);
const TIME_QUESTION = /^\s*when\b|\bwhat (?:year|month|date|day)\b|\bhow long ago\b/i;

/** Whether a turn's text mentions a time ("last Friday", "yesterday", "2022"). */
export function mentionsTime(text: string): boolean {
  return TIME_WORDS.test(text);
}

/** Whether a question asks when something happened. */
export function asksWhen(question: string): boolean {
  return TIME_QUESTION.test(question);
}
