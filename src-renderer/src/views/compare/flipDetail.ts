import type { QuestionAcrossRuns } from '@shared/api';
import type { CompareMetric } from '@shared/compare';
import type { Sample } from '@shared/dataset/types';
import { retrievedView, type RetrievedRow } from '../runs/shape';
import { stepKey } from '../../lib/rowKeys';

/**
 * "Why did it flip?": one question's answer in each compared run, laid out so the difference
 * can be read off: the score and recall@k against the baseline, which evidence turns each run
 * found (at what rank) or missed, and the judge's verdict.
 */

export interface EvidenceHit {
  diaId: string;
  /** 1-based rank among the run's retrieved memories; null: not retrieved (missed). */
  rank: number | null;
}

export interface JudgeView {
  /** J: the share of repeats labelled CORRECT; null when the judge failed. */
  mean: number | null;
  labels: Array<'CORRECT' | 'WRONG'>;
  /** The judge's reason per repeat, where the run's judge cache kept it. */
  reasons: Array<string | null>;
  protocol: string | null;
  error: string | null;
}

export interface FlipSide {
  runId: string;
  label: string;
  isBaseline: boolean;
  /** False: the run has no answer for this question (shown as missing, never as wrong). */
  answered: boolean;
  prediction: string | null;
  error: string | null;
  score: number | null;
  /** Score minus the baseline's; null for the baseline or where either is unscored. */
  scoreDelta: number | null;
  k: number;
  recall: number | null;
  recallDelta: number | null;
  /** The question's evidence turns (null while the sample is unknown), found or missed. */
  evidence: EvidenceHit[] | null;
  retrieved: RetrievedRow[];
  judge: JudgeView | null;
  retrieveMs: number | null;
  answerMs: number | null;
}

const delta = (value: number | null, base: number | null): number | null =>
  value === null || base === null ? null : value - base;

export function flipSides(
  data: QuestionAcrossRuns,
  sample: Sample | null,
  metric: CompareMetric,
  baselineIndex: number,
): FlipSide[] {
  const base = data.runs[baselineIndex]?.answer ?? null;
  const baseScore = base ? (base.scores[metric] ?? null) : null;
  const baseRecall = base ? (base.scores['evidenceRecall'] ?? null) : null;
  return data.runs.map((side, i): FlipSide => {
    const answer = side.answer;
    const isBaseline = i === baselineIndex;
    if (answer === null) {
      return {
        runId: side.runId,
        label: side.label,
        isBaseline,
        answered: false,
        prediction: null,
        error: null,
        score: null,
        scoreDelta: null,
        k: side.topK,
        recall: null,
        recallDelta: null,
        evidence: null,
        retrieved: [],
        judge: null,
        retrieveMs: null,
        answerMs: null,
      };
    }
    const view = retrievedView(answer, sample);
    const ranks = new Map<string, number>();
    for (const row of view.rows)
      for (const diaId of row.diaIds) if (!ranks.has(diaId)) ranks.set(diaId, row.rank);
    const score = answer.scores[metric] ?? null;
    const recall = answer.scores['evidenceRecall'] ?? null;
    return {
      runId: side.runId,
      label: side.label,
      isBaseline,
      answered: true,
      prediction: answer.prediction,
      error: answer.error,
      score,
      scoreDelta: isBaseline ? null : delta(score, baseScore),
      k: side.topK,
      recall,
      recallDelta: isBaseline ? null : delta(recall, baseRecall),
      evidence:
        view.evidence === null
          ? null
          : view.evidence.map((diaId) => ({ diaId, rank: ranks.get(diaId) ?? null })),
      retrieved: view.rows,
      judge:
        answer.judge === null
          ? null
          : {
              mean: answer.judge.mean,
              labels: answer.judge.labels.map((l) => (l === 1 ? 'CORRECT' : 'WRONG')),
              reasons: answer.judge.labels.map((_, r) => side.judgeReasons?.[r] ?? null),
              protocol: side.judgeProtocol ?? answer.judge.protocol ?? null,
              error: answer.judge.error,
            },
      retrieveMs: answer.retrieveMs,
      answerMs: answer.answerMs,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Which question is open, and keyboard stepping through the filtered rows

/** The open question's key in the URL: `<sampleId>:<questionIndex>` (sample ids may hold ':'). */
export function openKey(sampleId: string, questionIndex: number): string {
  return `${sampleId}:${questionIndex}`;
}

export function parseOpenKey(
  key: string | null,
): { sampleId: string; questionIndex: number } | null {
  if (!key) return null;
  const cut = key.lastIndexOf(':');
  if (cut <= 0) return null;
  const questionIndex = Number(key.slice(cut + 1));
  if (!Number.isInteger(questionIndex) || questionIndex < 0) return null;
  return { sampleId: key.slice(0, cut), questionIndex };
}

/** The question `step` rows away from the open one among the rows shown (see stepKey). */
export function stepOpen(
  rows: ReadonlyArray<{ sampleId: string; questionIndex: number }>,
  open: string | null,
  step: 1 | -1,
): string | null {
  return stepKey(
    rows.map((r) => openKey(r.sampleId, r.questionIndex)),
    open,
    step,
  );
}

export type FlipKeyAction = 'next' | 'previous' | 'close' | 'improved' | 'regressed';

/**
 * j/k anywhere but in a text field, the arrows only when focus is in the questions table; i and
 * r toggle the improved and regressed filters, so "B is better: which questions?" needs no mouse.
 */
export function flipKeyAction(key: string, inTable: boolean): FlipKeyAction | null {
  if (key === 'i') return 'improved';
  if (key === 'r') return 'regressed';
  if (key === 'j' || (inTable && key === 'ArrowDown')) return 'next';
  if (key === 'k' || (inTable && key === 'ArrowUp')) return 'previous';
  if (key === 'Escape') return 'close';
  return null;
}
