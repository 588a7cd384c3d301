import { errataScores } from '../../../src-shared/errata';
import { errataTable } from '../../core/runs/report';
import type { RunReader } from '../../core/runs/reader';

/** What a command adds to its run report: fields of the JSON object and a text block. */
export interface ReportExtra {
  json: Record<string, unknown>;
  text: string;
}

/** A run's scores both ways when its manifest applies errata; null for a run without. */
export function errataReport(reader: RunReader, runId: string, scheme: string): ReportExtra | null {
  const { manifest } = reader.getRun(runId);
  if (!manifest.errata) return null;
  const profile = reader.profileOf(runId);
  const scores = errataScores(reader.finalAnswers(runId), manifest.errata.entries, profile);
  return {
    json: { errata: { file: manifest.errata.file, sha256: manifest.errata.sha256, ...scores } },
    text: errataTable(scores, manifest.errata, scheme, profile),
  };
}
