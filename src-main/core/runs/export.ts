import {
  retrievedTurnIds,
  type AnswerRecord,
  type RunStatus,
} from '../../../src-shared/experiment';
import { type BenchmarkProfile } from '../../../src-shared/benchmarks';
import { csvField } from '../../../src-shared/csv';
import { runReportHtml } from '../../../src-shared/htmlReport';
import { runJudgePanel } from './judgePanel';
import { reportDataset } from './reportInputs';
import { judgeErrorLookupFor } from './judgeErrorLookup';
import { metricsOf } from '../../../src-shared/metrics';
import type { RunManifest } from './manifest';
import type { RunReader } from './reader';

// The one CSV cell writer lives in src-shared, so pure formatters (compareTable) use it too.
export { csvField };

/**
 * Run exports: JSON (manifest, final answers, per-test answers), CSV (final answers) and a
 * self-contained HTML report to share (src-shared/htmlReport.ts).
 */

export const EXPORT_FORMATS = ['json', 'csv', 'html'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

type Cell = string | number | boolean | string[] | null;

/**
 * One answer as exported: fixed fields plus one column per registered metric (named by the
 * metric's `exportKey`, else its id).
 */
export interface ExportedAnswer {
  [column: string]: Cell;
  sampleId: string;
  questionIndex: number;
  category: number;
  question: string;
  gold: string | null;
  prediction: string;
  /** Retrieved turn ids (dia ids where the memory is a turn, else the memory id), best first. */
  retrieved: string[];
  error: string | null;
  /** LLM judge: the std of its repeats and why it failed (its mean is the `judgeMean` metric column). */
  judgeStd: number | null;
  judgeError: string | null;
  /** Tokens the answerer's call used; null when it reported none. */
  promptTokens: number | null;
  completionTokens: number | null;
  /** Tokens of the retrieved context the answerer was given; null on runs from before they were counted. */
  memoryTokens: number | null;
  /**
   * Every turn id the retrieved memories cite, best first (a memory citing several turns gives
   * each): what evidence recall is measured on, where `retrieved` names each memory once.
   */
  retrievedTurnIds: string[];
  /**
   * The ranking metrics that read past the top-k were scored on (LongMemEval's retrieval
   * metrics), turn ids best first, so an export recomputes them as the run did; null where no
   * such metric scored the question or the run predates it.
   */
  scoringTurnIds: string[] | null;
  /** False: the memory returned fewer items before that depth, so those figures are lower bounds. */
  scoringDepthReached: boolean | null;
}

export interface RunExport {
  run: RunManifest & { status: RunStatus };
  /** Each question's answer at its final test: the headline. */
  answers: ExportedAnswer[];
  testAnswers: Array<ExportedAnswer & { testIndex: number; retrieveMs: number; answerMs: number }>;
}

const FIXED: Readonly<Record<string, (a: AnswerRecord) => Cell>> = {
  sampleId: (a) => a.sampleId,
  questionIndex: (a) => a.questionIndex,
  category: (a) => a.category,
  question: (a) => a.question,
  gold: (a) => a.gold,
  prediction: (a) => a.prediction,
  retrieved: (a) => a.retrieved.map((r) => r.diaId ?? r.id),
  error: (a) => a.error,
  judgeStd: (a) => a.judge?.std ?? null,
  judgeError: (a) => a.judge?.error ?? null,
  promptTokens: (a) => a.usage?.promptTokens ?? null,
  completionTokens: (a) => a.usage?.completionTokens ?? null,
  memoryTokens: (a) => a.memoryTokens ?? null,
  retrievedTurnIds: (a) => retrievedTurnIds(a.retrieved, a.retrieved.length),
  scoringTurnIds: (a) => a.scoringRanking?.turns ?? null,
  scoringDepthReached: (a) => a.scoringRanking?.reached ?? null,
};

/** Columns added after the metrics' ones, last, so every earlier column keeps its position. */
const APPENDED_COLUMNS = [
  'memoryTokens',
  'retrievedTurnIds',
  'scoringTurnIds',
  'scoringDepthReached',
] as const;

/**
 * The columns exports had before the metrics registry, in their order: CSV readers of the
 * original ten columns (and of the appended ones) keep working. Metrics the list does not name
 * are appended after it, in registry order.
 */
const ORIGINAL_COLUMNS = [
  'sampleId',
  'questionIndex',
  'category',
  'question',
  'gold',
  'prediction',
  'officialF1',
  'evidenceRecall',
  'retrieved',
  'error',
  'setF1',
  'bleu1',
  'judgeMean',
  'judgeStd',
  'judgeError',
  'promptTokens',
  'completionTokens',
] as const;

/** Export column name -> metric id, for every metric of the benchmark. */
function metricColumns(profile: BenchmarkProfile): Map<string, string> {
  return new Map(metricsOf(profile).map((m) => [m.exportKey ?? m.id, m.id]));
}

/** The export's columns: the original ones, then metrics registered since (the benchmark's own). */
export function exportColumns(profile: BenchmarkProfile): string[] {
  const original: readonly string[] = ORIGINAL_COLUMNS;
  const added = [...metricColumns(profile).keys()].filter((c) => !original.includes(c));
  return [...original, ...added, ...APPENDED_COLUMNS];
}

function exported(
  a: AnswerRecord,
  columns: readonly string[],
  metrics: Map<string, string>,
): ExportedAnswer {
  const out: Record<string, Cell> = {};
  for (const column of columns) {
    const fixed = FIXED[column];
    const metric = metrics.get(column);
    out[column] = fixed ? fixed(a) : metric === undefined ? null : (a.scores[metric] ?? null);
  }
  return out as ExportedAnswer;
}

export function buildRunExport(store: RunReader, runId: string): RunExport {
  const run = store.getRun(runId);
  const profile = store.profileOf(runId);
  const columns = exportColumns(profile);
  const metrics = metricColumns(profile);
  return {
    run: { ...run.manifest, status: run.status },
    answers: store.finalAnswers(runId).map((a) => exported(a, columns, metrics)),
    testAnswers: store.answersByTest(runId).map((a) => ({
      ...exported(a, columns, metrics),
      testIndex: a.testIndex,
      retrieveMs: a.retrieveMs,
      answerMs: a.answerMs,
    })),
  };
}

export function finalAnswersCsv(
  answers: readonly ExportedAnswer[],
  profile: BenchmarkProfile,
): string {
  const columns = exportColumns(profile);
  const lines = [columns.map(csvField).join(',')];
  for (const a of answers) {
    lines.push(
      columns
        .map((c) => {
          const cell = a[c] ?? null;
          if (typeof cell === 'boolean') return String(cell);
          return csvField(Array.isArray(cell) ? cell.join(' ') : cell);
        })
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

export function exportRun(store: RunReader, runId: string, format: ExportFormat): string {
  if (format === 'html') {
    const detail = {
      info: store.getRun(runId),
      summary: store.summary(runId),
      benchmark: store.profileOf(runId),
      curve: store.curve(runId),
      judgePanel: runJudgePanel(store, runId, judgeErrorLookupFor(store, runId)),
    };
    const answers = store.finalAnswers(runId);
    // Adversarial questions have no gold in the run; the dataset's adversarial_answer is shown.
    const goldless = new Set(answers.filter((a) => a.gold === null).map((a) => a.sampleId));
    const dataset = goldless.size > 0 ? reportDataset(detail.info.manifest, goldless) : null;
    return runReportHtml(detail, answers, 'official', dataset);
  }
  const data = buildRunExport(store, runId);
  return format === 'json'
    ? `${JSON.stringify(data, null, 2)}\n`
    : finalAnswersCsv(data.answers, store.profileOf(runId));
}

export const EXPORT_MIME_TYPES: Readonly<Record<ExportFormat, string>> = {
  json: 'application/json',
  csv: 'text/csv',
  html: 'text/html',
};
