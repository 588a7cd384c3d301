import {
  benchmarkProfile,
  categoryLabel,
  schemeOf,
  type BenchmarkProfile,
  type SchemeId,
} from '../../src-shared/benchmarks';
import { coverageNote } from '../../src-shared/coverage';
import type { RunErrata } from '../../src-shared/errata';
import type { ExperimentConfig, ProgressEvent } from '../../src-shared/experiment';
import type { RunManifest } from '../../src-shared/runs';
import type { ExperimentHandle, RunOutcome } from '../core/pipeline/runner';
import { planRun } from '../core/pipeline/plan';
import { runErrata, runTable2 } from '../core/runs/queries';
import type { RunReader } from '../core/runs/reader';
import {
  errataTable,
  formatDuration,
  skippedReport,
  summaryTable,
  table2Line,
} from '../core/runs/report';
import type { CliIO } from './command';

/**
 * What `experiment`, `resume` and `experiment --repeats` print about a run they start: live
 * progress, Ctrl-C, the final table and exit code, the dry run's estimate and the errata tables.
 */

/** Exit codes of `experiment` and `resume` (documented in the usage text and the README). */
export const EXIT_CODES = {
  completed: 0,
  failed: 1,
  degraded: 3,
  paused: 4,
  cancelled: 130,
} as const;

/** The planned run's LLM calls, tokens and cost (the sweep planner's estimate for one cell). */
export async function dryRun(config: ExperimentConfig, json: boolean, io: CliIO): Promise<number> {
  const totals = await planRun(config);
  if (json) {
    io.stdout(`${JSON.stringify({ dryRun: true, estimate: totals })}\n`);
    return 0;
  }
  const n = (x: number): string => x.toLocaleString('en-US');
  io.stdout(
    `dry run: ${n(totals.samples)} samples, ${n(totals.tests)} tests, ${n(totals.questions)} answers\n` +
      `LLM calls: ${n(totals.answerCalls)} answer + ${n(totals.judgeCalls)} judge (upper bound; the response cache and the judge cache save some)\n` +
      `tokens (estimate): ${n(totals.promptTokens)} prompt, ${n(totals.completionTokens)} completion (at most)\n` +
      `cost (estimate): ${totals.cost === null ? 'unknown (no prices in the config)' : `$${totals.cost.toFixed(2)}`}\n`,
  );
  return 0;
}

/** Live progress: a redrawn bar on a terminal, occasional plain lines otherwise. */
export function progressReporter(io: CliIO, tty: boolean): (event: ProgressEvent) => void {
  let totalPackets = 0;
  let totalTests = 0;
  let testsDone = 0;
  let packets = 0;
  const perSample = new Map<string, number>();
  let lastDraw = 0;
  let lastEta: number | null = null;
  const draw = (force = false): void => {
    const now = Date.now();
    if (!force && now - lastDraw < 100) return;
    lastDraw = now;
    const share = totalPackets === 0 ? 0 : packets / totalPackets;
    const width = 30;
    const filled = Math.round(share * width);
    const eta = lastEta === null ? '' : `  ETA ${formatDuration(lastEta)}`;
    io.stderr(
      `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(share * 100).toFixed(0).padStart(3)}%  packets ${packets}/${totalPackets}  tests ${testsDone}/${totalTests}${eta}\u001b[K`,
    );
  };
  const line = (text: string): void => {
    if (tty) io.stderr(`\r\u001b[K${text}\n`);
    else io.stderr(`${text}\n`);
    if (tty) draw(true);
  };
  return (event) => {
    switch (event.type) {
      case 'run-started':
        totalPackets = event.totalPackets;
        totalTests = event.totalTests;
        line(
          `run ${event.runId}${event.resumed ? ' (resumed)' : ''}: ${event.samples.length} samples, ${event.totalTests} tests to run`,
        );
        break;
      case 'packet':
        packets += event.inserted - (perSample.get(event.sampleId) ?? 0);
        perSample.set(event.sampleId, event.inserted);
        lastEta = event.etaMs;
        if (tty) draw();
        break;
      case 'test-committed':
        testsDone++;
        if (tty) draw(true);
        else
          line(
            `${event.sampleId}: test ${event.testIndex} committed (${testsDone}/${totalTests}, mean F1 ${event.meanF1 === null ? '-' : event.meanF1.toFixed(3)}${event.errors > 0 ? `, ${event.errors} errors` : ''})`,
          );
        break;
      case 'sample-finished':
        line(
          `${event.sampleId}: ${event.status}${event.insertErrors > 0 ? `, ${event.insertErrors} insert errors` : ''}${event.answerErrors > 0 ? `, ${event.answerErrors} answer errors` : ''}`,
        );
        break;
      case 'run-finished':
      case 'run-cancelled':
      case 'run-failed':
      case 'run-paused':
        if (tty) io.stderr('\r\u001b[K');
        break;
      default:
        break;
    }
  };
}

/** Waits for a run while Ctrl-C cancels it gracefully (twice: exit now). */
export async function superviseRun(handle: ExperimentHandle, io: CliIO): Promise<RunOutcome> {
  let interrupts = 0;
  const onSigint = (): void => {
    interrupts++;
    if (interrupts === 1) {
      io.stderr(
        `\ncancelling run ${handle.runId}: finishing the question in flight (Ctrl-C again to exit now)\n`,
      );
      handle.cancel('cancelled with Ctrl-C');
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSigint);
  try {
    return await handle.done;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

export function reportOutcome(
  outcome: RunOutcome,
  config: Pick<ExperimentConfig, 'memory'>,
  scheme: SchemeId,
  json: boolean,
  io: CliIO,
  manifest?: Pick<RunManifest, 'coverage' | 'skippedSamples'> &
    Partial<Pick<RunManifest, 'dataset' | 'warnings'>>,
  extra?: ReportExtra | null,
): number {
  const coverage = manifest ? coverageNote(manifest, outcome.summary) : null;
  // What the run departed from (a memory LLM's replies cut off, say): never a silent "completed".
  const warnings = manifest?.warnings ?? [];
  // The run's own benchmark names its categories (LongMemEval's question types).
  const profile = benchmarkProfile(manifest?.dataset?.format);
  if (json) {
    io.stdout(
      `${JSON.stringify({
        runId: outcome.runId,
        status: outcome.status,
        error: outcome.error,
        elapsedMs: outcome.elapsedMs,
        notAsked: outcome.notAsked,
        skippedSamples: outcome.skippedSamples,
        coverage,
        preset: config.memory.preset,
        scheme: schemeOf(profile, scheme),
        categoryNames: Object.fromEntries(
          profile.categories.map((c) => [c.id, categoryLabel(profile, c.id, scheme)]),
        ),
        summary: outcome.summary,
        warnings,
        ...extra?.json,
      })}\n`,
    );
  } else {
    io.stdout(summaryTable(outcome.summary, scheme, profile));
    io.stdout(skippedReport(outcome.skippedSamples));
    if (coverage) io.stdout(`${coverage.text}\n`);
    if (extra) io.stdout(`\n${extra.text}`);
    io.stdout(
      `\nrun ${outcome.runId} ${outcome.status}${warnings.length > 0 ? ` with ${warnings.length} warning${warnings.length === 1 ? '' : 's'}` : ''} in ${formatDuration(outcome.elapsedMs)} (preset ${config.memory.preset})\n`,
    );
    for (const warning of warnings) io.stdout(`warning: ${warning}\n`);
    if (outcome.error)
      io.stdout(`${outcome.status === 'degraded' ? 'degraded' : 'error'}: ${outcome.error}\n`);
    if (outcome.tooManyErrors) {
      io.stdout(
        `the answers' errors say why (npm run -s cli -- runs show ${outcome.runId}); fix the cause and start a new run\n`,
      );
    } else if (outcome.status !== 'completed') {
      io.stdout(`continue it with: npm run -s cli -- resume ${outcome.runId}\n`);
    }
  }
  return EXIT_CODES[outcome.status];
}

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

/**
 * What `experiment` adds under a finished run's table: Mem0 Table 2's columns (latency, memory
 * tokens, ingest cost), then its scores both ways when its manifest applies errata.
 */
export function runReportExtra(reader: RunReader, runId: string, scheme: string): ReportExtra {
  const table2 = runTable2(reader, runId);
  const errata = errataReport(reader, runId, scheme);
  return {
    json: { table2, ...errata?.json },
    text: `${table2Line(table2)}${errata ? `\n${errata.text}` : ''}`,
  };
}

/** A run's scores both ways when its manifest applies errata; null for a run without. */
function errataReport(reader: RunReader, runId: string, scheme: string): ReportExtra | null {
  const errata = runErrata(reader, runId);
  return errata ? errataExtra(errata, scheme, reader.profileOf(runId)) : null;
}
