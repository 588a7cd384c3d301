/**
 * The distributed executor's defaults, apart from distributed.ts so `--help` can show them without
 * loading BullMQ and ioredis.
 */

/** The BullMQ queue coordinator and workers share unless told otherwise. */
export const DEFAULT_QUEUE = 'mw-samples';
/** A job's lock: a dead worker's sample is retried once it lapses. */
export const DEFAULT_LOCK_MS = 30_000;
/** How often BullMQ looks for stalled jobs. */
export const DEFAULT_STALLED_CHECK_MS = 30_000;
