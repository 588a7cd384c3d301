import { metricOf } from '../../../src-shared/metrics';
import { summaryTable } from '../../core/runs/report';
import { JSON_OPTION, RUNS_DB_OPTIONS, SCHEME_OPTION, UsageError, defineCommand } from '../command';
import { withRunsApi } from '../runsApi';
import { parseScheme } from './experiment';

const USAGE = `usage: npm run -s cli -- rescore <run id> [--metrics id,id] [options]

Scores a stored run again under registered metrics, without running memory or answers: every
answer of every test gets the metrics' values written into the runs database (rerunning it
rewrites the same values), then the new headline table is printed. Retrieval metrics read the
evidence from the run's dataset file (it must be unchanged). Judge metrics need an LLM and are
skipped, with the reason printed.

options:
  --metrics <ids>           comma-separated metric ids (default: every registered metric)
  --scheme <official|mem0>  category names of the table (default: official)
  --json                    print exactly one JSON object
  --runs-db <path>          runs database (default: <data dir>/runs.db)
  --data-dir <dir>          data directory (default: $MEMORY_WORKBENCH_DATA or ~/.memory-workbench)
  -h, --help                show this help
`;

export const rescoreCommand = defineCommand({
  summary: 'score a stored run again under any registered metric, offline',
  usage: USAGE,
  options: {
    metrics: { type: 'string' },
    ...SCHEME_OPTION,
    ...JSON_OPTION,
    ...RUNS_DB_OPTIONS,
  },
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw new UsageError('rescore takes one run id');
    const metrics = values.metrics
      ?.split(',')
      .map((id) => id.trim())
      .filter(Boolean);
    for (const id of metrics ?? []) {
      try {
        metricOf(id);
      } catch (error) {
        throw new UsageError(
          `--metrics: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    const scheme = parseScheme(values.scheme);
    return withRunsApi(values, async (api) => {
      const runId = positionals[0] as string;
      const result = await api.call('runs.rescore', { runId, ...(metrics ? { metrics } : {}) });
      if (values.json) {
        io.stdout(`${JSON.stringify(result)}\n`);
        return 0;
      }
      io.stdout(
        `rescored run ${runId}: ${result.answers} answers × ${result.metrics.length} metric(s) ` +
          `(${result.metrics.join(', ') || 'none'}), ${result.written} scores written\n`,
      );
      for (const s of result.skipped) io.stdout(`skipped ${s.metric}: ${s.reason}\n`);
      io.stdout(summaryTable(result.summary, scheme, api.store.profileOf(runId)));
      return 0;
    });
  },
});
