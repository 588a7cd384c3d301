import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import {
  ErrataFileSchema,
  resolveErrata,
  type ErrataFile,
  type ErrataRecord,
} from '../../../src-shared/errata';
import type { Sample } from '../../../src-shared/dataset/types';
import { parseOrThrow } from '../../../src-shared/errors';
import { parseYamlOrJson, readUserFile } from '../structured-file';

/** An errata file as read from disk: validated, with the sha256 of its bytes. */
export interface LoadedErrata {
  file: string;
  sha256: string;
  errata: ErrataFile;
}

/** Reads and validates an errata file (YAML, or JSON by extension); errors name the file and field. */
export function readErrataFile(file: string): LoadedErrata {
  const path = resolve(file);
  const bytes = readUserFile(file, 'errata file');
  const value = parseYamlOrJson(file, bytes.toString('utf8'), 'errata file');
  const errata = parseOrThrow(ErrataFileSchema, value, `errata file ${file}`);
  return { file: path, sha256: createHash('sha256').update(bytes).digest('hex'), errata };
}

/** The manifest's record: every entry matched to its question of the run's dataset. */
export function errataRecord(loaded: LoadedErrata, samples: readonly Sample[]): ErrataRecord {
  return {
    file: loaded.file,
    sha256: loaded.sha256,
    name: loaded.errata.name ?? null,
    entries: resolveErrata(loaded.errata, samples, `errata file ${loaded.file}`),
  };
}
