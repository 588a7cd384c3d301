import { launchRun } from '../../core/launch/launch';
import { estimateOf } from '../../core/pipeline/plan';
import { UsageError, defineCommand } from '../command';
import {
  EXPERIMENT_OPTIONS,
  JSON_OPTION,
  KEY_ENV_OPTION,
  LAUNCH_OPTIONS,
  RUNS_DB_OPTIONS,
  SCHEME_OPTION,
} from '../options';
import { runRepeats } from '../repeats';
import {
  apiKeysFromFlags,
  experimentRequestFromFlags,
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
