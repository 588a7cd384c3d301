import { resolve } from 'node:path';
import { coverageNote } from '../../../src-shared/coverage';
import { describeWireShape } from '../../../src-shared/requestParams';
import { plural } from '../../../src-shared/format';
import { SqliteRunReader } from '../../core/runs/reader';
import { repairRunsDb, type TableRepair } from '../../core/runs/repair';
import { defaultDataDir, defaultRunsDbPath } from '../../core/runs/paths';
import { runTable2 } from '../../core/runs/queries';
import { skippedReport, summaryTable, table2Line } from '../../core/runs/report';
import type { CliIO } from '../command';
import { UsageError, defineCommand } from '../command';
import { printable } from '../output';
import { withRunsApi } from '../runsApi';
import { parseScheme } from '../request';
import type { RunManifest } from '../../../src-shared/runs';
import { JSON_OPTION, RUNS_DB_OPTIONS, SCHEME_OPTION } from '../options';

const DESCRIPTION = `  list         every run, newest first
  show <id>    a run's manifest, samples and final-answer table
  delete <id>  delete a run and everything it recorded
  repair       check the runs database (full integrity_check); if it is damaged, copy every
               readable row of every table into a fresh file and keep the damaged one as
               runs.db.corrupt-<time>. Prints per table the rows recovered and the rowid or key
               ranges lost. When not one row can be read (a destroyed header), the file is left
               as it was and the exit status is 1.`;

export const runsCommand = defineCommand({
  summary: 'list, show or delete recorded runs',
  usage: 'usage: npm run -s cli -- runs <list | show <id> | delete <id> | repair> [options]',
  description: DESCRIPTION,
  options: { ...RUNS_DB_OPTIONS, ...SCHEME_OPTION, ...JSON_OPTION },
  async run({ values, positionals }, io) {
    const scheme = parseScheme(values.scheme);
    const [action, id, ...extra] = positionals;
    if (action === undefined)
      throw new UsageError('runs needs an action: list, show <id>, delete <id> or repair');
    if (action === 'repair') {
      if (id !== undefined) throw new UsageError('runs repair takes no run id');
      return repair(values['runs-db'], values['data-dir'], values.json, io);
    }
    if (action !== 'list' && (id === undefined || extra.length > 0))
      throw new UsageError(`runs ${action} takes one run id`);
    return withRunsApi(values, async ({ call, store }) => {
      switch (action) {
        case 'list': {
          const runs = await call('runs.list', {});
          if (values.json) io.stdout(`${JSON.stringify({ runs })}\n`);
          else if (runs.length === 0) io.stdout(`no runs in ${store.file}\n`);
          else {
            for (const r of runs) {
              const errors =
                r.insertErrors + r.answerErrors > 0
                  ? `  errors ${r.insertErrors}+${r.answerErrors}`
                  : '';
              if (r.damaged !== undefined) {
                io.stdout(`${printable(r.id)}  damaged: ${printable(r.damaged)}\n`);
                continue;
              }
              io.stdout(
                `${printable(r.id)}  ${r.status.padEnd(11)}  ${printable(r.preset).padEnd(12)}  ${plural(r.samples, 'sample')}  ${printable(r.datasetPath)}${errors}\n`,
              );
            }
          }
          return 0;
        }
        case 'show': {
          const {
            info: run,
            summary,
            curve,
            benchmark,
          } = await call('runs.get', {
            runId: id as string,
          });
          const table2 = runTable2(store, run.id);
          if (values.json) {
            io.stdout(`${JSON.stringify({ run, summary, curve, table2 })}\n`);
            return 0;
          }
          const m = run.manifest;
          io.stdout(`run ${run.id}  ${run.status}${run.error ? ` (${run.error})` : ''}\n`);
          io.stdout(`dataset ${m.dataset.path}  sha256 ${m.dataset.sha256 ?? '-'}\n`);
          io.stdout(
            `preset ${m.memory.preset}  answerer ${m.answerer.name}  seed ${m.seed}  top-k ${m.config.retrieval.topK}  config ${m.configHash.slice(0, 12)}\n`,
          );
          io.stdout(
            `app ${m.app.version} ${m.app.gitCommit?.slice(0, 10) ?? ''}  started ${m.startedAt}  ended ${m.endedAt ?? '-'}\n`,
          );
          for (const note of m.memory.notes) io.stdout(`note: ${note}\n`);
          const plannedVsActual = estimateLine(m);
          if (plannedVsActual) io.stdout(`${plannedVsActual}\n`);
          for (const shape of m.requestParams ?? []) {
            io.stdout(`sent ${describeWireShape(shape)}\n`);
          }
          const cached = cacheLine(m);
          if (cached) io.stdout(`${cached}\n`);
          io.stdout(skippedReport(m.skippedSamples ?? []));
          io.stdout('\n');
          for (const s of run.sampleInfo) {
            io.stdout(
              `  ${s.sampleId.padEnd(10)} ${s.status.padEnd(9)} tests ${s.testsCommitted}/${s.plannedTests}${s.insertErrors > 0 ? `  insert errors ${s.insertErrors}` : ''}${s.error ? `  ${s.error}` : ''}\n`,
            );
          }
          io.stdout('\n');
          io.stdout(summaryTable(summary, scheme, benchmark));
          io.stdout(table2Line(table2));
          const coverage = coverageNote(m, summary);
          if (coverage) io.stdout(`${coverage.text}\n`);
          return 0;
        }
        case 'delete': {
          if (!(await call('runs.delete', { runId: id as string })).deleted) {
            io.stderr(`error NOT_FOUND: no run ${id} in ${store.file}\n`);
            return 1;
          }
          io.stdout(`deleted run ${id}\n`);
          return 0;
        }
        default:
          throw new UsageError(`unknown runs action "${action}" (list, show, delete, repair)`);
      }
    });
  },
});

/** `runs repair`: never opens the file as a store (a damaged one would be refused). */
function repair(
  runsDb: string | undefined,
  dataDirFlag: string | undefined,
  json: boolean,
  io: CliIO,
): number {
  const file = resolve(runsDb ?? defaultRunsDbPath(resolve(dataDirFlag ?? defaultDataDir())));
  const report = repairRunsDb(file);
  // Recovering nothing is a failure: the damaged file was left in place and no data came back.
  const code = report.outcome === 'nothing-recovered' ? 1 : 0;
  const damagedRuns = report.outcome === 'nothing-recovered' ? [] : damagedRunsIn(file);
  if (json) {
    io.stdout(`${JSON.stringify({ ...report, damagedRuns })}\n`);
    return code;
  }
  if (report.outcome === 'intact') {
    io.stdout(
      `${file}: integrity_check found no damage; nothing was changed${damagedRuns.length > 0 ? '' : '\n'}`,
    );
    if (damagedRuns.length > 0) io.stdout(`, but ${damagedRunsText(damagedRuns)}`);
    return code;
  }
  io.stdout(`${file} was damaged: ${report.problems.slice(0, 3).join('; ')}\n`);
  for (const t of report.tables) io.stdout(`  ${tableLine(t)}\n`);
  if (report.outcome === 'nothing-recovered') {
    io.stderr(
      `error RUNS_DB_CORRUPT: runs repair could not read a single row of ${file}; the file was left exactly as it was (move it aside to start a new runs database)\n`,
    );
    return code;
  }
  io.stdout(`the damaged file is kept as ${report.damagedCopy}\n`);
  for (const [table, n] of Object.entries(report.orphans)) {
    io.stdout(`  ${n} ${table} row(s) kept whose parent row was lost\n`);
  }
  io.stdout(
    `${report.recovered} row(s) recovered; ${report.runs.length} run(s) in the repaired database\n`,
  );
  if (damagedRuns.length > 0) io.stdout(damagedRunsText(damagedRuns));
  return code;
}

/** Runs whose stored manifest, tags or summary SQLite reads but the product cannot parse. */
function damagedRunsIn(file: string): Array<{ runId: string; damaged: string }> {
  const reader = SqliteRunReader.openReadOnly(file);
  try {
    return reader
      .listRuns()
      .flatMap((r) => (r.damaged === undefined ? [] : [{ runId: r.id, damaged: r.damaged }]));
  } finally {
    reader.close();
  }
}

function damagedRunsText(runs: ReadonlyArray<{ runId: string; damaged: string }>): string {
  const lines = runs.map((r) => `  run ${printable(r.runId)}: damaged: ${printable(r.damaged)}\n`);
  return `${runs.length} run(s) hold a stored value that cannot be read (a summary is rebuilt by \`rescore <run id>\`; a run without its manifest can only be deleted):\n${lines.join('')}`;
}

/** One table's line: rows recovered, and what was lost (rowid or key ranges), or "complete". */
function tableLine(t: TableRepair): string {
  const rowids = t.unreadable.map(([from, to]) =>
    from <= Number.MIN_SAFE_INTEGER
      ? 'all'
      : to === null
        ? `${from}-end`
        : from === to
          ? `${from}`
          : `${from}-${to}`,
  );
  const keys = t.unreadableKeys.map(({ after, before }) =>
    after === null && before === null
      ? 'all'
      : `after ${after === null ? 'start' : `(${after.join(', ')})`} before ${before === null ? 'end' : `(${before.join(', ')})`}`,
  );
  const lost = [
    rowids.length > 0 ? `lost unreadable rowids ${rowids.join(', ')}` : '',
    keys.length > 0 ? `lost unreadable keys ${keys.join('; ')}` : '',
    t.rejected > 0 ? `${t.rejected} rows refused` : '',
  ].filter((part) => part !== '');
  return `${t.table.padEnd(22)} ${String(t.recovered).padStart(8)} rows recovered; ${lost.length > 0 ? lost.join('; ') : 'no unreadable page met'}`;
}

/** The requests answered from a cache, per role, over every launch (null when none was on). */
export function cacheLine(m: RunManifest): string | null {
  const parts = [
    m.answerCache ? `answers ${m.answerCache.hits} hits / ${m.answerCache.misses} asked` : '',
    m.memoryCache ? `memory LLM ${m.memoryCache.hits} hits / ${m.memoryCache.misses} asked` : '',
    m.judge?.cacheHits ? `judge ${m.judge.cacheHits} verdicts from its cache` : '',
    m.embedding && m.embedding.cacheHits + m.embedding.cacheMisses > 0
      ? `embeddings ${m.embedding.cacheHits} hits / ${m.embedding.cacheMisses} misses, ${m.embedding.requests} requests`
      : '',
  ].filter((part) => part !== '');
  return parts.length > 0 ? `cache: ${parts.join('; ')}` : null;
}

/** The plan's estimate against what the run spent (answer and judge calls, cost). */
export function estimateLine(m: RunManifest): string | null {
  const e = m.estimate;
  if (!e) return null;
  const calls = (m.usage?.answer.calls ?? 0) + (m.usage?.judge?.calls ?? 0);
  const costs = [m.usage?.answer.cost, m.usage?.judge?.cost].filter(
    (c): c is number => typeof c === 'number',
  );
  const usd = (x: number | null): string => (x === null ? 'unknown' : `$${x.toFixed(2)}`);
  const actualCost = costs.length > 0 ? costs.reduce((a, b) => a + b, 0) : null;
  return (
    `LLM estimate ${e.answerCalls + e.judgeCalls} calls (${e.answerCalls} answer, ${e.judgeCalls} judge), ` +
    `cost ${usd(e.cost)}; actual ${calls} requests, cost ${usd(actualCost)}` +
    (m.answerCache ? ` (${m.answerCache.hits} answers from the response cache)` : '')
  );
}
