import { runTitle } from '../../../src-shared/runs';
import { coverageNote } from '../../../src-shared/coverage';
import { PAPER_MARKUPS, paperTable, type PaperMarkup } from '../../../src-shared/paperTables';
import { allReportFormats } from '../../../src-shared/benchmarks';
import { table2Columns } from '../../../src-shared/compare';
import { finalAnswersOf } from '../../../src-shared/experiment';
import { labelFiguresText } from '../../../src-shared/labelFigures';
import { protocolJudgeTable, summaryTable, table2Line } from '../../core/runs/report';
import { UsageError, defineCommand } from '../command';
import { writeOutput } from '../output';
import { withRunsApi } from '../runsApi';
import { errataExtra } from '../runOutput';
import { parseScheme } from '../request';
import { JSON_OPTION, OUT_OPTION, RUNS_DB_OPTIONS, SCHEME_OPTION } from '../options';
import { judgePanelTable } from '../../core/runs/judgePanelReport';

/** The registered profiles' report formats (`reportFormats`): the ids `--format` takes. */
const formatIds = (): string =>
  allReportFormats()
    .map((f) => f.id)
    .join('|');

/** One help line per report format, from its profile's entry (its id, then its own help). */
const formatLines = (): string =>
  allReportFormats()
    .map((f) => `  ${f.id.padEnd(12)} ${f.help}`)
    .join('\n');

const DESCRIPTION = `Prints a run's final scores. Without --format: the per-category table of every metric, and why
n differs from the dataset's question count when it does. With --format: the run as one row of
a paper's table, to paste beside it:
${formatLines()}
A format lays out its own benchmark's categories: a run takes only its own benchmark's formats.
Cells without data show "–"; a footnote line gives n per column. The plain table is followed by
Mem0 Table 2's columns (search and total latency p50/p95, memory tokens per question, memory
LLM calls and tokens per conversation), J per judge when \`rescore --judge\` ran (each with its
interval and the judges' agreement), the human labels' agreement and each judge against them (with
J corrected by Rogan-Gladen) when the run has labels (\`labels\`), and by the scores against the
original and the corrected gold with the per-category ceiling when the run applied errata
(\`experiment --errata\`). With --html: one self-contained HTML file to share (headline with 95%
bootstrap intervals, per-category table and chart, curve, low-scored answers, the manifest),
readable offline with no script and no external link. With two to eight runs and --html: their
comparison against the first (per-category means with intervals and deltas with paired bootstrap
intervals, bars with whiskers, each run's curve, the flipped questions each with why it flipped,
both manifests and their differences, the tables as LaTeX for a column).`;

/** A paper's row as Markdown unless --as says LaTeX. */
const DEFAULT_MARKUP: PaperMarkup = 'md';

function oneOf<T extends string>(flag: string, allowed: readonly T[], value: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${flag} must be one of ${allowed.join(', ')} (got "${value}")`);
}

export const reportCommand = defineCommand({
  summary: "print a run's scores, plain or in the LoCoMo / Mem0 papers' table formats",
  usage: `usage: npm run -s cli -- report <run id> [--format <format> [--as <markup>]] [options]
       npm run -s cli -- report <run id> --html [--out <file>]
       npm run -s cli -- report <baseline run id> <run id>... --html [--out <file>]`,
  description: DESCRIPTION,
  options: {
    format: {
      type: 'string',
      help: "a paper's table layout",
      choices: () => allReportFormats().map((f) => f.id),
    },
    html: {
      type: 'boolean',
      help: 'a self-contained HTML report instead of text (official category names)',
    },
    out: { ...OUT_OPTION.out, help: 'with --html: write it to a file', absent: 'stdout' },
    as: {
      type: 'string',
      help: 'with --format: Markdown or a LaTeX tabular (needs booktabs)',
      choices: () => PAPER_MARKUPS,
      absent: DEFAULT_MARKUP,
    },
    ...SCHEME_OPTION,
    json: {
      ...JSON_OPTION.json,
      help: "print one JSON object: the run's summary, J per judge and the judges' agreement",
    },
    ...RUNS_DB_OPTIONS,
  },
  async run({ values, positionals }, io) {
    const comparing = values.html === true && positionals.length >= 2;
    if (positionals.length !== 1 && !comparing)
      throw new UsageError('report takes one run id (two to eight with --html: a comparison)');
    const format =
      values.format === undefined
        ? null
        : oneOf(
            '--format',
            allReportFormats().map((f) => f.id),
            values.format,
          );
    if (format === null && values.as !== undefined)
      throw new UsageError(`--as needs --format ${formatIds()}`);
    if (values.html === true && format !== null)
      throw new UsageError('--html and --format are two layouts: give one');
    if (values.json === true && (values.html === true || format !== null))
      throw new UsageError('--json is the plain report as JSON: not with --html or --format');
    if (values.out !== undefined && values.html !== true)
      throw new UsageError('--out needs --html');
    const as = oneOf<PaperMarkup>('--as', PAPER_MARKUPS, values.as ?? DEFAULT_MARKUP);
    const scheme = parseScheme(values.scheme);
    return withRunsApi(values, async (api) => {
      if (comparing) {
        const runIds = positionals as string[];
        // The export the Compare view downloads: flips explained, manifests, curves, the dataset's gold.
        const { content } = await api.call('runs.compareExport', {
          runIds,
          baselineRunId: runIds[0]!,
          format: 'html',
        });
        writeOutput(io, values.out, content, 'report');
        return 0;
      }
      if (values.html === true) {
        const { content: html } = await api.call('runs.export', {
          runId: positionals[0] as string,
          format: 'html',
        });
        writeOutput(io, values.out, html, 'report');
        return 0;
      }
      const {
        info: run,
        summary,
        benchmark: profile,
        judgeProtocols,
        judgePanel,
        errata,
      } = await api.call('runs.get', {
        runId: positionals[0] as string,
      });
      if (values.json === true) {
        io.stdout(
          `${JSON.stringify({ runId: run.id, summary, judgeProtocols, judgePanel: judgePanel ?? null })}\n`,
        );
        return 0;
      }
      if (format !== null) {
        io.stdout(paperTable(summary, { format, as, label: runTitle(run), profile }));
        return 0;
      }
      io.stdout(summaryTable(summary, scheme, profile));
      const answers = finalAnswersOf(
        await api.call('runs.answers', { runId: positionals[0] as string }),
      );
      io.stdout(table2Line(table2Columns(run.manifest.usage?.memory, answers)));
      io.stdout(protocolJudgeTable(judgeProtocols, scheme, profile));
      // Beside the per-category table: each judge's J with its interval, and their agreement.
      if (judgeProtocols.length > 0) io.stdout(judgePanelTable(judgePanel));
      io.stdout(labelFiguresText(await api.call('labels.agreement', { runId: run.id })));
      if (errata) io.stdout(errataExtra(errata, scheme, profile).text);
      const coverage = coverageNote(run.manifest, summary);
      if (coverage) io.stdout(`${coverage.text}\n`);
      return 0;
    });
  },
});
