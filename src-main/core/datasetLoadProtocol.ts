import { z } from 'zod';
import { ERROR_CODES } from '../../src-shared/errors';
import { errorPayloadSchema } from './pipeline/protocol';

/**
 * The dataset load worker's protocol (the runs read worker's shape): a discriminated union with
 * sequence numbers, zod-checked on both sides. The worker reads, parses and validates one file,
 * then hands the samples over in batches of about HANDOVER_BATCH_BYTES, each after the main
 * thread acknowledged the one before: a message is deserialised in one go on the main thread,
 * and all of a 400 MB file's samples in one message (or queued at once, which Node drains in one
 * turn) kept it busy for seconds, which is what moving the load off the main thread is for. One
 * sample a message was the other extreme: on a loaded machine every round trip waits for both
 * threads to be scheduled, and 2,000 of them doubled the open's time.
 *
 * worker -> main: samples (valid samples, in file order), then done | error.
 * main -> worker: next (after each batch).
 */

/** About this much sample data per message: tens of milliseconds of the main thread's time. */
export const HANDOVER_BATCH_BYTES = 4 * 1024 * 1024;

const seq = z.number().int().positive();

/** What the worker is asked to load, checked in the worker (workerData crosses a boundary too). */
export const loadWorkerDataSchema = z.object({
  file: z.string().min(1),
  maxBytes: z.number().int().positive(),
});
export type LoadWorkerData = z.output<typeof loadWorkerDataSchema>;

export const loadInSchema = z.object({ seq, type: z.literal('next') });
export type LoadIn = z.output<typeof loadInSchema>;

export const loadOutSchema = z.discriminatedUnion('type', [
  // Samples the worker's loader validated (zod) and normalised; only the envelope is checked
  // here, since checking every turn again would put the cost back on the main thread.
  z.object({
    seq,
    type: z.literal('samples'),
    samples: z.array(z.record(z.string(), z.unknown())).min(1),
  }),
  z.object({
    seq,
    type: z.literal('done'),
    info: z.object({
      format: z.string().min(1),
      source: z.string(),
      bytes: z.number().int().nonnegative(),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
    }),
    problems: z.array(
      z.object({
        severity: z.enum(['error', 'warning']),
        code: z.enum(ERROR_CODES),
        message: z.string(),
        path: z.array(z.union([z.string(), z.number()])),
        sampleIndex: z.number().int().nullable(),
        sampleId: z.string().nullable(),
      }),
    ),
    /** The file's DatasetStats, tallied by the same code the main thread ran (envelope only). */
    stats: z.record(z.string(), z.unknown()),
  }),
  z.object({ seq, type: z.literal('error'), error: errorPayloadSchema }),
]);
export type LoadOut = z.output<typeof loadOutSchema>;
