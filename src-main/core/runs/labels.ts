import { WorkbenchError } from '../../../src-shared/errors';
import {
  type HumanLabel,
  type HumanLabelRow,
  type LabelAnswerKey,
  type LabelItem,
  type LabelSampleRequest,
  type LabellingSession,
} from '../../../src-shared/labels';
import { metricOf, metricScores } from '../../../src-shared/metrics';
import { writeTransaction } from './db';
import { drawLabelSample } from './labelSample';
import type { RunStore } from './store';

/**
 * Human labels in the runs DB (migration 15): a run's labelling sample (`label_plans`,
 * `label_sample`), drawn once and stored so every labeller meets the same answers in the same
 * order and can stop and resume, and the labels (`human_labels`), one per answer and labeller,
 * each written the moment it is given. Labels are keyed by the answer, not by the sample, so an
 * import may carry labels of answers outside this folder's sample.
 */

interface PlanRow {
  per_category: number;
  seed: number;
  created_at: string;
}

interface LabelRow {
  run_id: string;
  sample_id: string;
  test_index: number;
  question_index: number;
  category: number;
  labeller: string;
  label: HumanLabel;
  labelled_at: string;
}

const toLabel = (r: LabelRow): HumanLabelRow => ({
  runId: r.run_id,
  sampleId: r.sample_id,
  testIndex: r.test_index,
  questionIndex: r.question_index,
  category: r.category,
  labeller: r.labeller,
  label: r.label,
  labelledAt: r.labelled_at,
});

function requireRun(store: RunStore, runId: string, path: Array<string | number> = ['runId']) {
  if (!store.hasRun(runId))
    throw new WorkbenchError('NOT_FOUND', `run ${runId} is not in ${store.file}`, { path });
}

/** The categories the run's judge scores (the profile's rule, as a judge pass reads it). */
export function judgedCategories(store: RunStore, runId: string): Set<number> {
  const judge = metricOf('judge');
  return new Set(
    store
      .profileOf(runId)
      .categories.filter((c) => metricScores(judge, c))
      .map((c) => c.id),
  );
}

/**
 * The answers a labeller may be shown: final answers of the categories the run's judge scores,
 * without the errored ones (no prediction to judge: they are wrong for every judge and person).
 */
function labelCandidates(store: RunStore, runId: string) {
  const judged = judgedCategories(store, runId);
  return store.finalAnswers(runId).filter((a) => judged.has(a.category) && a.error === null);
}

function planOf(store: RunStore, runId: string): PlanRow | undefined {
  return store.db
    .prepare('SELECT per_category, seed, created_at FROM label_plans WHERE run_id = ?')
    .get(runId) as PlanRow | undefined;
}

/**
 * Draws and stores a run's labelling sample. A run has one sample: asking again with the same
 * size and seed returns it; with others it is refused (CONFLICT), since labels already given
 * would stop matching a redrawn sample.
 */
export function createLabelSession(
  store: RunStore,
  runId: string,
  request: LabelSampleRequest,
  now: () => number = Date.now,
): LabellingSession {
  requireRun(store, runId);
  if (store.getRun(runId).status === 'running')
    throw new WorkbenchError(
      'CONFLICT',
      `run ${runId} is running; label it when it ends (its final answers may still change)`,
      { path: ['runId'] },
    );
  const existing = planOf(store, runId);
  if (existing !== undefined) {
    if (existing.per_category !== request.perCategory || existing.seed !== request.seed)
      throw new WorkbenchError(
        'CONFLICT',
        `run ${runId} already has a labelling sample (${existing.per_category} per category, seed ${existing.seed}); labels given to it would not match another one`,
        { path: ['perCategory'] },
      );
    return requireSession(store, runId);
  }
  const drawn = drawLabelSample(labelCandidates(store, runId), request);
  writeTransaction(store.db, store.file, () => {
    store.db
      .prepare(
        'INSERT INTO label_plans (run_id, per_category, seed, created_at) VALUES (?, ?, ?, ?)',
      )
      .run(runId, request.perCategory, request.seed, new Date(now()).toISOString());
    const insert = store.db.prepare(
      'INSERT INTO label_sample (run_id, position, sample_id, test_index, question_index) VALUES (?, ?, ?, ?, ?)',
    );
    drawn.forEach((k, i) => insert.run(runId, i, k.sampleId, k.testIndex, k.questionIndex));
  });
  return requireSession(store, runId);
}

function requireSession(store: RunStore, runId: string, labeller?: string): LabellingSession {
  const session = labellingSession(store, runId, labeller);
  if (session === null) throw new Error(`run ${runId}: its labelling sample was just stored`);
  return session;
}

/** A run's labelling sample with `labeller`'s labels so far; null when none was drawn. */
export function labellingSession(
  store: RunStore,
  runId: string,
  labeller?: string,
): LabellingSession | null {
  requireRun(store, runId);
  const plan = planOf(store, runId);
  if (plan === undefined) return null;
  const rows = store.db
    .prepare(
      `SELECT s.sample_id, s.test_index, s.question_index, a.category, a.question, a.gold,
         a.prediction, h.label
       FROM label_sample s
       JOIN answers a ON a.run_id = s.run_id AND a.sample_id = s.sample_id
         AND a.test_index = s.test_index AND a.question_index = s.question_index
       LEFT JOIN human_labels h ON h.run_id = s.run_id AND h.sample_id = s.sample_id
         AND h.test_index = s.test_index AND h.question_index = s.question_index AND h.labeller = ?
       WHERE s.run_id = ? ORDER BY s.position`,
    )
    .all(labeller ?? null, runId) as Array<{
    sample_id: string;
    test_index: number;
    question_index: number;
    category: number;
    question: string;
    gold: string | null;
    prediction: string;
    label: HumanLabel | null;
  }>;
  const items: LabelItem[] = rows.map((r) => ({
    sampleId: r.sample_id,
    testIndex: r.test_index,
    questionIndex: r.question_index,
    category: r.category,
    question: r.question,
    gold: r.gold,
    prediction: r.prediction,
  }));
  const labels = rows.map((r) => r.label);
  const next = labels.indexOf(null);
  return {
    runId,
    perCategory: plan.per_category,
    seed: plan.seed,
    createdAt: plan.created_at,
    items,
    labels,
    next: next === -1 ? items.length : next,
  };
}

/** The test that holds a question's final answer, or undefined when the run never asked it. */
function finalTestOf(store: RunStore, runId: string, key: LabelAnswerKey): number | undefined {
  const row = store.db
    .prepare(
      'SELECT MAX(test_index) AS t FROM answers WHERE run_id = ? AND sample_id = ? AND question_index = ?',
    )
    .get(runId, key.sampleId, key.questionIndex) as { t: number | null } | undefined;
  return row?.t ?? undefined;
}

function upsertLabel(store: RunStore, row: HumanLabelRow): void {
  // The later of two labels one labeller gave an answer wins (a re-import of an old file keeps
  // the newer label).
  store.db
    .prepare(
      `INSERT INTO human_labels (run_id, sample_id, test_index, question_index, labeller, label, labelled_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (run_id, sample_id, test_index, question_index, labeller) DO UPDATE SET
         label = excluded.label, labelled_at = excluded.labelled_at
       WHERE excluded.labelled_at >= human_labels.labelled_at`,
    )
    .run(
      row.runId,
      row.sampleId,
      row.testIndex,
      row.questionIndex,
      row.labeller,
      row.label,
      row.labelledAt,
    );
}

/** Saves one label at once (its own transaction): a closed window loses nothing given. */
export function saveLabel(
  store: RunStore,
  input: { runId: string; key: LabelAnswerKey; labeller: string; label: HumanLabel },
  now: () => number = Date.now,
): HumanLabelRow {
  requireRun(store, input.runId);
  const final = finalTestOf(store, input.runId, input.key);
  if (final !== input.key.testIndex)
    throw new WorkbenchError(
      'NOT_FOUND',
      `run ${input.runId} has no final answer ${input.key.sampleId} qa[${input.key.questionIndex}] at test ${input.key.testIndex}`,
      { path: ['key'] },
    );
  const category = (
    store.db
      .prepare(
        'SELECT category FROM answers WHERE run_id = ? AND sample_id = ? AND test_index = ? AND question_index = ?',
      )
      .get(input.runId, input.key.sampleId, input.key.testIndex, input.key.questionIndex) as {
      category: number;
    }
  ).category;
  const row: HumanLabelRow = {
    runId: input.runId,
    ...input.key,
    category,
    labeller: input.labeller,
    label: input.label,
    labelledAt: new Date(now()).toISOString(),
  };
  writeTransaction(store.db, store.file, () => upsertLabel(store, row));
  return row;
}

/** Every label of a run, by answer then labeller. */
export function humanLabels(store: RunStore, runId: string): HumanLabelRow[] {
  requireRun(store, runId);
  return (
    store.db
      .prepare(
        `SELECT h.*, a.category FROM human_labels h
         JOIN answers a ON a.run_id = h.run_id AND a.sample_id = h.sample_id
           AND a.test_index = h.test_index AND a.question_index = h.question_index
         WHERE h.run_id = ? ORDER BY h.sample_id, h.question_index, h.test_index, h.labeller`,
      )
      .all(runId) as LabelRow[]
  ).map(toLabel);
}

/**
 * Imports labels (a parsed CSV) in one transaction: all or none. Each row must name a run of
 * this database and one of its final answers, with that answer's category; the first row that
 * does not is refused, naming its CSV line and column.
 */
export function importLabels(
  store: RunStore,
  rows: ReadonlyArray<{ line: number; row: HumanLabelRow }>,
): { imported: number; runs: string[]; labellers: string[] } {
  const refuse = (line: number, column: string, message: string): never => {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `labels CSV row ${line}, column ${column}: ${message}`,
      {
        path: [line, column],
        where: `row ${line}, column ${column}`,
      },
    );
  };
  for (const { line, row } of rows) {
    if (!store.hasRun(row.runId))
      refuse(line, 'run_id', `run ${row.runId} is not in ${store.file}`);
    const final = finalTestOf(store, row.runId, row);
    if (final === undefined)
      refuse(
        line,
        'question_index',
        `run ${row.runId} has no question ${row.sampleId} qa[${row.questionIndex}]`,
      );
    if (final !== row.testIndex)
      refuse(
        line,
        'test_index',
        `the final answer of ${row.sampleId} qa[${row.questionIndex}] is at test ${final}`,
      );
    const { category } = store.db
      .prepare(
        'SELECT category FROM answers WHERE run_id = ? AND sample_id = ? AND test_index = ? AND question_index = ?',
      )
      .get(row.runId, row.sampleId, row.testIndex, row.questionIndex) as { category: number };
    if (category !== row.category)
      refuse(line, 'category', `the answer is of category ${category}, not ${row.category}`);
  }
  writeTransaction(store.db, store.file, () => {
    for (const { row } of rows) upsertLabel(store, row);
  });
  return {
    imported: rows.length,
    runs: [...new Set(rows.map((r) => r.row.runId))],
    labellers: [...new Set(rows.map((r) => r.row.labeller))],
  };
}
