import { rmSync } from 'node:fs';
import { openSqlite } from '../src-main/core/sqlite';
import { writeRunSummary } from '../src-main/core/runs/summaries';

/** Issue 26's workbench at full size: 200 runs, 10 of them full LoCoMo runs, the rest one sample. */
export const MANY_RUNS = 200;
const FULL_EVERY = 20;
/** The sample every small run keeps. */
const SMALL_SAMPLE = 'conv-26';

export interface ManyRuns {
  file: string;
  /** Newest first, as the Runs list shows them. */
  runIds: string[];
  /** The full runs, newest first; the second newest run is one, so it shows without scrolling. */
  fullRunIds: string[];
  /** Computing and storing every copy's summary (what the runs DB does when a run stops). */
  summariesMs: number;
}

/**
 * Copies a runs DB holding one full LoCoMo run (`cli experiment --runs-db`) to `out` and fills it
 * to MANY_RUNS runs: every FULL_EVERY-th run (the second newest first) a full copy, the others
 * one sample. Each copy is created a minute before the one above it and stores its own summary,
 * so the list reads as a real one (a one-sample run's F1 is its sample's).
 */
export function buildManyRunsDb(src: string, out: string): ManyRuns {
  for (const ext of ['', '-wal', '-shm']) rmSync(out + ext, { force: true });
  const source = openSqlite(src, { readonly: true });
  // VACUUM INTO reads through the WAL: a plain file copy could miss the run's last writes.
  source.prepare('VACUUM INTO ?').run(out);
  source.close();

  const db = openSqlite(out);
  const base = db.prepare('SELECT id, created_at, started_at, ended_at FROM runs').get() as {
    id: string;
    created_at: string;
    started_at: string;
    ended_at: string | null;
  };
  const cols = (t: string) =>
    (db.prepare(`PRAGMA table_info(${t})`).all() as Array<{ name: string }>).map((c) => c.name);
  const tables = ['run_samples', 'tests', 'answers', 'answer_scores', 'llm_calls'];
  const shift = (iso: string, minutes: number) =>
    new Date(Date.parse(iso) - minutes * 60_000).toISOString();
  const runIds: string[] = [];
  const fullRunIds: string[] = [];
  let summariesMs = 0;
  db.transaction(() => {
    for (let position = 0; position < MANY_RUNS; position++) {
      const full = position % FULL_EVERY === 1;
      const id = position === 1 ? base.id : `${base.id}-copy${String(position).padStart(3, '0')}`;
      runIds.push(id);
      if (full) fullRunIds.push(id);
      if (id !== base.id) {
        const rc = cols('runs');
        db.prepare(
          `INSERT INTO runs (${rc.join(',')}) SELECT ${rc.map((c) => (c === 'id' ? '?' : c)).join(',')} FROM runs WHERE id = ?`,
        ).run(id, base.id);
        for (const t of tables) {
          const c = cols(t);
          db.prepare(
            `INSERT INTO ${t} (${c.join(',')}) SELECT ${c.map((x) => (x === 'run_id' ? '?' : x)).join(',')} FROM ${t}
             WHERE run_id = ? ${full || !c.includes('sample_id') ? '' : `AND sample_id = '${SMALL_SAMPLE}'`}`,
          ).run(id, base.id);
        }
      }
      db.prepare('UPDATE runs SET created_at = ?, started_at = ?, ended_at = ? WHERE id = ?').run(
        shift(base.created_at, position - 1),
        shift(base.started_at, position - 1),
        base.ended_at === null ? null : shift(base.ended_at, position - 1),
        id,
      );
      const t = performance.now();
      const summary = id === base.id ? null : writeRunSummary(db, out, id);
      summariesMs += performance.now() - t;
      // A one-sample copy left the other samples out by choice: its manifest says so, or the run
      // view would flag the missing questions as never answered, as after a crash.
      if (summary !== null && !full) {
        db.prepare(
          `UPDATE runs SET manifest = json_set(manifest, '$.coverage.notSelected',
             json_extract(manifest, '$.coverage.datasetQuestions')
             - json_extract(manifest, '$.coverage.noEvidenceExcluded') - ?) WHERE id = ?`,
        ).run(summary.questions, id);
      }
    }
  })();
  db.close();
  return { file: out, runIds, fullRunIds, summariesMs };
}
