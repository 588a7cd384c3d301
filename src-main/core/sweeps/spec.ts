import { dirname, resolve } from 'node:path';
import { parseOrThrow } from '../../../src-shared/errors';
import {
  SweepSpecSchema,
  expandSweep,
  type PackTag,
  type SweepCell,
  type SweepSpec,
} from '../../../src-shared/sweeps';
import { hashedConfig } from '../../../src-shared/experiment';
import { canonicalJson, sha256Hex } from '../canonical-hash';
import { parseYamlOrJson, readUserFile } from '../structured-file';

/**
 * Reads a sweep spec (YAML, or JSON, which is YAML too), validates it and expands it. Dataset
 * paths are relative to the spec file, so a spec and its data can move together.
 */

export interface LoadedSweep {
  file: string;
  spec: SweepSpec;
  /** `<name>-<10 hex of the spec's content>`: the same spec resumes, an edited one is new. */
  sweepId: string;
  /** The same group under names it had before a rename: its stored runs resume as this one's. */
  formerSweepIds?: readonly string[];
  cells: SweepCell[];
  /** Set on a reproduce pack row's repeat group: every cell's run carries it in its tag. */
  pack?: PackTag;
}

/** Validates and expands a parsed spec; `baseDir` resolves relative dataset paths. */
export function loadSweep(value: unknown, file: string, baseDir: string): LoadedSweep {
  const what = `sweep spec ${file}`;
  const spec = parseOrThrow(SweepSpecSchema, value, what);
  const cells = expandSweep(spec, what).map((cell) => ({
    ...cell,
    config: { ...cell.config, datasetPath: resolve(baseDir, cell.config.datasetPath) },
  }));
  const sweepId = `${spec.name}-${sha256Hex(canonicalJson(cells.map((c) => [c.key, hashedConfig(c.config)]))).slice(0, 10)}`;
  return { file, spec, sweepId, cells };
}

export function readSweepFile(file: string): LoadedSweep {
  const text = readUserFile(file, 'sweep spec').toString('utf8');
  return loadSweep(parseYamlOrJson(file, text), file, dirname(resolve(file)));
}
