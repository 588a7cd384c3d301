/**
 * Issue 26 item 1, measured in-process (not a browser bench): a runs DB with 200 runs (10 full
 * LoCoMo runs, 190 one-sample runs) copied from a real full run, set back to schema 9 and opened
 * (migration 10's backfill), then the Runs list as the renderer loaded it before (runs.list and
 * runs.get per run) and now (runs.list with stored summaries), and a full run's answers as one
 * call vs a first page. Usage: `npx tsx benchmarks/runs-list.ts <runs.db holding one full run>
 * [rounds]` (e.g. made by `cli experiment --runs-db`). Writes /tmp/listbench-200.db.
 */
import { copyFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { openSqlite } from '../src-main/core/sqlite';
import { RunStore } from '../src-main/core/runs/store';
import { SqliteRunReader } from '../src-main/core/runs/reader';
import { runQueries } from '../src-main/core/runs/queries';

const src = process.argv[2];
if (src === undefined) throw new Error('usage: benchmarks/runs-list.ts <runs.db> [rounds]');
const out = '/tmp/listbench-200.db';
for (const ext of ['', '-wal', '-shm']) rmSync(out + ext, { force: true });
copyFileSync(src, out);
const db = openSqlite(out);
const base = (db.prepare('SELECT id FROM runs').get() as { id: string }).id;
const tables = ['run_samples', 'tests', 'answers', 'answer_scores', 'llm_calls'];
const cols = (t: string) =>
  (db.prepare(`PRAGMA table_info(${t})`).all() as Array<{ name: string }>).map((c) => c.name);
db.transaction(() => {
  for (let i = 1; i < 200; i++) {
    const id = `${base}-copy${String(i).padStart(3, '0')}`;
    const full = i < 10;
    const rc = cols('runs');
    db.prepare(
      `INSERT INTO runs (${rc.join(',')}) SELECT ${rc.map((c) => (c === 'id' ? '?' : c)).join(',')} FROM runs WHERE id = ?`,
    ).run(id, base);
    for (const t of tables) {
      const c = cols(t);
      db.prepare(
        `INSERT INTO ${t} (${c.join(',')}) SELECT ${c.map((x) => (x === 'run_id' ? '?' : x)).join(',')} FROM ${t}
         WHERE run_id = ? ${full || !c.includes('sample_id') ? '' : "AND sample_id = 'conv-26'"}`,
      ).run(id, base);
    }
  }
})();
if (cols('runs').includes('summary')) {
  // Back to schema 9, as a file from before this change.
  db.exec('ALTER TABLE runs DROP COLUMN summary');
  db.pragma('user_version = 9');
}
console.log(
  'built v%d with %d runs',
  db.pragma('user_version', { simple: true }),
  (db.prepare('SELECT count(*) n FROM runs').get() as { n: number }).n,
);
db.close();

const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
console.log('load before', load());
let t = performance.now();
const store = RunStore.open(out);
console.log(`migration 10 (backfill of 200 summaries): ${(performance.now() - t).toFixed(0)} ms`);
store.close();
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
