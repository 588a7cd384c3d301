/**
 * The live summary's fetch schedule, kept out of React so its ordering can be tested: a
 * trailing-edge throttle (a new request within the window replaces the pending one, which keeps
 * its deadline, so a burst of commits ends with the newest summary), spaced by at least
 * `throttleMs` and `costFactor` times the last fetch's duration, one fetch in flight at a time.
 */
export class ThrottledFetcher<T> {
  private nextAllowed = 0;
  private latest = 0;
  private inFlight: Promise<unknown> | null = null;

  constructor(
    private readonly throttleMs: number,
    private readonly costFactor: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Fetches once allowed and hands the newest result to `onResult`. A failed fetch is tried
   * again at the throttle's pace while `retry()` says so: a card can mount before its run can be
   * read (the run row, the read worker), and nothing else asks again before its first test
   * commits. Returns the request's cancel.
   */
  request(fetch: () => Promise<T>, onResult: (value: T) => void, retry: () => boolean): () => void {
    let stale = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fetchWhenAllowed = (): void => {
      timer = setTimeout(
        () => {
          if (stale) return;
          if (this.inFlight) {
            void this.inFlight.finally(fetchWhenAllowed);
            return;
          }
          const started = this.now();
          const mine = ++this.latest;
          let failed = false;
          const request = fetch()
            .then((value) => {
              // An older answer landing after a newer request must not overwrite it.
              if (mine === this.latest) onResult(value);
            })
            .catch(() => {
              failed = true;
            })
            .finally(() => {
              const took = this.now() - started;
              this.nextAllowed = started + Math.max(this.throttleMs, took * this.costFactor);
              this.inFlight = null;
              if (failed && !stale && retry()) fetchWhenAllowed();
            });
          this.inFlight = request;
        },
        Math.max(0, this.nextAllowed - this.now()),
      );
    };
    fetchWhenAllowed();
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }
}
