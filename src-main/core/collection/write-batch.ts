import type Database from 'better-sqlite3';

/** Batched durability: commit after this many write calls... */
export const BATCH_COMMIT_WRITES = 1000;
/** ...or this long after the first uncommitted write, whichever comes first. */
export const BATCH_COMMIT_MS = 100;

/**
 * Runs one write operation atomically. 'immediate': its own transaction. 'batched': a savepoint
 * inside a longer transaction that is committed after BATCH_COMMIT_WRITES writes, after
 * BATCH_COMMIT_MS, and on flush/close. A small WAL commit costs more than the writes
 * themselves, so grouping them is what makes per-turn ingest fast; the price is that a crash
 * (not an error: a failed write rolls back its own savepoint) loses at most that window.
 */
export class WriteBatch {
  private readonly runTx: (fn: () => unknown) => unknown;
  private pendingWrites = 0;
  private commitTimer: NodeJS.Timeout | undefined;

  /**
   * `isClosed`: a timer that fires after close commits nothing; `warn`: a deferred commit that
   * failed is reported, not thrown (nobody awaits the timer).
   */
  constructor(
    private readonly db: Database.Database,
    private readonly durability: 'batched' | 'immediate',
    private readonly isClosed: () => boolean,
    private readonly warn: (message: string) => void,
  ) {
    this.runTx = db.transaction((fn: () => unknown) => fn());
  }

  write<T>(fn: () => T): T {
    if (this.durability === 'immediate') return this.runTx(fn) as T;
    if (!this.db.inTransaction) {
      this.db.exec('BEGIN');
      this.commitTimer = setTimeout(() => this.commitFromTimer(), BATCH_COMMIT_MS);
      this.commitTimer.unref();
    }
    const result = this.runTx(fn) as T;
    if (++this.pendingWrites >= BATCH_COMMIT_WRITES) this.commitPending();
    return result;
  }

  commitPending(): void {
    this.stopTimer();
    this.pendingWrites = 0;
    if (this.db.inTransaction) this.db.exec('COMMIT');
  }

  /** Drops the pending commit timer (close: the database's close rolls back what is open). */
  stopTimer(): void {
    if (this.commitTimer !== undefined) {
      clearTimeout(this.commitTimer);
      this.commitTimer = undefined;
    }
  }

  private commitFromTimer(): void {
    this.commitTimer = undefined;
    if (this.isClosed()) return;
    try {
      this.commitPending();
    } catch (error) {
      this.warn(
        `deferred commit failed (${(error as Error).message}); it is retried on the next write, flush or close`,
      );
    }
  }
}
