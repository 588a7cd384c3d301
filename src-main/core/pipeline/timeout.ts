/** Deadlines are used by every layer from memory up, so they live in core/timeout.ts. */
export { describeError, withTimeout } from '../timeout';
