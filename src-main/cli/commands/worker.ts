import { UsageError, defineCommand, positiveIntFlag } from '../command';
import { defaultDataDir } from '../../core/runs/paths';
import { ensureWordVectorCache } from '../wordVectors';
import { resolve } from 'node:path';
import {
  DEFAULT_LOCK_MS,
  DEFAULT_QUEUE,
  DEFAULT_STALLED_CHECK_MS,
} from '../../core/sweeps/queueDefaults';
import { DATA_DIR_OPTION, DATASET_DIR_OPTION, KEY_ENV_OPTION } from '../options';
import { apiKeysFromFlags, datasetDirsFromArgs } from '../request';
import { REDIS_PASSWORD_ENV, checkRedisAccess, redisAccess } from '../../core/sweeps/redisAccess';

/** Samples a worker runs at once unless told otherwise. */
const DEFAULT_WORKER_CONCURRENCY = 1;

const DESCRIPTION = `Processes the samples of distributed sweeps ("sweep run … --redis <url>") on this machine: takes
jobs from BullMQ at the given Redis, runs each sample in a worker thread with the same engine as a
local run and reports every committed test to the coordinator, which records it. Runs until
Ctrl-C (or SIGTERM), finishing the samples in progress first; a second signal exits at once.
API keys come from this machine's environment (the config's key variables).

Anyone who can write to the Redis can submit jobs, so a job is untrusted input: its dataset must
lie in a --dataset-dir folder, its external memory service must be on a loopback address or a
unix socket in a --dataset-dir folder, and it may not start a program unless this worker is
started with --allow-memory-command. Lock the Redis down (README, "Sweeps"): an ACL user with a
password, TLS (rediss://), a private network.

The Redis password: in $${REDIS_PASSWORD_ENV} or a file (--redis-password-file), not in the
--redis URL, where every user of this machine can read it in the process list (it still works
there, with a warning). A password Redis refuses, or a Redis that cannot be reached, ends the
worker at once with an error naming the URL without its password.`;

export const workerCommand = defineCommand({
  summary: 'process distributed sweep samples from BullMQ on Redis',
  usage: 'usage: npm run -s cli -- worker --redis <url> --dataset-dir <dir> [options]',
  description: DESCRIPTION,
  options: {
    redis: { type: 'string', value: '<url>', help: 'Redis URL (redis://[user@]host:6379)' },
    'redis-password-file': {
      type: 'string',
      value: '<file>',
      help: 'read the Redis password from this file (its first line)',
    },
    queue: {
      type: 'string',
      value: '<name>',
      help: 'BullMQ queue name (the same on coordinator and workers)',
      absent: DEFAULT_QUEUE,
    },
    concurrency: {
      type: 'string',
      value: '<n>',
      help: 'samples at once, one worker thread each',
      absent: DEFAULT_WORKER_CONCURRENCY,
    },
    'data-dir': { ...DATA_DIR_OPTION['data-dir'], help: 'where collections in progress live' },
    'dataset-dir': {
      ...DATASET_DIR_OPTION['dataset-dir'],
      help: "a folder jobs' dataset paths and memory sockets may be in (required, repeatable: the coordinator's dataset folder as the coordinator names it)",
    },
    'allow-memory-command': {
      type: 'boolean',
      default: false,
      help: "let jobs start an external memory service's command (memory.config.command) as this worker's user: only when every writer to the Redis may run programs here",
    },
    'lock-ms': {
      type: 'string',
      value: '<ms>',
      help: "job lock duration: a dead worker's sample is retried after it",
      absent: DEFAULT_LOCK_MS,
    },
    'stalled-check-ms': {
      type: 'string',
      value: '<ms>',
      help: 'how often stalled jobs are looked for',
      absent: DEFAULT_STALLED_CHECK_MS,
    },
    limit: {
      type: 'string',
      value: '<n>/<ms>',
      help: 'at most n samples started per ms across all workers of the queue',
    },
    'calls-per-minute': {
      type: 'string',
      value: '<n>',
      help: "at most n LLM requests started per minute per endpoint across all workers sharing the Redis (a token bucket in Redis; the endpoint's rate limit as one budget)",
    },
    ...KEY_ENV_OPTION,
  },
  positionals: false,
  async run({ values }, io) {
    if (values.redis === undefined) throw new UsageError('worker needs --redis <url>');
    let limit: { max: number; durationMs: number } | undefined;
    if (values.limit !== undefined) {
      const m = /^(\d+)\/(\d+)$/.exec(values.limit);
      if (!m) throw new UsageError(`--limit must look like 10/1000 (got "${values.limit}")`);
      limit = { max: Number(m[1]), durationMs: Number(m[2]) };
    }
    const callsPerMinute = positiveIntFlag('--calls-per-minute', values['calls-per-minute']);
    const lockMs = positiveIntFlag('--lock-ms', values['lock-ms']);
    const stalledMs = positiveIntFlag('--stalled-check-ms', values['stalled-check-ms']);
    const datasetDirs = datasetDirsFromArgs(values['dataset-dir'], 'worker');
    // A worker without folders would refuse every job: say so now, not once per job.
    if (datasetDirs.length === 0) {
      throw new UsageError(
        "worker needs --dataset-dir <folder>: a job's dataset must lie in a folder this worker was given",
      );
    }
    const access = redisAccess(values.redis, values['redis-password-file']);
    if (access.warning !== null) io.stderr(`warning: ${access.warning}\n`);
    // Before the word vectors and BullMQ: a wrong password must not wait for either.
    await checkRedisAccess(access.url);
    await ensureWordVectorCache(io);
    const { displayRedisUrl, startSampleWorker } = await import('../../core/sweeps/distributed');
    const worker = await startSampleWorker({
      redisUrl: access.url,
      ...(values.queue !== undefined ? { queue: values.queue } : {}),
      concurrency:
        positiveIntFlag('--concurrency', values.concurrency) ?? DEFAULT_WORKER_CONCURRENCY,
      dataDir: resolve(values['data-dir'] ?? defaultDataDir()),
      trust: { allowMemoryCommand: values['allow-memory-command'], datasetDirs },
      apiKeys: apiKeysFromFlags(values['allow-key-env']),
      ...(lockMs !== undefined ? { lockDurationMs: lockMs } : {}),
      ...(stalledMs !== undefined ? { stalledIntervalMs: stalledMs } : {}),
      ...(limit ? { limit } : {}),
      ...(callsPerMinute !== undefined ? { callsPerMinute } : {}),
      onError: (message) => io.stderr(`worker: ${message} (retrying)\n`),
      onJob: (e) => io.stderr(`job ${e.jobId}: ${e.state}${e.error ? `: ${e.error}` : ''}\n`),
    });
    io.stderr(
      `jobs may read datasets in: ${datasetDirs.join(', ')}; memory commands: ${values['allow-memory-command'] ? 'allowed' : 'refused'}\n`,
    );
    io.stderr(`worker ready on ${displayRedisUrl(access.url)} (pid ${process.pid})\n`);
    await new Promise<void>((done) => {
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
    });
    io.stderr('worker stopping: finishing the samples in progress (signal again to exit now)\n');
    // close() waits for the jobs in progress, and for Redis: a second signal must still end it.
    const now = (): never => process.exit(130);
    process.once('SIGINT', now);
    process.once('SIGTERM', now);
    await worker.close();
    return 0;
  },
});
