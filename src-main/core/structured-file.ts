import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parseDocument } from 'yaml';
import { WorkbenchError } from '../../src-shared/errors';

/** Files a user writes by hand (sweep specs, errata, reproduce packs): YAML, or JSON by extension. */

/** A file a user named, as bytes; a coded NOT_FOUND that names it when it cannot be read. */
export function readUserFile(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new WorkbenchError(
      'NOT_FOUND',
      `${what} ${file}: cannot read it (${(error as Error).message})`,
      { where: file },
    );
  }
}

/** A JSON file's value; `what` starts the error messages ("config file", "predictions file"). */
export function readJsonFile(file: string, what: string): unknown {
  return parseJson(file, readUserFile(file, what).toString('utf8'), what);
}

function parseJson(file: string, text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `${what} ${file}: not valid JSON (${(error as Error).message})`,
      { where: file },
    );
  }
}

/** A YAML or JSON file's value (JSON by its extension); `what` starts the error messages. */
export function parseYamlOrJson(file: string, text: string, what = 'sweep spec'): unknown {
  if (extname(file).toLowerCase() === '.json') return parseJson(file, text, what);
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const at = first.linePos?.[0];
    throw new WorkbenchError(
      'INVALID_INPUT',
      `${what} ${file}${at ? `:${at.line}:${at.col}` : ''}: not valid YAML (${(first.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')})`,
      { where: file },
    );
  }
  try {
    return doc.toJS() as unknown;
  } catch (error) {
    // The yaml library refuses to expand an alias bomb (a few lines that would become billions of
    // nodes) and says so here: the file is bad input, not a crash.
    throw new WorkbenchError(
      'INVALID_INPUT',
      `${what} ${file}: YAML refused (${(error as Error).message})`,
      { where: file },
    );
  }
}
