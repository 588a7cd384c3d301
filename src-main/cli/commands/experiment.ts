import { launchRun } from '../../core/launch/launch';
import { estimateOf } from '../../core/pipeline/plan';
import { UsageError, defineCommand, type CliIO } from '../command';
import type { JudgeConfig } from '../../../src-shared/experiment';
import { judgeLabel } from '../../../src-shared/judges';
import type { ApiKeySource } from '../../core/keys';
import { runWrites } from '../../core/runs/handlers';
import type { RunStore } from '../../core/runs/store';
import {
  EXPERIMENT_OPTIONS,
  JSON_OPTION,
  JUDGES_OPTION,
  KEY_ENV_OPTION,
  LAUNCH_OPTIONS,
  RUNS_DB_OPTIONS,
  SCHEME_OPTION,
} from '../options';
import { runRepeats } from '../repeats';
import {
  apiKeysFromFlags,
  experimentRequestFromFlags,
  judgesFlag,
  launchCallsFromFlags,
  parseScheme,
} from '../request';
import {
  dryRun,
  progressReporter,
  reportOutcome,
  runReportExtra,
  superviseRun,
} from '../runOutput';
import { openStore } from '../runsApi';
import { ensureWordVectorCache } from '../wordVectors';

const DESCRIPTION = `Runs an experiment: feeds each sample's conversation to a memory preset packet by packet, re-asks
the visible questions at every test, scores each answer and records everything in the runs
database. Prints the per-category table of final answers and the run id.`;

const EPILOGUE = `Ctrl-C cancels gracefully (committed tests stay; "resume <id>" continues); a second Ctrl-C exits.

exit codes: 0 completed, 1 failed (or an error before the run), 2 usage error, 3 degraded (too many
errored answers), 4 paused by the circuit breaker (resume once the endpoint works), 130 cancelled.`;

export const experimentCommand = defineCommand({
  summary: 'run a memory preset over a dataset, score it and record the run',
  usage: 'usage: npm run -s cli -- experiment --data <file> [options]',
  description: DESCRIPTION,
  options: {
    ...EXPERIMENT_OPTIONS,
    ...JUDGES_OPTION,
    ...KEY_ENV_OPTION,
    ...RUNS_DB_OPTIONS,
    ...LAUNCH_OPTIONS,
    'dry-run': {
      type: 'boolean',
      default: false,
      help: 'print what the run would ask of its LLM endpoints (answer and judge calls, estimated prompt/completion tokens, cost at the configured prices) and stop; nothing is called or written',
    },
    ...SCHEME_OPTION,
    json: {
      ...JSON_OPTION.json,
      help: 'print exactly one JSON object (run id, status, summary) on stdout',
    },
  },
  epilogue: EPILOGUE,
  async run({ values, positionals }, io) {
    if (positionals.length > 0)
      throw new UsageError(`experiment takes no positional arguments (got "${positionals[0]}")`);
    const scheme = parseScheme(values.scheme);
    const { config, identity, repeats, errata } = experimentRequestFromFlags(values);
    // Checked before the run starts: a bad --judge must not cost a run.
    const judges = judgesFlag(values.judge, config.judge);
    if (judges.length > 0 && repeats !== undefined)
      throw new UsageError('--judge judges one run; with --repeats, rescore each run with --judge');
    if (values['dry-run']) return dryRun(config, values.json, io);

    await ensureWordVectorCache(io);
    const { store, dataDir } = openStore(values['runs-db'], values['data-dir']);
    try {
      const apiKeys = apiKeysFromFlags(values['allow-key-env']);
      const calls = launchCallsFromFlags(values);
      if (repeats !== undefined) {
        // Planned once: the repeats differ only by seed.
        const estimate = await estimateOf(config);
        return await runRepeats(config, repeats, {
          store,
          dataDir,
          keepCollections: values['keep-collections'],
          apiKeys,
          scheme,
          json: values.json,
          io,
          ...(errata ? { errata } : {}),
          identity,
          ...calls,
          ...(estimate ? { estimate } : {}),
        });
      }
      const handle = await launchRun(
        { config, identity, ...(errata ? { errata } : {}), ...calls },
        {
          store,
          dataDir,
          keepCollections: values['keep-collections'],
          onProgress: progressReporter(io, process.stderr.isTTY === true),
          apiKeys,
          // The user typed this command line: an external service's command may run.
          mayStartProcesses: true,
        },
      );
      // Launch-time warnings (a judge that is another benchmark's) before the progress lines.
      for (const warning of store.getRun(handle.runId).manifest.warnings ?? [])
        io.stderr(`warning: ${warning}\n`);
      const outcome = await superviseRun(handle, io);
      if (judges.length > 0 && (outcome.status === 'completed' || outcome.status === 'degraded'))
        await judgeAfterRun(store, apiKeys, outcome.runId, judges, io);
      const { manifest } = store.getRun(outcome.runId);
      return reportOutcome(
        outcome,
        config,
        scheme,
        values.json,
        io,
        manifest,
        runReportExtra(store, outcome.runId, scheme),
      );
    } finally {
      store.close();
    }
  },
});

/**
 * `--judge`: each judge's pass over the finished run's final answers, as `rescore --judge` runs it
 * (stored under the judge's identity beside the run's own J); what each did goes to stderr.
 */
async function judgeAfterRun(
  store: RunStore,
  apiKeys: ApiKeySource,
  runId: string,
  judges: JudgeConfig[],
  io: CliIO,
): Promise<void> {
  const rescore = runWrites(store, apiKeys, {
    log: (message) => io.stderr(`experiment: ${message}\n`),
  })['runs.rescore'];
  const result = await rescore({ runId, judges });
  for (const j of result.judges ?? [])
    io.stderr(
      `judged ${j.judged} final answers under ${judgeLabel(j)}: ${j.calls} calls, ` +
        `${j.cacheHits} cached, ${j.errors} without a verdict\n`,
    );
}
