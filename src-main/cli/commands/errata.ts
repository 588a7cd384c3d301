import type { RunErrata } from '../../../src-shared/errata';
import type { BenchmarkProfile } from '../../../src-shared/benchmarks';
import { errataTable } from '../../core/runs/report';
import { runErrata } from '../../core/runs/queries';
import type { RunReader } from '../../core/runs/reader';

/** What a command adds to its run report: fields of the JSON object and a text block. */
export interface ReportExtra {
  json: Record<string, unknown>;
  text: string;
}

/** The errata part of a run's report, from what the read API returns (runs.get's `errata`). */
export function errataExtra(
  errata: RunErrata,
  scheme: string,
  profile: BenchmarkProfile,
): ReportExtra {
  return { json: { errata }, text: errataTable(errata, errata, scheme, profile) };
}

/** A run's scores both ways when its manifest applies errata; null for a run without. */
export function errataReport(reader: RunReader, runId: string, scheme: string): ReportExtra | null {
  const errata = runErrata(reader, runId);
  return errata ? errataExtra(errata, scheme, reader.profileOf(runId)) : null;
}
