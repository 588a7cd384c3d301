/**
 * Issue 26 item 1, measured in-process (not a browser bench): a runs DB with 200 runs (10 full
 * LoCoMo runs, 190 one-sample runs) copied from a real full run (benchmarks/manyRuns.ts), each
 * copy's summary stored, then the Runs list as the renderer loaded it before (runs.list and
 * runs.get per run) and now (runs.list with stored summaries), and a full run's answers as one
 * call vs a first page. Usage: `npx tsx benchmarks/runs-list.ts <runs.db holding one full run>
 * [rounds]` (e.g. made by `cli experiment --runs-db`). Writes /tmp/listbench-200.db.
 */
import { loadavg } from 'node:os';
import { SqliteRunReader } from '../src-main/core/runs/reader';
import { runQueries } from '../src-main/core/runs/queries';
import { buildManyRunsDb, MANY_RUNS } from './manyRuns';

const src = process.argv[2];
if (src === undefined) throw new Error('usage: benchmarks/runs-list.ts <runs.db> [rounds]');
const out = '/tmp/listbench-200.db';
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
console.log('load before', load());
const built = buildManyRunsDb(src, out);
const base = built.fullRunIds[0] as string;
console.log(
  `built ${MANY_RUNS} runs; storing their summaries (as migration 10's backfill did): ${built.summariesMs.toFixed(0)} ms`,
);
let t: number;
const reader = SqliteRunReader.openReadOnly(out);
const q = runQueries(reader);
for (let round = 1; round <= Number(process.argv[3] ?? 3); round++) {
  t = performance.now();
  const list = q['runs.list']({});
  const after = performance.now() - t;
  const bytes = JSON.stringify(list).length;
  t = performance.now();
  let getBytes = 0;
  for (const r of list) getBytes += JSON.stringify(q['runs.get']({ runId: r.id })).length;
  const before = performance.now() - t + after;
  t = performance.now();
  const page = q['runs.answersPage']({ runId: base, offset: 0, limit: 100 });
  const pageMs = performance.now() - t;
  const pageBytes = JSON.stringify(page).length;
  t = performance.now();
  const all = q['runs.answers']({ runId: base });
  const allMs = performance.now() - t;
  console.log(
    `round ${round}: list with stored summaries ${after.toFixed(0)} ms (${(bytes / 1e6).toFixed(2)} MB, ${list.filter((r) => r.summary !== null).length}/200 with a summary); before: list + runs.get per run ${(before / 1000).toFixed(1)} s (${(getBytes / 1e6).toFixed(1)} MB) | full run answers: first page of 100 ${pageMs.toFixed(0)} ms (${(pageBytes / 1e6).toFixed(2)} MB) vs all ${all.length} ${allMs.toFixed(0)} ms (${(JSON.stringify(all).length / 1e6).toFixed(2)} MB)`,
  );
}
console.log('load after', load());
reader.close();
