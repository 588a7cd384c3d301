import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { WorkbenchError } from '../../../src-shared/errors';

/**
 * The elements of a top-level JSON array, one at a time, read from a file in chunks: a LongMemEval
 * M file (~2.7 GB) never has to fit in one string (V8 caps strings near 512 MiB) nor in memory.
 * Each element's text is cut out by tracking depth outside strings, then handed to JSON.parse.
 */
export async function* jsonArrayElements(
  file: string,
  chunkBytes = 1 << 20,
  /** Sees every chunk of bytes as it is read (to hash the file in the same pass). */
  onChunk?: (bytes: Buffer) => void,
): AsyncGenerator<{ index: number; value: unknown }> {
  const decoder = new StringDecoder('utf8');
  let started = false;
  let ended = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let parts: string[] = [];
  let index = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: chunkBytes })) {
    onChunk?.(chunk as Buffer);
    const text = decoder.write(chunk as Buffer);
    let from = -1;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) inString = false;
        continue;
      }
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0xfeff) continue;
      if (!started) {
        if (c !== 0x5b) throw notArray(file);
        started = true;
        continue;
      }
      if (ended) throw new WorkbenchError('DATASET_INVALID', `${file}: text after the array's end`);
      if (depth === 0) {
        if (c === 0x2c) continue;
        if (c === 0x5d) {
          ended = true;
          continue;
        }
        from = i;
        if (c !== 0x7b && c !== 0x5b) {
          throw new WorkbenchError(
            'DATASET_INVALID',
            `${file}: element #${index} must be an object or an array`,
            { path: [index] },
          );
        }
      }
      if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        depth--;
        if (depth === 0) {
          parts.push(text.slice(from === -1 ? 0 : from, i + 1));
          yield { index, value: parseElement(file, index, parts.join('')) };
          index++;
          parts = [];
          from = -1;
        }
      }
    }
    if (depth > 0) parts.push(text.slice(from === -1 ? 0 : from));
  }
  if (!started) throw notArray(file);
  if (!ended) {
    throw new WorkbenchError(
      'DATASET_INVALID',
      `${file}: the array is cut off after element ${index}`,
    );
  }
}

function notArray(file: string): WorkbenchError {
  return new WorkbenchError('DATASET_INVALID', `${file}: the top level must be a JSON array`);
}

function parseElement(file: string, index: number, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new WorkbenchError(
      'DATASET_INVALID',
      `${file}: element #${index} is not valid JSON: ${(error as Error).message}`,
      { path: [index] },
    );
  }
}
