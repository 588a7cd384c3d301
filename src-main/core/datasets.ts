import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';
import type { DatasetFolderFile, DatasetSummary } from '../../src-shared/api';
import type { DatasetStats } from '../../src-shared/dataset/stats';
import type { DatasetLoadResult, Sample } from '../../src-shared/dataset/types';
import { WorkbenchError } from '../../src-shared/errors';
import { benchmarkProfile } from '../../src-shared/benchmarks';
import { writeFileAtomic } from './atomic-file';
import { fromSystemError } from './system-errors';
import type { DomainHandlers } from './handlers';
import { resolveInsideFolders } from './trust';
import {
  DatasetStatsTally,
  LongMemEvalFileReader,
  datasetStats,
  indexLongMemEvalFile,
  loadDatasetBytes,
  loadDatasetFile,
  streamsDataset,
} from './dataset';
import { OFF_THREAD_LOAD_BYTES, loadDatasetFileOffThread } from './datasetLoadWorker';

const RecentSchema = z.array(
  z.object({
    path: z.string(),
    name: z.string(),
    sha256: z.string(),
    openedAt: z.string(),
    /** Absent in files written before it was kept: `userFileOfEntry` derives it. */
    userFile: z.string().optional(),
  }),
);
type RecentEntry = z.infer<typeof RecentSchema>[number];

/** Where uploads are copied: `<dataDir>/datasets/<sha256>.json`. */
function uploadsDir(dataDir: string): string {
  return join(dataDir, 'datasets');
}

/** An entry's user file; an entry written before it was kept: an upload's name, else its path. */
function userFileOfEntry(dataDir: string, entry: RecentEntry): string {
  if (entry.userFile !== undefined) return entry.userFile;
  return resolveInsideFolders(entry.path, [uploadsDir(dataDir)]) !== null ? entry.name : entry.path;
}

/**
 * The file the user gave for a dataset a run read: the path the run recorded, unless that is an
 * upload's stored copy, which the data folder's record of opened datasets names by the file the
 * user gave (found by sha256: the copy is named by it). Reads only the record, never a dataset.
 */
export function recordedUserFiles(
  dataDir: string,
): (dataset: { path: string; sha256: string | null }) => string {
  let entries: RecentEntry[] = [];
  try {
    entries = RecentSchema.parse(JSON.parse(readFileSync(join(dataDir, 'datasets.json'), 'utf8')));
  } catch {
    // No record (a CLI-only data folder) or an unreadable one: the runs' own paths.
  }
  return (dataset) => {
    if (resolveInsideFolders(dataset.path, [uploadsDir(dataDir)]) === null) return dataset.path;
    const entry = entries.find((e) => e.sha256 === dataset.sha256);
    return entry ? userFileOfEntry(dataDir, entry) : dataset.path;
  };
}

/** How the user named a dataset: its display name and the file they gave. */
type Origin = Pick<DatasetSummary, 'name' | 'userFile'>;

export interface OpenDataset {
  summary: DatasetSummary;
  /**
   * As parsed when opened: experiments run it (after checking the file's sha256 still matches).
   * Null for a streamed file (a LongMemEval file over the whole-file limit): the runner and the
   * planner stream it themselves, the runner checking it still has `summary.sha256`.
   */
  loaded: DatasetLoadResult | null;
  /** One sample: from the parsed copy, or read from the streamed file when asked for. */
  sample(sampleId: string): Promise<Sample | undefined>;
}

/**
 * The datasets a UI session has opened. Opened files are remembered in `<dataDir>/datasets.json`
 * so they are there again after a restart; uploads are copied into `<dataDir>/datasets/` first, so
 * experiments have a file whose sha256 they check against the parsed copy they run.
 */
export class DatasetStore {
  private readonly open = new Map<string, OpenDataset>();
  private readonly recentFile: string;
  private restored = false;

  constructor(
    private readonly dataDir: string,
    /**
     * Files from this size on are read, parsed and validated in a worker thread, so the server
     * keeps answering while a large file opens; Infinity loads every file on the main thread
     * (the old behaviour, for the benchmark's comparison).
     */
    private readonly offThreadFromBytes: number = OFF_THREAD_LOAD_BYTES,
    /**
     * Browser mode's `--dataset-dir` folders: a remembered dataset outside them and outside the
     * uploads is neither restored nor served, checked again on every read (a restart may have
     * narrowed them); null (the desktop app) serves whatever its user opened.
     */
    private readonly readableFolders: readonly string[] | null = null,
  ) {
    this.recentFile = join(dataDir, 'datasets.json');
  }

  async list(): Promise<DatasetSummary[]> {
    await this.restore();
    return [...this.open.values()]
      .filter((d) => this.readable(d.summary.path))
      .map((d) => d.summary);
  }

  /** Whether this server may serve the file at `path` now: an upload, or inside its folders. */
  private readable(path: string): boolean {
    if (this.readableFolders === null) return true;
    return resolveInsideFolders(path, [uploadsDir(this.dataDir), ...this.readableFolders]) !== null;
  }

  /** `userFile`: what the user gave (the path opened; a restored upload's own name). */
  async openPath(path: string, name = basename(path), userFile = path): Promise<DatasetSummary> {
    const origin = { name, userFile };
    if (await streamsDataset(path)) return this.openStreamed(path, origin);
    if (await this.opensOffThread(path)) {
      const { result, stats } = await loadDatasetFileOffThread(path);
      return this.register(path, origin, result, stats);
    }
    return this.register(path, origin, await loadDatasetFile(path));
  }

  /** A file the loader would read whole and that is large enough to be worth a worker. */
  private async opensOffThread(path: string): Promise<boolean> {
    if (!Number.isFinite(this.offThreadFromBytes)) return false;
    try {
      const info = await stat(path);
      return info.isFile() && info.size >= this.offThreadFromBytes;
    } catch {
      // Missing or unreadable: the inline loader names the problem as it always has.
      return false;
    }
  }

  /**
   * A LongMemEval file too large to load whole (M: ~2.7 GB): one pass validates, hashes and
   * tallies the stats a question at a time; only the numbers and the question ids are kept.
   */
  private async openStreamed(path: string, origin: Origin): Promise<DatasetSummary> {
    const tally = new DatasetStatsTally({}, benchmarkProfile('longmemeval'));
    const index = await indexLongMemEvalFile(path, (sample) => tally.add(sample));
    const ids = new Set(index.sampleIds);
    return this.keep(
      {
        path,
        ...origin,
        format: index.info.format,
        bytes: index.info.bytes ?? 0,
        sha256: index.info.sha256 ?? '',
        stats: tally.stats(),
        problems: index.problems,
      },
      null,
      async (sampleId) => {
        if (!ids.has(sampleId)) return undefined;
        // A forward scan to the question: the file is never held, and nothing is cached.
        const reader = new LongMemEvalFileReader(path, index);
        try {
          return await reader.take(sampleId);
        } finally {
          await reader.close();
        }
      },
    );
  }

  /**
   * Validates the content in memory first, so a bad upload leaves nothing behind and its errors
   * name the upload, never a server path. The copy is content-addressed and written atomically
   * (a unique temp file per call), so identical uploads at the same time all succeed with one
   * dataset.
   */
  async upload(name: string, content: string): Promise<DatasetSummary> {
    const result = loadDatasetBytes(Buffer.from(content, 'utf8'), name);
    const dir = uploadsDir(this.dataDir);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${result.info.sha256 ?? ''}.json`);
    if (!existsSync(file)) {
      try {
        writeFileAtomic(file, content);
      } catch (error) {
        // Node's message names the server's data folder; the browser gets the reason only.
        throw fromSystemError(error, `${name}: could not store the upload`) ?? error;
      }
    }
    // The copy is named by its content; the user's file name is kept with it.
    return this.register(file, { name, userFile: name }, result);
  }

  async get(datasetId: string): Promise<OpenDataset> {
    await this.restore();
    const dataset = this.open.get(datasetId);
    // Outside the folders answers as "not open", as for any id this server does not serve.
    if (!dataset || !this.readable(dataset.summary.path)) {
      throw new WorkbenchError('NOT_FOUND', `dataset ${datasetId.slice(0, 12)}… is not open`, {
        path: ['datasetId'],
      });
    }
    return dataset;
  }

  async sample(datasetId: string, sampleId: string): Promise<Sample> {
    const dataset = await this.get(datasetId);
    const sample = await dataset.sample(sampleId);
    if (!sample) {
      throw new WorkbenchError(
        'NOT_FOUND',
        `dataset ${dataset.summary.name} has no sample "${sampleId}"`,
        { path: ['sampleId'] },
      );
    }
    return sample;
  }

  private register(
    path: string,
    origin: Origin,
    result: DatasetLoadResult,
    // Tallied where the file was loaded (the worker); otherwise here.
    stats: DatasetStats = datasetStats(result.samples, {}, benchmarkProfile(result.info.format)),
  ): DatasetSummary {
    const samples = new Map(result.samples.map((s) => [s.sampleId, s]));
    return this.keep(
      {
        path,
        ...origin,
        format: result.info.format,
        bytes: result.info.bytes ?? 0,
        sha256: result.info.sha256 ?? '',
        stats,
        problems: result.problems,
      },
      result,
      async (sampleId) => samples.get(sampleId),
    );
  }

  private keep(
    opened: Omit<DatasetSummary, 'datasetId' | 'openedAt'>,
    loaded: DatasetLoadResult | null,
    sample: OpenDataset['sample'],
  ): DatasetSummary {
    const summary: DatasetSummary = {
      datasetId: opened.sha256,
      name: opened.name,
      path: opened.path,
      userFile: opened.userFile,
      format: opened.format,
      bytes: opened.bytes,
      sha256: opened.sha256,
      openedAt: new Date().toISOString(),
      stats: opened.stats,
      problems: opened.problems,
    };
    this.open.set(summary.sha256, { summary, loaded, sample });
    this.remember();
    return summary;
  }

  /** Reopens what was open last time; a file that vanished or broke is skipped, not fatal. */
  private async restore(): Promise<void> {
    if (this.restored) return;
    this.restored = true;
    let recent: z.infer<typeof RecentSchema> = [];
    try {
      recent = RecentSchema.parse(JSON.parse(readFileSync(this.recentFile, 'utf8')));
    } catch {
      return;
    }
    for (const entry of recent) {
      if (this.open.has(entry.sha256) || !this.readable(entry.path)) continue;
      try {
        await this.openPath(entry.path, entry.name, userFileOfEntry(this.dataDir, entry));
      } catch {
        // The file moved or changed; the user can open it again.
      }
    }
  }

  private remember(): void {
    const recent = [...this.open.values()].map(({ summary }) => ({
      path: summary.path,
      name: summary.name,
      sha256: summary.sha256,
      openedAt: summary.openedAt,
      userFile: summary.userFile,
    }));
    writeFileAtomic(this.recentFile, JSON.stringify(recent, null, 2));
  }
}

/**
 * Browser mode opens files by path only inside the folders given with `serve --dataset-dir`:
 * anyone who can reach the page could otherwise read any file the server can. Symlinks are
 * resolved before the check, and the resolved path is what gets opened. A path outside every
 * folder is refused whether or not it exists, so the answer reveals nothing about the disk.
 */
export function resolveInsideDatasetDirs(path: string, datasetDirs: readonly string[]): string {
  const how =
    datasetDirs.length === 0
      ? 'this server opens uploads only; upload the file in the Datasets view, or restart `serve` with --dataset-dir <folder> to open files in that folder by path'
      : 'upload the file in the Datasets view, or restart `serve` with another --dataset-dir <folder>';
  const refused = new WorkbenchError(
    'FORBIDDEN',
    `datasets.open: ${path} is outside the folders this server may read (${how})`,
    { path: ['path'], where: 'datasets.open' },
  );
  const inside = resolveInsideFolders(path, datasetDirs);
  if (inside === null) throw refused;
  // Missing but inside: the loader answers NOT_FOUND.
  return inside;
}

/**
 * The .json files directly inside the `serve --dataset-dir` folders, for the Datasets view's
 * picker: the page names one and opens it by path (`datasets.open`), so a file too large to upload
 * (LongMemEval M) opens in browser mode. A symlink is listed only when it resolves inside a folder,
 * by the same policy `datasets.open` applies, so the list names nothing the page could not open.
 */
export async function listDatasetFolderFiles(
  datasetDirs: readonly string[],
): Promise<DatasetFolderFile[]> {
  const files: DatasetFolderFile[] = [];
  for (const folder of datasetDirs) {
    let names: string[];
    try {
      names = await readdir(folder);
    } catch (error) {
      throw fromSystemError(error, `datasets.folderFiles: ${folder}`) ?? error;
    }
    // Names read from the folder itself, not ids: each is checked to lie inside it just below.
    for (const entry of names.filter((n) => n.toLowerCase().endsWith('.json')).sort()) {
      const path = join(folder, entry);
      const inside = resolveInsideFolders(path, datasetDirs);
      if (inside === null) continue;
      // A file removed since the listing, or a folder named *.json, is not a dataset to offer.
      const found = await stat(inside).catch(() => null);
      if (found?.isFile()) files.push({ path, name: entry, folder, bytes: found.size });
    }
  }
  return files;
}

/**
 * The datasets domain's handlers. `folders`: browser mode's `serve --dataset-dir` folders, the only
 * ones its `datasets.open` may read and what `datasets.folderFiles` lists; null for the desktop
 * app, which opens whatever its user picked in its own dialog and has no folders to list.
 */
export function datasetsHandlers(
  datasets: DatasetStore,
  folders: readonly string[] | null,
): DomainHandlers<'datasets'> {
  return {
    'datasets.list': () => datasets.list(),
    'datasets.open': async ({ path }) =>
      datasets.openPath(
        folders ? resolveInsideDatasetDirs(path, folders) : path,
        basename(path),
        path,
      ),
    'datasets.folderFiles': async () => (folders ? listDatasetFolderFiles(folders) : []),
    'datasets.upload': ({ name, content }) => datasets.upload(name, content),
    'datasets.sample': ({ datasetId, sampleId }) => datasets.sample(datasetId, sampleId),
  };
}
