import type { JudgeIdentity } from '../../../src-shared/judges';
import { judgeKey } from '../../../src-shared/judges';
import type { ProtocolJudgeSummary } from '../../../src-shared/rescore';
import type { SqliteDatabase } from '../sqlite';
import { parseStoredJson } from './stored';
import { z } from 'zod';

/**
 * Reads of `protocol_judge_scores` (the verdicts of the judges `rescore --judge` and `experiment
 * --judge` ran beside a run's own J), grouped by judge identity (src-shared/judges.ts).
 */

/** One judge's verdict on one final answer: `labels` one per repeat (1 CORRECT, 0 WRONG). */
export interface StoredJudgeVerdict {
  sampleId: string;
  questionIndex: number;
  category: number;
  mean: number | null;
  labels: number[];
}

const LabelsSchema = z.array(z.number());

/** J per judge and category, judges in protocol, model, origin, repeats order. */
export function readProtocolJudges(db: SqliteDatabase, runId: string): ProtocolJudgeSummary[] {
  const rows = db
    .prepare(
      `SELECT p.protocol, p.model, p.origin, p.repeats, MAX(p.prompt_sha256) AS sha, a.category,
         AVG(p.mean) AS mean, COUNT(p.mean) AS n, SUM(p.error IS NOT NULL) AS errors,
         SUM(p.unparseable) AS unparseable
       FROM protocol_judge_scores p
       JOIN answers a ON a.run_id = p.run_id AND a.sample_id = p.sample_id
         AND a.test_index = p.test_index AND a.question_index = p.question_index
       WHERE p.run_id = ?
       GROUP BY p.protocol, p.model, p.origin, p.repeats, a.category
       ORDER BY p.protocol, p.model, p.origin, p.repeats, a.category`,
    )
    .all(runId) as Array<
    JudgeIdentity & {
      sha: string;
      category: number;
      mean: number | null;
      n: number;
      errors: number;
      unparseable: number;
    }
  >;
  const byJudge = new Map<string, ProtocolJudgeSummary>();
  for (const r of rows) {
    const key = judgeKey(r);
    let p = byJudge.get(key);
    if (!p) {
      p = {
        protocol: r.protocol,
        model: r.model,
        origin: r.origin,
        repeats: r.repeats,
        promptSha256: r.sha,
        byCategory: {},
        overall: { mean: 0, n: 0 },
        errors: 0,
        unparseable: 0,
      };
      byJudge.set(key, p);
    }
    if (r.mean !== null && r.n > 0) {
      p.byCategory[String(r.category)] = { mean: r.mean, n: r.n };
      const n = p.overall.n + r.n;
      p.overall = { mean: (p.overall.mean * p.overall.n + r.mean * r.n) / n, n };
    }
    p.errors += r.errors;
    p.unparseable += r.unparseable;
  }
  return [...byJudge.values()];
}

/** Every verdict of one judge on the run's answers, by sample and question. */
export function readJudgeVerdicts(
  db: SqliteDatabase,
  file: string,
  runId: string,
  judge: JudgeIdentity,
): StoredJudgeVerdict[] {
  const rows = db
    .prepare(
      `SELECT p.sample_id AS sampleId, p.question_index AS questionIndex, a.category, p.mean,
         p.labels
       FROM protocol_judge_scores p
       JOIN answers a ON a.run_id = p.run_id AND a.sample_id = p.sample_id
         AND a.test_index = p.test_index AND a.question_index = p.question_index
       WHERE p.run_id = ? AND p.protocol = ? AND p.model = ? AND p.origin = ? AND p.repeats = ?
       ORDER BY p.sample_id, p.question_index, p.test_index`,
    )
    .all(runId, judge.protocol, judge.model, judge.origin, judge.repeats) as Array<
    Omit<StoredJudgeVerdict, 'labels'> & { labels: string }
  >;
  return rows.map((r) => ({
    ...r,
    labels: parseStoredJson(
      LabelsSchema,
      r.labels,
      `${file}: run ${runId} judge verdict labels (${r.sampleId} q${r.questionIndex})`,
    ),
  }));
}
