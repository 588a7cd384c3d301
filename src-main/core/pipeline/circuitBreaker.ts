/**
 * Pauses a run whose endpoint is down: `limit` answers failing in a row (whichever sample or
 * worker they come from) trip it, so a dead endpoint costs `limit` failed answers instead of
 * hours of them. The reason names the streak and the last error, and is kept with the run.
 */
export class CircuitBreaker {
  private streak = 0;
  private reason: string | null = null;

  constructor(
    readonly limit: number,
    /** What is counted, in the reason: a run's answers, a rescore's judge calls. */
    private readonly counted = 'answers',
  ) {}

  /** Counts one answer; returns the reason when this answer trips the breaker, else null. */
  record(failed: boolean, message: string | undefined): string | null {
    if (this.reason !== null) return null;
    if (!failed) {
      this.streak = 0;
      return null;
    }
    this.streak++;
    if (this.streak < this.limit) return null;
    this.reason =
      `paused by the circuit breaker: ${this.streak} ${this.counted} in a row failed ` +
      `(maxConsecutiveFailures ${this.limit}), last: ${message ?? 'unknown error'}`;
    return this.reason;
  }

  /** Why the run was paused; null while the breaker is closed. */
  get tripped(): string | null {
    return this.reason;
  }
}
