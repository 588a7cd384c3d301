import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import type { DatasetSummary } from '../../src-shared/api';
import type { Sample } from '../../src-shared/dataset/types';
import { WorkbenchError } from '../../src-shared/errors';
import { datasetStats, loadDatasetFile } from './dataset';

const RecentSchema = z.array(
  z.object({ path: z.string(), name: z.string(), sha256: z.string(), openedAt: z.string() }),
);

interface OpenDataset {
  summary: DatasetSummary;
  samples: Map<string, Sample>;
}

/**
 * The datasets a UI session has opened. Opened files are remembered in `<dataDir>/datasets.json`
 * so they are there again after a restart; uploads are copied into `<dataDir>/datasets/` first, so
 * experiments (which run in workers that read the file themselves) have a path to read.
 */
export class DatasetStore {
  private readonly open = new Map<string, OpenDataset>();
  private readonly recentFile: string;
  private restored = false;

  constructor(private readonly dataDir: string) {
    this.recentFile = join(dataDir, 'datasets.json');
  }

  async list(): Promise<DatasetSummary[]> {
    await this.restore();
    return [...this.open.values()].map((d) => d.summary);
  }

  async openPath(path: string, name = basename(path)): Promise<DatasetSummary> {
    const result = await loadDatasetFile(path);
    const sha256 = result.info.sha256 ?? '';
    const summary: DatasetSummary = {
      datasetId: sha256,
      name,
      path,
      format: result.info.format,
      bytes: result.info.bytes ?? 0,
      sha256,
      openedAt: new Date().toISOString(),
      stats: datasetStats(result.samples),
      problems: result.problems,
    };
    this.open.set(sha256, {
      summary,
      samples: new Map(result.samples.map((s) => [s.sampleId, s])),
    });
    this.remember();
    return summary;
  }

  async upload(name: string, content: string): Promise<DatasetSummary> {
    const dir = join(this.dataDir, 'datasets');
    mkdirSync(dir, { recursive: true });
    const sha = createHash('sha256').update(content, 'utf8').digest('hex');
    const file = join(dir, `${sha}.json`);
    if (!existsSync(file)) {
      // Validate before keeping it, so a bad upload leaves nothing behind.
      const temp = `${file}.${process.pid}.tmp`;
      writeFileSync(temp, content);
      try {
        await loadDatasetFile(temp);
      } catch (error) {
        rmSync(temp, { force: true });
        if (error instanceof WorkbenchError) {
          throw new WorkbenchError(error.code, error.message.split(temp).join(name), {
            where: name,
            ...(error.path ? { path: error.path } : {}),
          });
        }
        throw error;
      }
      renameSync(temp, file);
    }
    return this.openPath(file, name);
  }

  async get(datasetId: string): Promise<OpenDataset> {
    await this.restore();
    const dataset = this.open.get(datasetId);
    if (!dataset) {
      throw new WorkbenchError('NOT_FOUND', `dataset ${datasetId.slice(0, 12)}… is not open`, {
        path: ['datasetId'],
      });
    }
    return dataset;
  }

  async sample(datasetId: string, sampleId: string): Promise<Sample> {
    const dataset = await this.get(datasetId);
    const sample = dataset.samples.get(sampleId);
    if (!sample) {
      throw new WorkbenchError(
        'NOT_FOUND',
        `dataset ${dataset.summary.name} has no sample "${sampleId}"`,
        { path: ['sampleId'] },
      );
    }
    return sample;
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
      if (this.open.has(entry.sha256)) continue;
      try {
        await this.openPath(entry.path, entry.name);
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
    }));
    mkdirSync(this.dataDir, { recursive: true });
    writeFileSync(this.recentFile, JSON.stringify(recent, null, 2));
  }
}
