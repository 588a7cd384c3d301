import type { ApiOutput, ApiParsedInput, RunComparisonResult } from '../../../src-shared/api';
import {
  compareRuns,
  configDiff,
  onSharedQuestions,
  runCost,
  scoreIntervals,
  table2Columns,
  type RunComparison,
  type Table2Columns,
} from '../../../src-shared/compare';
import { errataScores, type RunErrata } from '../../../src-shared/errata';
import { fairnessWarnings } from '../../../src-shared/fairness';
import { WorkbenchError } from '../../../src-shared/errors';
import { listSweeps, sweepDetail } from './sweeps';
import { questionKey, runJudgeColumns, runJudgePanel } from './judgePanel';
import { judgeErrorLookupFor } from './judgeErrorLookup';
import { compareJudges } from '../../../src-shared/compareJudges';
import { EXPORT_MIME_TYPES, csvField, exportRun } from './export';
import type { RunReader } from './reader';
import { distinctRunNames } from '../../../src-shared/compareTable';
import { runLabel } from '../../../src-shared/runs';
import { compareReportHtml } from '../../../src-shared/htmlCompareReport';
import { compareReportExtras, questionsAcrossRuns } from './reportInputs';

/**
 * The API's read views of the runs database, each a pure function of a RunReader. They are what
 * the read worker serves (runs/readWorkers.ts), keyed by API method, so the main thread never runs
 * them; adding a view is one entry here and one name in READ_METHODS.
 */
export const READ_METHODS = [
  'runs.list',
  'runs.get',
  'runs.summary',
  'runs.answers',
  'runs.answersPage',
  'runs.export',
  'runs.compare',
  'runs.question',
  'runs.compareExport',
  'sweeps.list',
  'sweeps.get',
] as const;
export type ReadMethod = (typeof READ_METHODS)[number];

/**
 * Every view the read worker serves: these, and by name the read views of higher layers that its
 * entry (core/read-worker-entry.ts) composes: a reproduce pack's stored results, which read every
 * final answer of the pack's runs.
 */
export const WORKER_READ_METHODS = [...READ_METHODS, 'reproduce.results'] as const;
export type WorkerReadMethod = (typeof WORKER_READ_METHODS)[number];

export type RunQueries = {
  [K in ReadMethod]: (input: ApiParsedInput<K>) => ApiOutput<K>;
};

export function runQueries(reader: RunReader): RunQueries {
  const compare = ({
    runIds,
    baselineRunId,
    metric,
    seed,
  }: ApiParsedInput<'runs.compare'>): RunComparisonResult => {
    const baselineIndex = runIds.indexOf(baselineRunId);
    if (baselineIndex < 0) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `compare: the baseline ${baselineRunId} is not among the runs`,
        { path: ['baselineRunId'] },
      );
    }
    const infos = runIds.map((id) => reader.getRun(id));
    const answers = infos.map((info) => reader.finalAnswers(info.id));
    const shared = onSharedQuestions(
      infos.map((info, i) => ({
        runId: info.id,
        label: runLabel(info),
        answers: answers[i] ?? [],
      })),
    );
    const comparison = compareRuns(shared.runs, { metric, baselineIndex, seed });
    const judges = compareJudges(
      infos.map((info) => {
        const columns = runJudgeColumns(reader, info.id);
        return {
          questions: columns.answers.map((a) => ({
            key: questionKey(a.sampleId, a.questionIndex),
            cluster: a.sampleId,
          })),
          judges: columns.judges,
        };
      }),
      baselineIndex,
      judgeErrorLookupFor(reader, baselineRunId),
      { seed },
    );
    return {
      comparison,
      judges,
      configDiff: configDiff(infos.map((info) => info.manifest.config)),
      costs: infos.map((info, i) => runCost(info.id, info.manifest.usage, answers[i] ?? [])),
      fairness: fairnessWarnings(
        infos.map((info, i) => ({
          label: runLabel(info),
          topK: info.manifest.config.retrieval.topK,
          contextWords: info.manifest.config.retrieval.contextWords ?? null,
          answers: answers[i] ?? [],
        })),
        baselineIndex,
      ),
      questionSets: shared.questionSets,
      benchmark: reader.profileOf(baselineRunId),
    };
  };

  return {
    'runs.list': () => reader.listRuns(),
    'runs.get': ({ runId }) => ({
      info: reader.getRun(runId),
      benchmark: reader.profileOf(runId),
      summary: reader.summary(runId),
      curve: reader.curve(runId),
      judgeProtocols: reader.protocolJudges(runId),
      errata: runErrata(reader, runId),
      intervals: scoreIntervals(reader.finalAnswers(runId, { retrieved: false })),
      judgePanel: runJudgePanel(reader, runId, judgeErrorLookupFor(reader, runId)),
    }),
    // The live card's refetch: the detail without its costly parts, the curve and the bootstrap
    // intervals (2,000 resamples over every final answer), which the run view asks for once.
    'runs.summary': ({ runId }) => ({
      info: reader.getRun(runId),
      benchmark: reader.profileOf(runId),
      summary: reader.summary(runId),
      judgeProtocols: reader.protocolJudges(runId),
      errata: runErrata(reader, runId),
    }),
    'runs.answers': ({ runId }) => reader.finalAnswers(runId),
    'runs.answersPage': ({ runId, offset, limit }) => ({
      offset,
      ...reader.finalAnswersPage(runId, offset, limit),
    }),
    'runs.export': ({ runId, format }) => ({
      filename: `run-${runId}.${format}`,
      mimeType: EXPORT_MIME_TYPES[format],
      content: exportRun(reader, runId, format),
    }),
    'runs.compare': compare,
    'runs.question': ({ runIds, sampleId, questionIndex }) =>
      questionsAcrossRuns(reader, runIds, [{ sampleId, questionIndex }])[0]!,
    'runs.compareExport': ({ runIds, baselineRunId, metric, format }) => {
      const result = compare({ runIds, baselineRunId, metric, seed: 0 });
      const stem = `compare-${runIds.join('-vs-')}`;
      if (format === 'json') {
        return {
          filename: `${stem}.json`,
          mimeType: 'application/json',
          content: JSON.stringify(result, null, 2),
        };
      }
      if (format === 'html') {
        return {
          filename: `${stem}.html`,
          mimeType: EXPORT_MIME_TYPES.html,
          content: compareReportHtml(result, compareReportExtras(reader, result, runIds)),
        };
      }
      return {
        filename: `${stem}.csv`,
        mimeType: 'text/csv',
        content: comparisonCsv(result.comparison),
      };
    },
    'sweeps.list': () => listSweeps(reader),
    'sweeps.get': ({ sweepId }) => sweepDetail(reader, sweepId),
  };
}

/** A run's scores both ways when its manifest applies errata (issue 12 item 7); null without. */
export function runErrata(reader: RunReader, runId: string): RunErrata | null {
  const { errata } = reader.getRun(runId).manifest;
  if (!errata) return null;
  const scores = errataScores(reader.finalAnswers(runId), errata.entries, reader.profileOf(runId));
  return { ...errata, ...scores };
}

/** One row per question: each run's prediction, score and flip against the baseline. */
export function comparisonCsv(comparison: RunComparison): string {
  const header = ['sampleId', 'questionIndex', 'category', 'question', 'gold'];
  // Headed by the runs' names (ids only where two would share one).
  const names = distinctRunNames(comparison.runs);
  names.forEach((name, i) => {
    header.push(`prediction[${name}]`, `${comparison.metric}[${name}]`);
    if (i !== comparison.baselineIndex) header.push(`flip[${name}]`);
  });
  const lines = [header.map(csvField).join(',')];
  for (const row of comparison.rows) {
    const fields: Array<string | number | null> = [
      row.sampleId,
      row.questionIndex,
      row.category,
      row.question,
      row.gold,
    ];
    row.cells.forEach((cell, i) => {
      fields.push(cell?.prediction ?? null, cell?.score ?? null);
      if (i !== comparison.baselineIndex) fields.push(row.flips[i] ?? null);
    });
    lines.push(fields.map(csvField).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** Mem0 Table 2's columns of one run, over its final answers (what `runs.compare`'s costs hold). */
export function runTable2(reader: RunReader, runId: string): Table2Columns {
  return table2Columns(reader.getRun(runId).manifest.usage?.memory, reader.finalAnswers(runId));
}
