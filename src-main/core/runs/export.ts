import type { AnswerRecord, RunStatus } from '../../../src-shared/experiment';
import type { RunManifest } from './manifest';
import type { RunReader } from './reader';

/** Run exports: JSON (manifest, final answers, per-test answers) and CSV (final answers). */

export const EXPORT_FORMATS = ['json', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportedAnswer {
  sampleId: string;
  questionIndex: number;
  category: number;
  question: string;
  gold: string | null;
  prediction: string;
  officialF1: number;
  /** Mem0-style, categories 1-4 (null for category 5). */
  setF1: number | null;
  bleu1: number | null;
  /** LLM judge: share of repeats CORRECT, its std over repeats, and why it failed. */
  judgeMean: number | null;
  judgeStd: number | null;
  judgeError: string | null;
  evidenceRecall: number | null;
  /** Tokens the answerer's call used; null when it reported none. */
  promptTokens: number | null;
  completionTokens: number | null;
  /** Retrieved turn ids (dia ids where the memory is a turn, else the memory id), best first. */
  retrieved: string[];
  error: string | null;
}

export interface RunExport {
  run: RunManifest & { status: RunStatus };
  /** Each question's answer at its final test: the headline. */
  answers: ExportedAnswer[];
  testAnswers: Array<ExportedAnswer & { testIndex: number; retrieveMs: number; answerMs: number }>;
}

function exported(a: AnswerRecord): ExportedAnswer {
  return {
    sampleId: a.sampleId,
    questionIndex: a.questionIndex,
    category: a.category,
    question: a.question,
    gold: a.gold,
    prediction: a.prediction,
    officialF1: a.officialF1,
    evidenceRecall: a.evidenceRecall,
    retrieved: a.retrieved.map((r) => r.diaId ?? r.id),
    error: a.error,
    setF1: a.setF1,
    bleu1: a.bleu1,
    judgeMean: a.judge?.mean ?? null,
    judgeStd: a.judge?.std ?? null,
    judgeError: a.judge?.error ?? null,
    promptTokens: a.usage?.promptTokens ?? null,
    completionTokens: a.usage?.completionTokens ?? null,
  };
}

export function buildRunExport(store: RunReader, runId: string): RunExport {
  const run = store.getRun(runId);
  return {
    run: { ...run.manifest, status: run.status },
    answers: store.finalAnswers(runId).map(exported),
    testAnswers: store.answersByTest(runId).map((a) => ({
      ...exported(a),
      testIndex: a.testIndex,
      retrieveMs: a.retrieveMs,
      answerMs: a.answerMs,
    })),
  };
}

export const CSV_COLUMNS = [
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
  // Appended, so readers of the original ten columns keep working.
  'setF1',
  'bleu1',
  'judgeMean',
  'judgeStd',
  'judgeError',
  'promptTokens',
  'completionTokens',
] as const;

/** RFC 4180: quote fields holding a comma, quote, CR or LF; double inner quotes. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function finalAnswersCsv(answers: readonly ExportedAnswer[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const a of answers) {
    lines.push(
      CSV_COLUMNS.map((c) => csvField(c === 'retrieved' ? a.retrieved.join(' ') : a[c])).join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

export function exportRun(store: RunReader, runId: string, format: ExportFormat): string {
  const data = buildRunExport(store, runId);
  return format === 'json' ? `${JSON.stringify(data, null, 2)}\n` : finalAnswersCsv(data.answers);
}
