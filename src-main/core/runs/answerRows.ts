import {
  benchmarkCategory,
  benchmarkProfile,
  type BenchmarkProfile,
} from '../../../src-shared/benchmarks';
import { metricsOf, metricScores, type Scores } from '../../../src-shared/metrics';
import { WorkbenchError } from '../../../src-shared/errors';
import {
  ScoringRankingSchema,
  type AnswerRecord,
  type JudgeScore,
} from '../../../src-shared/experiment';
import type { SqliteDatabase } from '../sqlite';
import { JudgeLabelsSchema, parseManifest, parseRetrieved, parseStoredJson } from './stored';

/**
 * Answer rows into AnswerRecords, and the reads a run's summary needs: below the reader, so the
 * migration that backfills stored summaries (db.ts) computes them with the finish path's code.
 */

export interface AnswerRow {
  sample_id: string;
  test_index: number;
  question_index: number;
  category: number;
  question: string;
  gold: string | null;
  prediction: string;
  retrieved: string;
  retrieve_ms: number;
  answer_ms: number;
  error: string | null;
  judge_std: number | null;
  judge_labels: string | null;
  judge_error: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  memory_tokens: number | null;
  /** Absent when read at a schema before it (migration 10's backfill). */
  scoring_ranking?: string | null;
}

/**
 * What a read of answers needs: `retrieved: false` reads every column but the retrieved memories,
 * as an empty list. They are most of a run's bytes (3.3 KB an answer, 11.5k answers in a full
 * LoCoMo run), and the scoring reads (the curve, the bootstrap intervals) never look at them.
 */
export interface AnswerReadOptions {
  retrieved?: boolean;
}

/**
 * The answers columns to select under `alias`; see AnswerReadOptions. A full read stays `alias.*`:
 * migration 10's backfill reads answers at schema 10, before later migrations added columns.
 */
export function answerColumns(alias: string, { retrieved = true }: AnswerReadOptions = {}): string {
  if (retrieved) return `${alias}.*`;
  return ANSWER_COLUMNS.map((c) =>
    c === 'retrieved' ? "'[]' AS retrieved" : `${alias}.${c}`,
  ).join(', ');
}

export const ANSWER_COLUMNS = [
  'sample_id',
  'test_index',
  'question_index',
  'category',
  'question',
  'gold',
  'prediction',
  'retrieved',
  'retrieve_ms',
  'answer_ms',
  'error',
  'judge_std',
  'judge_labels',
  'judge_error',
  'prompt_tokens',
  'completion_tokens',
  'memory_tokens',
  'scoring_ranking',
] as const satisfies ReadonlyArray<keyof AnswerRow>;

export interface ScoreRow {
  sample_id: string;
  test_index: number;
  question_index: number;
  metric: string;
  value: number | null;
}

export const answerKey = (sampleId: string, testIndex: number, questionIndex: number): string =>
  `${sampleId}\u0000${testIndex}\u0000${questionIndex}`;

export function groupScores(rows: readonly ScoreRow[]): Map<string, Scores> {
  const out = new Map<string, Scores>();
  for (const r of rows) {
    const key = answerKey(r.sample_id, r.test_index, r.question_index);
    let scores = out.get(key);
    if (!scores) out.set(key, (scores = {}));
    scores[r.metric] = r.value;
  }
  return out;
}

function answerWhere(file: string, r: AnswerRow, column: string): string {
  return `runs database ${file}: answer ${r.sample_id} test ${r.test_index} question ${r.question_index} ${column}`;
}

function judgeOf(file: string, r: AnswerRow, mean: number | null): JudgeScore | null {
  if (r.judge_labels === null && r.judge_error === null) return null;
  return {
    mean,
    std: r.judge_std,
    labels:
      r.judge_labels === null
        ? []
        : parseStoredJson(JudgeLabelsSchema, r.judge_labels, answerWhere(file, r, 'judge_labels')),
    error: r.judge_error,
  };
}

export function toAnswer(
  file: string,
  r: AnswerRow,
  stored: Scores | undefined,
  profile: BenchmarkProfile,
): AnswerRecord {
  const category = benchmarkCategory(profile, r.category);
  const scores: Scores = { ...stored };
  for (const metric of metricsOf(profile)) {
    if (metric.id in scores) continue;
    // A metric with no row: either it does not score the category, or the row predates it. An
    // answer metric is a pure function of what the row holds, so compute it rather than show a
    // hole (rows from before schema 3 have no set F1 or BLEU-1).
    scores[metric.id] =
      metric.source === 'answer' && metric.score && metricScores(metric, category)
        ? metric.score({
            prediction: r.prediction,
            gold: r.gold,
            category,
            evidence: [],
            retrieved: [],
            errored: r.error !== null,
          })
        : null;
  }
  return {
    sampleId: r.sample_id,
    testIndex: r.test_index,
    questionIndex: r.question_index,
    category: r.category,
    question: r.question,
    gold: r.gold,
    prediction: r.prediction,
    retrieved: parseRetrieved(r.retrieved, answerWhere(file, r, 'retrieved')),
    scores,
    retrieveMs: r.retrieve_ms,
    answerMs: r.answer_ms,
    error: r.error,
    judge: judgeOf(file, r, scores['judge'] ?? null),
    usage:
      r.prompt_tokens === null && r.completion_tokens === null
        ? null
        : { promptTokens: r.prompt_tokens ?? 0, completionTokens: r.completion_tokens ?? 0 },
    memoryTokens: r.memory_tokens,
    scoringRanking:
      r.scoring_ranking === null || r.scoring_ranking === undefined
        ? null
        : parseStoredJson(
            ScoringRankingSchema,
            r.scoring_ranking,
            answerWhere(file, r, 'scoring_ranking'),
          ),
  };
}

/** The benchmark profile of a run's dataset: it names the categories and says what scores them. */
export function runProfile(db: SqliteDatabase, file: string, runId: string): BenchmarkProfile {
  const row = db.prepare('SELECT manifest FROM runs WHERE id = ?').get(runId) as
    { manifest: string } | undefined;
  if (!row) {
    throw new WorkbenchError('NOT_FOUND', `no run ${runId} in ${file}`, { where: file });
  }
  return benchmarkProfile(parseManifest(file, runId, row.manifest).dataset.format);
}

const FINAL_ANSWER_KEYS = `SELECT sample_id, question_index, MAX(test_index) AS last_test FROM answers
  WHERE run_id = ? GROUP BY sample_id, question_index`;

/** How many questions a run has a final answer to. */
export function countFinalAnswers(db: SqliteDatabase, runId: string): number {
  return (
    db.prepare(`SELECT count(*) AS n FROM (${FINAL_ANSWER_KEYS})`).get(runId) as { n: number }
  ).n;
}

/**
 * The headline: each question's answer at the last test that asked it, by sample and question;
 * `page` takes a slice of that order (a limit of -1: to the end).
 */
export function readFinalAnswers(
  db: SqliteDatabase,
  file: string,
  runId: string,
  profile: BenchmarkProfile,
  page: { offset: number; limit: number } = { offset: 0, limit: -1 },
  options: AnswerReadOptions = {},
): AnswerRecord[] {
  const pageRows = `SELECT ${answerColumns('a', options)} FROM answers a
    JOIN (${FINAL_ANSWER_KEYS}) f
      ON a.sample_id = f.sample_id AND a.question_index = f.question_index AND a.test_index = f.last_test
    WHERE a.run_id = ?
    ORDER BY a.sample_id, a.question_index LIMIT ? OFFSET ?`;
  const rows = db.prepare(pageRows).all(runId, runId, page.limit, page.offset) as AnswerRow[];
  const scores = groupScores(
    db
      .prepare(
        `WITH page AS (${pageRows})
         SELECT s.sample_id, s.test_index, s.question_index, s.metric, s.value FROM answer_scores s
         JOIN page p ON s.sample_id = p.sample_id AND s.test_index = p.test_index
           AND s.question_index = p.question_index
         WHERE s.run_id = ?`,
      )
      .all(runId, runId, page.limit, page.offset, runId) as ScoreRow[],
  );
  return rows.map((r) =>
    toAnswer(file, r, scores.get(answerKey(r.sample_id, r.test_index, r.question_index)), profile),
  );
}
