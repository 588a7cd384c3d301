import { WorkbenchError } from '../../../src-shared/errors';
import type { DatasetProblem, Sample } from '../../../src-shared/dataset/types';

/** What a loader is told about its input, for messages a person can act on. */
export interface LoadContext {
  /** The file path, or a label for in-memory input. */
  source: string;
}

export interface LoaderOutput {
  samples: Sample[];
  /** Per-sample problems; `error` ones mean the sample was skipped. */
  problems: DatasetProblem[];
}

/** A folder's samples, with what the run records about its files. */
export interface FolderOutput extends LoaderOutput {
  bytes: number;
  sha256: string;
}

/** What a folder reader is told: where it reads, and the largest file it may read whole. */
export interface FolderContext extends LoadContext {
  maxBytes: number;
}

/**
 * One dataset format. Adding a dataset = writing one of these and registering it. A loader
 * throws a WorkbenchError only when the whole input is unusable (wrong top-level shape); a bad
 * sample is reported in `problems` and skipped, so one typo does not cost the other samples.
 */
export interface DatasetLoader {
  /** Stable id used on the command line and in run manifests, e.g. `locomo`. */
  readonly name: string;
  readonly description: string;
  /** Cheap structural sniff of parsed JSON: true when this loader should handle it. */
  detect(value: unknown): boolean;
  load(value: unknown, context: LoadContext): LoaderOutput;
  /**
   * A format laid out as a folder (BEAM): its samples when `dir` is in its layout, else null.
   * `folderSha256` hashes the same files the same way, to check a run's copy is current.
   */
  readFolder?(dir: string, context: FolderContext): Promise<FolderOutput | null>;
  folderSha256?(dir: string): Promise<string | null>;
}

export class DatasetLoaderRegistry {
  readonly #loaders = new Map<string, DatasetLoader>();
  #fallback: string | null = null;

  /** The first loader registered is the fallback unless one is registered with `fallback`. */
  register(loader: DatasetLoader, options: { fallback?: boolean } = {}): this {
    if (this.#loaders.has(loader.name)) {
      throw new WorkbenchError('CONFLICT', `dataset loader "${loader.name}" is already registered`);
    }
    this.#loaders.set(loader.name, loader);
    if (options.fallback === true || this.#fallback === null) this.#fallback = loader.name;
    return this;
  }

  list(): DatasetLoader[] {
    return [...this.#loaders.values()];
  }

  get(name: string): DatasetLoader {
    const loader = this.#loaders.get(name);
    if (!loader) {
      const known = [...this.#loaders.keys()].join(', ') || '(none)';
      throw new WorkbenchError('NOT_FOUND', `unknown dataset format "${name}" (known: ${known})`);
    }
    return loader;
  }

  detect(value: unknown): DatasetLoader | null {
    for (const loader of this.#loaders.values()) if (loader.detect(value)) return loader;
    return null;
  }

  /**
   * The named loader, else the one that recognises the content, else the fallback: a file that
   * nothing recognises is most likely a broken file of the main format, and that loader's
   * validation says precisely what is wrong with it ("top level must be an array").
   */
  resolve(value: unknown, name?: string): DatasetLoader {
    if (name !== undefined) return this.get(name);
    const detected = this.detect(value);
    if (detected) return detected;
    if (this.#fallback === null) {
      throw new WorkbenchError('INTERNAL', 'no dataset loaders are registered');
    }
    return this.get(this.#fallback);
  }
}
