import { metricIds, metricOf } from '../../../src-shared/metrics';
import { JudgeConfigSchema, type JudgeConfig } from '../../../src-shared/experiment';
import { zodError } from '../../../src-shared/errors';
import { ApiKeySource } from '../../core/keys';
import { protocolJudgeTable, summaryTable } from '../../core/runs/report';
import type { RunStore } from '../../core/runs/store';
import type { RescoreJudgeResult } from '../../../src-shared/rescore';
import { UsageError, defineCommand, type CliIO } from '../command';
import { EXIT_CODES } from '../runOutput';
import { withRunsApi } from '../runsApi';
import { judgesFlag, keyPolicyFromArgs, parseScheme, readJudgeProtocolFile } from '../request';
import {
  JSON_OPTION,
  JUDGE_ENDPOINT_OPTIONS,
  JUDGE_PROTOCOL_FILE_OPTION,
  JUDGES_OPTION,
  KEY_ENV_OPTION,
  RUNS_DB_OPTIONS,
  SCHEME_OPTION,
} from '../options';

const DESCRIPTION = `Scores a stored run again under registered metrics, without running memory or answers: every
answer of every test gets the metrics' values written into the runs database (rerunning it
rewrites the same values), then the new headline table is printed. Retrieval metrics read the
evidence from the run's dataset file (it must be unchanged). Judge metrics need an LLM and are
skipped, with the reason printed.

With --judge, a judge is run over the run's final answers (an LLM call per distinct answer; the
runs DB's judge cache makes a repeat free) and its J is stored under the judge (protocol, model,
endpoint origin, repeats), beside the run's own J: answers and their scores are not touched. Give
--judge several times for several judges; report then shows each J with its interval and their
agreement. The endpoint is the run's own judge unless --judge-base-url/--judge-model say otherwise.
Alone, --judge rescores no metric.`;

export const rescoreCommand = defineCommand({
  summary: 'score a stored run again under any registered metric, offline',
  usage:
    'usage: npm run -s cli -- rescore <run id> [--metrics id,id] [--judge <protocol[:model[:repeats]]>]... [options]',
  description: DESCRIPTION,
  options: {
    metrics: {
      type: 'string',
      value: '<ids>',
      help: 'comma-separated metric ids',
      choices: metricIds,
      absent: 'every registered metric',
    },
    ...JUDGES_OPTION,
    ...JUDGE_PROTOCOL_FILE_OPTION,
    ...JUDGE_ENDPOINT_OPTIONS,
    ...KEY_ENV_OPTION,
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
    const apiKeys = new ApiKeySource({
      policy: keyPolicyFromArgs(values['allow-key-env'], 'rescore'),
    });
    return withRunsApi(
      values,
      async (api) => {
        const runId = positionals[0] as string;
        const judges = judgesOf(api.store, runId, values);
        const result = await api.call('runs.rescore', {
          runId,
          ...(metrics ? { metrics } : {}),
          ...(judges.length > 0 ? { judges } : {}),
        });
        if (values.json) {
          io.stdout(`${JSON.stringify(result)}\n`);
          return missingVerdicts(result.judges, io);
        }
        io.stdout(
          `rescored run ${runId}: ${result.answers} answers × ${result.metrics.length} metric(s) ` +
            `(${result.metrics.join(', ') || 'none'}), ${result.written} scores written\n`,
        );
        for (const s of result.skipped) io.stdout(`skipped ${s.metric}: ${s.reason}\n`);
        const profile = api.store.profileOf(runId);
        io.stdout(summaryTable(result.summary, scheme, profile));
        for (const j of result.judges ?? [])
          io.stdout(
            `judged ${j.judged} final answers under ${j.protocol} (${j.model}): ${j.calls} calls, ` +
              `${j.cacheHits} cached, ${j.errors} without a verdict, ${j.unparseable} unreadable\n`,
          );
        if (result.judges?.length)
          io.stdout(protocolJudgeTable(api.store.protocolJudges(runId), scheme, profile));
        return missingVerdicts(result.judges, io);
      },
      apiKeys,
      (message) => io.stderr(`rescore: ${message}\n`),
    );
  },
});

/**
 * The judges a rescore runs: each `--judge`, then `--judge-protocol-file`'s, on the run's own
 * judge endpoint (when it had one) with the endpoint flags over it. The API schema checks them.
 */
function judgesOf(
  store: RunStore,
  runId: string,
  flags: {
    judge?: string[] | undefined;
    'judge-protocol-file'?: string | undefined;
    'judge-base-url'?: string | undefined;
    'judge-model'?: string | undefined;
    'judge-api-key-env'?: string | undefined;
  },
): JudgeConfig[] {
  const file = flags['judge-protocol-file'];
  if (flags.judge === undefined && file === undefined) return [];
  const own = store.getRun(runId).manifest.config.judge;
  const baseUrl = flags['judge-base-url'] ?? own?.baseUrl;
  const model = flags['judge-model'] ?? own?.model;
  if (baseUrl === undefined || model === undefined) {
    throw new UsageError(
      `--judge needs --judge-base-url and --judge-model (run ${runId} had no judge to reuse)`,
    );
  }
  const apiKeyEnv = flags['judge-api-key-env'] ?? own?.apiKeyEnv;
  const base = {
    ...(own ?? {}),
    baseUrl,
    model,
    ...(apiKeyEnv !== undefined ? { apiKeyEnv } : {}),
  };
  const judges = judgesFlag(flags.judge, base);
  if (file !== undefined) {
    const parsed = JudgeConfigSchema.safeParse({ ...base, protocol: readJudgeProtocolFile(file) });
    if (!parsed.success) throw zodError(parsed.error, `--judge-protocol-file ${file}`);
    judges.push(parsed.data);
  }
  return judges;
}

/**
 * A judge pass that left final answers without a verdict is not a success: says how many and why
 * on stderr, and exits paused (4) when a circuit breaker stopped one, degraded (3) otherwise.
 */
function missingVerdicts(judges: readonly RescoreJudgeResult[] | undefined, io: CliIO): number {
  let code: number = EXIT_CODES.completed;
  for (const judge of judges ?? []) {
    const missing = judge.errors + (judge.notJudged ?? 0);
    if (missing === 0) continue;
    const why = judge.stopped
      ? `the pass stopped early (${judge.stopped}); ${judge.notJudged ?? 0} were not asked`
      : `the judge failed on them (last: ${judge.lastError ?? 'unknown error'})`;
    io.stderr(
      `rescore: ${missing} final answers have no verdict under ${judge.protocol}: ${why}\n`,
    );
    if (judge.stopped) code = EXIT_CODES.paused;
    else if (code === EXIT_CODES.completed) code = EXIT_CODES.degraded;
  }
  return code;
}
