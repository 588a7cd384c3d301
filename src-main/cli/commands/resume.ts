import { resumeRun } from '../../core/launch/launch';
import { UsageError, defineCommand } from '../command';
import { progressReporter, reportOutcome, superviseRun } from '../runOutput';
import { apiKeysFromFlags, launchCallsFromFlags, parseScheme } from '../request';
import { openStore } from '../runsApi';
import { ensureWordVectorCache } from '../wordVectors';
import {
  JSON_OPTION,
  KEY_ENV_OPTION,
  LAUNCH_OPTIONS,
  RUNS_DB_OPTIONS,
  SCHEME_OPTION,
} from '../options';

const DESCRIPTION = `Continues an interrupted, cancelled, failed or paused run. Each unfinished sample is replayed from
its first packet in a fresh collection; tests already committed are not answered again, the rest
are. With a deterministic preset and answerer the final answers equal those of an uninterrupted run.`;

export const resumeCommand = defineCommand({
  summary: 'continue an interrupted, cancelled, failed or paused run',
  usage: 'usage: npm run -s cli -- resume <run id> [options]',
  description: DESCRIPTION,
  options: {
    ...RUNS_DB_OPTIONS,
    ...LAUNCH_OPTIONS,
    ...KEY_ENV_OPTION,
    ...SCHEME_OPTION,
    ...JSON_OPTION,
  },
  async run({ values, positionals }, io) {
    const scheme = parseScheme(values.scheme);
    if (positionals.length !== 1) throw new UsageError('resume takes one run id');
    const runId = positionals[0] as string;
    await ensureWordVectorCache(io);
    const { store, dataDir } = openStore(values['runs-db'], values['data-dir']);
    try {
      const handle = await resumeRun(
        { runId, ...launchCallsFromFlags(values) },
        {
          store,
          dataDir,
          keepCollections: values['keep-collections'],
          onProgress: progressReporter(io, process.stderr.isTTY === true),
          apiKeys: apiKeysFromFlags(values['allow-key-env']),
          mayStartProcesses: true,
        },
      );
      const outcome = await superviseRun(handle, io);
      const { manifest } = store.getRun(runId);
      return reportOutcome(outcome, manifest.config, scheme, values.json, io, manifest);
    } finally {
      store.close();
    }
  },
});
