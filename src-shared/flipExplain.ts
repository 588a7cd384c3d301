import type { QuestionAcrossRuns } from './api';
import type { CompareMetric } from './compare';
import type { Sample, Turn } from './dataset/types';
import { citedTurnIds, type AnswerRecord } from './experiment';
import { runLetter } from './runPalette';

/**
 * "Why did it flip?": one question's answer in each compared run, laid out so the difference
 * can be read off: the score and recall@k against the baseline, which evidence turns each run
 * found (at what rank) or missed, and the judge's verdict.
 */

// The Compare view (src-renderer views/compare/FlipDetail.tsx) and the comparison HTML report
// (htmlCompareReport.ts) both read a flip through flipSides: one explanation, two surfaces.

export interface RetrievedRow {
  rank: number;
  id: string;
  diaId: string | null;
  /** Every turn the memory cites (a chunk's several, a turn's one); evidence counts on each. */
  diaIds: readonly string[];
  score: number;
  isEvidence: boolean;
  /** The turn as the dataset has it; null when the dataset is not open or the id is no turn. */
  turn: Turn | null;
  /** What the memory says: its turn's text, else the text the run stored (a Mem0 fact); null: unknown. */
  text: string | null;
}

export interface RetrievedView {
  rows: RetrievedRow[];
  /** The question's evidence, when the sample is known. */
  evidence: string[] | null;
  /** Evidence turns that were not retrieved (what recall@k misses). */
  missed: string[];
}

/** A sample's turns by dia_id; empty while the sample is unknown. */
export function turnsById(sample: Sample | null): Map<string, Turn> {
  const turns = new Map<string, Turn>();
  if (sample) for (const s of sample.sessions) for (const t of s.turns) turns.set(t.diaId, t);
  return turns;
}

/** Retrieved memories in rank order, each marked when it is one of the question's evidence turns. */
export function retrievedView(answer: AnswerRecord, sample: Sample | null): RetrievedView {
  const qa = sample?.qa.find((q) => q.index === answer.questionIndex) ?? null;
  const evidence = qa ? qa.evidence : null;
  const evidenceSet = new Set(evidence ?? []);
  const turns = turnsById(sample);
  const rows = answer.retrieved.map((r, i) => {
    const turn = r.diaId !== null ? (turns.get(r.diaId) ?? null) : null;
    return {
      rank: i + 1,
      id: r.id,
      diaId: r.diaId,
      diaIds: citedTurnIds(r),
      score: r.score,
      isEvidence: citedTurnIds(r).some((id) => evidenceSet.has(id)),
      turn,
      text: turn?.text ?? r.text ?? null,
    };
  });
  const retrievedIds = new Set(answer.retrieved.flatMap((r) => citedTurnIds(r)));
  return { rows, evidence, missed: (evidence ?? []).filter((id) => !retrievedIds.has(id)) };
}

export interface EvidenceHit {
  diaId: string;
  /** 1-based rank among the run's retrieved memories; null: not retrieved (missed). */
  rank: number | null;
  /** The turn as the dataset has it (a missed turn's text says what the run lost). */
  turn: { speaker: string; text: string } | null;
}

/**
 * Where a retrieved memory stands in the other run's list: the baseline for every other run,
 * the first other run for the baseline. Memories are matched by the turn they hold (item ids
 * differ between runs' collections), or by id where they hold no turn.
 */
export interface RankMove {
  /** The other run's letter (A, B, ...). */
  other: string;
  /** 1-based rank in the other run's list; null: not retrieved there. */
  otherRank: number | null;
  /** Places it moved from the baseline's list to the other run's (positive: up); null: absent. */
  shift: number | null;
}

export type FlipRetrievedRow = RetrievedRow & { move: RankMove | null };

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
  retrieved: FlipRetrievedRow[];
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
  return withRankMoves(sidesOf(data, sample, metric, baselineIndex), baselineIndex);
}

const memoryKey = (row: RetrievedRow): string =>
  row.diaId !== null ? `turn:${row.diaId}` : `id:${row.id}`;

/** Marks each retrieved memory with its rank in the other list (see RankMove). */
function withRankMoves(sides: FlipSide[], baselineIndex: number): FlipSide[] {
  const rankMaps = sides.map((side) => {
    const ranks = new Map<string, number>();
    for (const row of side.retrieved) {
      const key = memoryKey(row);
      if (!ranks.has(key)) ranks.set(key, row.rank);
    }
    return ranks;
  });
  const firstOther = sides.findIndex((s, i) => i !== baselineIndex && s.answered);
  return sides.map((side, i) => {
    const other = i === baselineIndex ? firstOther : baselineIndex;
    const otherRanks = rankMaps[other];
    if (!side.answered || other < 0 || !sides[other]?.answered || !otherRanks) return side;
    return {
      ...side,
      retrieved: side.retrieved.map((row) => {
        const otherRank = otherRanks.get(memoryKey(row)) ?? null;
        const shift =
          otherRank === null
            ? null
            : i === baselineIndex
              ? row.rank - otherRank
              : otherRank - row.rank;
        return { ...row, move: { other: runLetter(other), otherRank, shift } };
      }),
    };
  });
}

export interface RankMoveMark {
  /** "↑3 was #7" (B against A), "B #3 ↑4" (A's memory in B), "not in B". */
  text: string;
  title: string;
  tone: 'up' | 'down' | 'absent';
}

/** The mark beside a memory that moved between the lists; null where it kept its rank. */
export function rankMoveMark(move: RankMove | null, isBaseline: boolean): RankMoveMark | null {
  if (move === null) return null;
  if (move.otherRank === null || move.shift === null) {
    return {
      text: `not in ${move.other}`,
      title: `run ${move.other} did not retrieve this memory`,
      tone: 'absent',
    };
  }
  if (move.shift === 0) return null;
  const arrow = `${move.shift > 0 ? '↑' : '↓'}${Math.abs(move.shift)}`;
  return {
    text: isBaseline
      ? `${move.other} #${move.otherRank} ${arrow}`
      : `${arrow} was #${move.otherRank}`,
    title: `rank ${move.otherRank} in run ${move.other}`,
    tone: move.shift > 0 ? 'up' : 'down',
  };
}

function sidesOf(
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
    const turns = turnsById(sample);
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
          : view.evidence.map((diaId) => {
              const turn = turns.get(diaId);
              return {
                diaId,
                rank: ranks.get(diaId) ?? null,
                turn: turn ? { speaker: turn.speaker, text: turn.text } : null,
              };
            }),
      retrieved: view.rows.map((row) => ({ ...row, move: null })),
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
