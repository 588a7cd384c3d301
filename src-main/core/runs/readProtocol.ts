import { z } from 'zod';
import { errorPayloadSchema } from '../pipeline/protocol';
import { WORKER_READ_METHODS } from './queries';

/**
 * The runs read worker's protocol (Signal's ts/sql/main.ts shape): a discriminated union with
 * sequence numbers, zod-checked on both sides. Each side numbers its own messages 1, 2, 3...;
 * replies name the call they answer in `re`. The call's input is checked in the worker against
 * the API contract's own schema for that method, so the protocol never lists methods' shapes and
 * a new read view needs no change here.
 *
 * main -> worker: call. worker -> main: result | error (one per call).
 * With encoding json, a result's data must be a Uint8Array (checked by the caller).
 */

const seq = z.number().int().positive();

export const readInSchema = z.object({
  seq,
  type: z.literal('call'),
  method: z.enum(WORKER_READ_METHODS),
  input: z.unknown(),
  /**
   * object: the output as a structured clone (Electron IPC sends objects). json: the output's
   * JSON as UTF-8 bytes, transferred without a copy (HTTP sends them as they are), so the main
   * thread does no per-object work for a large result.
   */
  encoding: z.enum(['object', 'json']),
});
export type ReadIn = z.output<typeof readInSchema>;

export const readOutSchema = z.discriminatedUnion('type', [
  // The data is the API output of `method`, built in the worker by the same code the main
  // thread used to run; only the envelope is checked here, since checking every answer of a
  // full run would put the cost back on the main thread.
  z.object({ seq, type: z.literal('result'), re: seq, data: z.unknown() }),
  /** `re` null: a message the worker could not tie to a call (a protocol bug). */
  z.object({ seq, type: z.literal('error'), re: seq.nullable(), error: errorPayloadSchema }),
]);
export type ReadOut = z.output<typeof readOutSchema>;
