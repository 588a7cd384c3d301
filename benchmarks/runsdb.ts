import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExperimentConfigSchema, type AnswerRecord } from '../src-shared/experiment';
import { integrityProblems } from '../src-main/core/runs/db';
import { repairRunsDb } from '../src-main/core/runs/repair';
import { RunStore } from '../src-main/core/runs/store';
import { openSqlite } from '../src-main/core/sqlite';
import { fmt, machineLine, writeSection } from './common';

const TARGET_MB = 100;
const REPEATS = 3;
const SAMPLES = Array.from({ length: 10 }, (_, i) => `conv-${i}`);
const TESTS = 10;

function answer(sampleId: string, testIndex: number, questionIndex: number): AnswerRecord {
  return {
    sampleId,
    testIndex,
    questionIndex,
    category: 4,
    question: `What did Caroline say about the thing number ${questionIndex} in session ${testIndex}?`,
    gold: 'some gold answer',
    prediction: 'a predicted answer text',
    retrieved: Array.from({ length: 10 }, (_, k) => ({
      id: `D${k}:${questionIndex}`,
      diaId: `D${k}:${questionIndex}`,
      score: (k + questionIndex) / 1000,
    })),
    scores: {
      officialF1: 0.5,
      evidenceRecall: 1,
      setF1: 0.5,
      bleu1: 0.5,
    },
    retrieveMs: 1.5,
    answerMs: 0.2,
    error: null,
    judge: null,
    usage: null,
  };
}

/** Runs shaped like full LoCoMo runs (10 samples, 10 tests each, re-asked questions) until ~100 MB. */
function buildRunsDb(file: string): number {
  const store = RunStore.open(file);
  let runs = 0;
  const size = (): number =>
    statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0);
  while (size() < TARGET_MB * 1024 * 1024) {
    const runId = `bench-${String(runs++).padStart(4, '0')}`;
    store.createRun(
      {
        manifestVersion: 1,
        runId,
        config: ExperimentConfigSchema.parse({ datasetPath: 'locomo10.json' }),
        configHash: 'h',
        dataset: { path: 'locomo10.json', sha256: null, bytes: null, format: 'locomo' },
        samples: SAMPLES,
        app: { version: '0', gitCommit: null },
        memory: { preset: 'hybrid', notes: [] },
        embedder: null,
        answerer: { kind: 'extractive', name: 'extractive' },
        seed: 42,
        parallel: 1,
        host: { platform: 'linux', arch: 'x64', node: process.version, cores: 2 },
        startedAt: new Date().toISOString(),
        endedAt: null,
        errors: { insert: 0, answer: 0 },
      },
      SAMPLES.map((sampleId) => ({
        sampleId,
        totalPackets: 300,
        totalQuestions: 200,
        threshold: 20,
        plannedTests: TESTS,
      })),
    );
    for (const sampleId of SAMPLES) {
      for (let t = 0; t < TESTS; t++) {
        const questionIndices = Array.from({ length: 20 * (t + 1) }, (_, q) => q);
        store.commitTest(runId, {
          sampleId,
          testIndex: t,
          packetIdx: t * 30,
          dialogsInserted: t * 60,
          visibleCount: questionIndices.length,
          questionIndices,
          answers: questionIndices.map((q) => answer(sampleId, t, q)),
        });
      }
    }
    store.finishRun(runId, 'completed');
  }
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  store.close();
  return runs;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function timed(f: () => void): number {
  const t = performance.now();
  f();
  return performance.now() - t;
}

/**
 * The cost of checking a runs DB for corruption, to choose when to check: quick_check and the
 * full integrity_check on a ~100 MB file (page cache warm, as on a second open), a plain open
 * (the check runs once per file per process, so this is what every later open costs), and
 * `runs repair` rebuilding the whole file.
 */
export async function runsDbSuite(_data: string, write: boolean, _extra: string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mw-bench-runsdb-'));
  try {
    const file = join(dir, 'runs.db');
    const buildMs = timed(() => buildRunsDb(file));
    const runs = RunStore.open(file).listRuns().length;
    const mb = statSync(file).size / 2 ** 20;
    const db = openSqlite(file, { readonly: true });
    const quick: number[] = [];
    const full: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      quick.push(timed(() => integrityProblems(db, 'quick_check')));
      full.push(timed(() => integrityProblems(db, 'integrity_check')));
    }
    db.close();
    const reopen: number[] = [];
    for (let i = 0; i < REPEATS; i++) reopen.push(timed(() => RunStore.open(file).close()));
    const copy = join(dir, 'copy.db');
    copyFileSync(file, copy);
    const repairMs = timed(() => repairRunsDb(copy, { force: true }));
    const body = `## Runs DB integrity (a ${fmt(mb, 1)} MB runs database)

${runs} runs shaped like full LoCoMo runs (10 samples x 10 tests), built in ${fmt(buildMs / 1000, 1)} s.
Median of ${REPEATS}, page cache warm.

| operation | ms |
|---|---:|
| \`PRAGMA quick_check\` | ${fmt(median(quick), 0)} |
| \`PRAGMA integrity_check\` | ${fmt(median(full), 0)} |
| \`RunStore.open\` after the first open in a process (no check) | ${fmt(median(reopen), 0)} |
| \`runs repair\` of the whole file (forced, nothing damaged) | ${fmt(repairMs, 0)} |

Policy: quick_check runs once per version of each runs DB file: a process that checked it (or
wrote to a file it checked) stamps its size and time in \`runs.db.checked\` as it closes it, and a later
command that finds them unchanged skips the check; \`runs repair\` runs the full integrity_check.

${machineLine()}
`;
    process.stdout.write(body);
    if (write) await writeSection('runsdb', body);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
