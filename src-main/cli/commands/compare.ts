import {
  COMPARE_MARKUPS,
  compareTable,
  type CompareMarkup,
} from '../../../src-shared/compareTable';
import { DEFAULT_COMPARE_METRIC, DEFAULT_COMPARE_SEED } from '../../../src-shared/compare';
import { metricIds } from '../../../src-shared/metrics';
import { runName } from '../../../src-shared/runs';
import { UsageError, defineCommand } from '../command';
import { printable } from '../output';
import { withRunsApi } from '../runsApi';
import { parseScheme } from '../request';
import { JSON_OPTION, RUNS_DB_OPTIONS, SCHEME_OPTION } from '../options';

const DESCRIPTION = `Compares 2 to 8 runs question by question, as the Compare view does (the same runs.compare
call): per category each run's mean and, against the baseline, the delta with its paired
bootstrap 95% interval, the interval with whole conversations resampled, McNemar's exact test,
the smallest difference this n detects; then the flips per run and the warnings when the runs
are not compared on equal terms (top_k, context size, question sets); then Mem0 Table 2's columns
per run, and J under each judge every run shares (\`--judge\`): each run's J with its interval,
the paired delta to the baseline and the judge's measured error. Runs are named by their names
(\`experiment --name\`), a sweep cell by its sweep and grid point, else by preset and id.`;

/**
 * --format is a table's markup (COMPARE_MARKUPS, what Compare's "Copy as" gives too); the HTML
 * comparison report is a whole file with its flips, manifests and curves, which `report` writes.
 */
const HTML_REPORT = 'the HTML comparison report is written by report --html';

/** `report`'s command for these runs, the baseline first as `report` takes it. */
function htmlReportCommand(baseline: string | undefined, runIds: readonly string[]): string {
  const first = baseline ?? runIds[0] ?? '<baseline run id>';
  return `npm run -s cli -- report ${[first, ...runIds.filter((id) => id !== first)].join(' ')} --html`;
}

/** The terminal table, unless --format asks for markup. */
const DEFAULT_COMPARE_MARKUP: CompareMarkup = 'text';

function parseSeed(value: string | undefined): number {
  if (value === undefined) return DEFAULT_COMPARE_SEED;
  if (!/^-?\d+$/.test(value)) throw new UsageError(`--seed must be an integer (got "${value}")`);
  return Number(value);
}

export const compareCommand = defineCommand({
  summary: 'compare runs per category: deltas with intervals, McNemar, flips, fairness warnings',
  usage: 'usage: npm run -s cli -- compare <run id> <run id> [<run id> ...] [options]',
  description: DESCRIPTION,
  options: {
    baseline: {
      type: 'string',
      value: '<run id>',
      help: 'the run the others are measured against',
      absent: 'the first',
    },
    metric: {
      type: 'string',
      value: '<id>',
      help: 'the metric compared',
      choices: metricIds,
      absent: DEFAULT_COMPARE_METRIC,
    },
    seed: {
      type: 'string',
      value: '<n>',
      help: "the bootstrap's seed, as in the Compare view",
      absent: DEFAULT_COMPARE_SEED,
    },
    format: {
      type: 'string',
      help: `a terminal table, Markdown, or a LaTeX tabular (booktabs); ${HTML_REPORT}`,
      choices: () => COMPARE_MARKUPS,
      absent: DEFAULT_COMPARE_MARKUP,
    },
    ...SCHEME_OPTION,
    json: {
      ...JSON_OPTION.json,
      help: 'print the runs.compare result the Compare view renders, as JSON',
    },
    ...RUNS_DB_OPTIONS,
  },
  async run({ values, positionals }, io) {
    if (positionals.length < 2) throw new UsageError('compare takes at least two run ids');
    const format = values.format ?? DEFAULT_COMPARE_MARKUP;
    if (!(COMPARE_MARKUPS as readonly string[]).includes(format))
      throw new UsageError(
        `--format must be one of ${COMPARE_MARKUPS.join(', ')} (got "${format}"); ${HTML_REPORT}: ${htmlReportCommand(values.baseline, positionals)}`,
      );
    if (values.json && values.format !== undefined)
      throw new UsageError('--json and --format are alternatives: give one');
    const scheme = parseScheme(values.scheme);
    const baseline = values.baseline ?? (positionals[0] as string);
    if (!positionals.includes(baseline))
      throw new UsageError(`--baseline ${baseline} is not among the compared runs`);
    return withRunsApi(values, async (api) => {
      const result = await api.call('runs.compare', {
        runIds: positionals,
        baselineRunId: baseline,
        ...(values.metric !== undefined ? { metric: values.metric } : {}),
        seed: parseSeed(values.seed),
      });
      if (values.json) {
        io.stdout(`${JSON.stringify(result)}\n`);
        return 0;
      }
      const named = new Map((await api.call('runs.list', {})).map((run) => [run.id, runName(run)]));
      const names = result.comparison.runs.map((run) =>
        printable(named.get(run.runId) || run.label),
      );
      io.stdout(compareTable(result, { markup: format as CompareMarkup, scheme, names }));
      return 0;
    });
  },
});
