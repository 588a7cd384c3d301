import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { DatasetLoadResult } from '../../../src-shared/dataset/types';
import { WorkbenchError } from '../../../src-shared/errors';
import { beamLoader } from './beamFolder';
import { parseJsonText } from './jsonText';
import { locomoLoader } from './locomo';
import { longMemEvalLoader } from './longmemeval';
import { DatasetLoaderRegistry, type LoaderOutput } from './registry';

/**
 * Far above any real LoCoMo-style file (2.8 MB), and kept under V8's longest string (2^29 - 24
 * UTF-16 units, just short of 512 MiB): past that, decoding fails with an unhelpful RangeError.
 */
export const DEFAULT_MAX_DATASET_BYTES = 500 * 1024 * 1024;

/** Lowers (or raises) the whole-file limit, e.g. to stream a LongMemEval S file to save memory. */
export const MAX_DATASET_BYTES_ENV = 'MEMORY_WORKBENCH_MAX_DATASET_BYTES';

/** The whole-file limit: the environment's override when set, else the default. */
export function datasetByteLimit(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[MAX_DATASET_BYTES_ENV];
  if (text === undefined || text.trim() === '') return DEFAULT_MAX_DATASET_BYTES;
  const bytes = Number(text);
  if (!Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `${MAX_DATASET_BYTES_ENV} must be a positive whole number of bytes (got "${text}")`,
      { where: MAX_DATASET_BYTES_ENV },
    );
  }
  return bytes;
}

export interface LoadDatasetOptions {
  /** A registered loader name; detected from the content when omitted. */
  format?: string;
  /** Throw on the first bad sample instead of skipping it and reporting it in `problems`. */
  strict?: boolean;
  /** Refuse files larger than this, checked with stat before reading (default: datasetByteLimit()). */
  maxBytes?: number;
  registry?: DatasetLoaderRegistry;
}

/** The loaders this build knows. Register new formats here. */
export function createDefaultRegistry(): DatasetLoaderRegistry {
  return new DatasetLoaderRegistry()
    .register(locomoLoader, { fallback: true })
    .register(longMemEvalLoader)
    .register(beamLoader);
}

const defaultRegistry = createDefaultRegistry();

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function errnoCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

export function readFailure(file: string, error: unknown): WorkbenchError {
  const code = errnoCode(error);
  if (code === 'ENOENT')
    return new WorkbenchError('NOT_FOUND', `${file}: no such file`, { where: file });
  const reason = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : String(error);
  return new WorkbenchError('DATASET_INVALID', `${file}: cannot read the file: ${reason}`, {
    where: file,
    cause: error,
  });
}

/**
 * The sha256 of a dataset file's bytes as they are now (to check a parsed copy is current), read
 * in chunks: a streamed LongMemEval M file is larger than any Buffer should be.
 */
export async function datasetFileSha256(file: string): Promise<string> {
  const folder = await folderSha256(file);
  if (folder !== null) return folder;
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  } catch (error) {
    throw readFailure(file, error);
  }
  return hash.digest('hex');
}

/** A dataset folder's sha256, as the loader that reads it computes it; null for a file. */
async function folderSha256(path: string): Promise<string | null> {
  try {
    if (!(await stat(path)).isDirectory()) return null;
  } catch (error) {
    throw readFailure(path, error);
  }
  for (const loader of defaultRegistry.list()) {
    const sha256 = await loader.folderSha256?.(path);
    if (sha256 !== undefined && sha256 !== null) return sha256;
  }
  throw notADatasetFolder(path, defaultRegistry);
}

function notADatasetFolder(dir: string, registry: DatasetLoaderRegistry): WorkbenchError {
  const readers = registry
    .list()
    .filter((l) => l.readFolder)
    .map((l) => l.name);
  return new WorkbenchError(
    'DATASET_INVALID',
    `${dir}: a folder in no layout a dataset format reads (formats read from folders: ${readers.join(', ') || 'none'})`,
    { where: dir },
  );
}

/** A folder read by the first loader whose layout it is (or the one named), checked like a file. */
async function loadDatasetFolder(
  dir: string,
  options: LoadDatasetOptions,
): Promise<DatasetLoadResult> {
  const registry = options.registry ?? defaultRegistry;
  const loaders = options.format !== undefined ? [registry.get(options.format)] : registry.list();
  const maxBytes = options.maxBytes ?? datasetByteLimit();
  for (const loader of loaders) {
    const output = await loader.readFolder?.(dir, { source: dir, maxBytes });
    if (!output) continue;
    const result = checkedResult(loader.name, output, dir, options);
    result.info.bytes = output.bytes;
    result.info.sha256 = output.sha256;
    return result;
  }
  throw notADatasetFolder(dir, registry);
}

/** Reads, size-checks, decodes and parses a dataset file, then hands it to a loader. */
export async function loadDatasetFile(
  file: string,
  options: LoadDatasetOptions = {},
): Promise<DatasetLoadResult> {
  const maxBytes = options.maxBytes ?? datasetByteLimit();
  let size: number;
  try {
    const info = await stat(file);
    if (info.isDirectory()) return await loadDatasetFolder(file, options);
    if (!info.isFile()) {
      throw new WorkbenchError('DATASET_INVALID', `${file}: not a regular file`, { where: file });
    }
    size = info.size;
  } catch (error) {
    if (error instanceof WorkbenchError) throw error;
    throw readFailure(file, error);
  }
  // Checked before reading so a huge file is never read into memory.
  if (size > maxBytes) {
    throw new WorkbenchError(
      'DATASET_TOO_LARGE',
      `${file}: ${formatBytes(size)} is larger than the limit of ${formatBytes(maxBytes)}`,
      { where: file },
    );
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw readFailure(file, error);
  }
  return loadDatasetBytes(bytes, file, options);
}

/**
 * Decodes and loads a dataset's bytes (a file's, or an upload's before anything is written), so
 * a bad upload is refused without touching the disk. `source` names it in messages.
 */
export function loadDatasetBytes(
  bytes: Buffer,
  source: string,
  options: LoadDatasetOptions = {},
): DatasetLoadResult {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_DATASET_BYTES;
  if (bytes.length === 0) {
    throw new WorkbenchError('DATASET_INVALID', `${source}: the file is empty (0 bytes)`, {
      where: source,
    });
  }
  if (bytes.length > maxBytes) {
    throw new WorkbenchError(
      'DATASET_TOO_LARGE',
      `${source}: ${formatBytes(bytes.length)} is larger than the limit of ${formatBytes(maxBytes)}`,
      { where: source },
    );
  }
  let text: string;
  try {
    // fatal: a binary or mis-encoded file should fail loudly, not load with U+FFFD in the text.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new WorkbenchError('DATASET_INVALID', `${source}: not valid UTF-8 text`, {
      where: source,
    });
  }
  const result = loadDatasetText(text, source, options);
  result.info.bytes = bytes.length;
  result.info.sha256 = createHash('sha256').update(bytes).digest('hex');
  return result;
}

export function loadDatasetText(
  text: string,
  source: string,
  options: LoadDatasetOptions = {},
): DatasetLoadResult {
  // TextDecoder keeps a UTF-8 BOM as U+FEFF, which JSON.parse rejects; editors add it silently.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const parsed = parseJsonText(body);
  if (!parsed.ok) {
    const { line, column, reason } = parsed.error;
    throw new WorkbenchError(
      'DATASET_INVALID',
      `${source}: not valid JSON at line ${line}, column ${column}: ${reason}`,
      { where: source },
    );
  }
  return loadDatasetValue(parsed.value, source, options);
}

export function loadDatasetValue(
  value: unknown,
  source: string,
  options: LoadDatasetOptions = {},
): DatasetLoadResult {
  const registry = options.registry ?? defaultRegistry;
  const loader = registry.resolve(value, options.format);
  return checkedResult(loader.name, loader.load(value, { source }), source, options);
}

/** A loader's output as a result: refused when nothing loaded (or, with `strict`, on any error). */
function checkedResult(
  format: string,
  { samples, problems }: LoaderOutput,
  source: string,
  options: LoadDatasetOptions,
): DatasetLoadResult {
  const errors = problems.filter((p) => p.severity === 'error');
  const first = errors[0];
  if (first && (options.strict === true || samples.length === 0)) {
    const others = errors.length > 1 ? ` (and ${errors.length - 1} more problems)` : '';
    const none = samples.length === 0 ? ' (no sample could be loaded)' : '';
    throw new WorkbenchError(first.code, `${first.message}${others}${none}`, {
      path: first.path,
      where: source,
    });
  }
  return {
    info: { format, source, bytes: null, sha256: null },
    samples,
    problems,
  };
}
