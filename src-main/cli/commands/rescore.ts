import { metricIds, metricOf } from '../../../src-shared/metrics';
import { JUDGE_PROTOCOLS, type JudgeConfigInput } from '../../../src-shared/experiment';
import { ApiKeySource } from '../../core/keys';
import { protocolJudgeTable, summaryTable } from '../../core/runs/report';
import type { RunStore } from '../../core/runs/store';
import { UsageError, defineCommand } from '../command';
import { withRunsApi } from '../runsApi';
import { judgeProtocolFlags, keyPolicyFromArgs, parseScheme } from '../request';
import {
  JSON_OPTION,
  JUDGE_ENDPOINT_OPTIONS,
  JUDGE_PROTOCOL_FILE_OPTION,
  KEY_ENV_OPTION,
  RUNS_DB_OPTIONS,
  SCHEME_OPTION,
} from '../options';

const DESCRIPTION = `Scores a stored run again under registered metrics, without running memory or answers: every
answer of every test gets the metrics' values written into the runs database (rerunning it
rewrites the same values), then the new headline table is printed. Retrieval metrics read the
evidence from the run's dataset file (it must be unchanged). Judge metrics need an LLM and are
skipped, with the reason printed.

With --judge, a judge protocol is run over the run's final answers (an LLM call per distinct
answer; the runs DB's judge cache makes a repeat free) and its J is stored under the protocol's
name, beside the run's own J: answers and their scores are not touched. The endpoint is the run's
own judge unless --judge-base-url/--judge-model say otherwise. Alone, --judge rescores no metric.`;

export const rescoreCommand = defineCommand({
  summary: 'score a stored run again under any registered metric, offline',
  usage:
    'usage: npm run -s cli -- rescore <run id> [--metrics id,id] [--judge <protocol>] [options]',
  description: DESCRIPTION,
  options: {
    metrics: {
      type: 'string',
      value: '<ids>',
      help: 'comma-separated metric ids',
      choices: metricIds,
      absent: 'every registered metric',
    },
    judge: {
      type: 'string',
      value: '<protocol>',
      help: 'run this judge protocol',
      choices: () => JUDGE_PROTOCOLS,
    },
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
    const { protocol } = judgeProtocolFlags(values.judge, values['judge-protocol-file']);
    const apiKeys = new ApiKeySource({
      policy: keyPolicyFromArgs(values['allow-key-env'], 'rescore'),
    });
    return withRunsApi(
      values,
      async (api) => {
        const runId = positionals[0] as string;
        const judge =
          protocol === undefined ? undefined : judgeOf(api.store, runId, protocol, values);
        const result = await api.call('runs.rescore', {
          runId,
          ...(metrics ? { metrics } : {}),
          ...(judge ? { judge } : {}),
        });
        if (values.json) {
          io.stdout(`${JSON.stringify(result)}\n`);
          return 0;
        }
        io.stdout(
          `rescored run ${runId}: ${result.answers} answers × ${result.metrics.length} metric(s) ` +
            `(${result.metrics.join(', ') || 'none'}), ${result.written} scores written\n`,
        );
        for (const s of result.skipped) io.stdout(`skipped ${s.metric}: ${s.reason}\n`);
        const profile = api.store.profileOf(runId);
        io.stdout(summaryTable(result.summary, scheme, profile));
        if (result.judge) {
          const j = result.judge;
          io.stdout(
            `judged ${j.judged} final answers under ${j.protocol} (${j.model}): ${j.calls} calls, ` +
              `${j.cacheHits} cached, ${j.errors} without a verdict, ${j.unparseable} unreadable\n`,
          );
          io.stdout(protocolJudgeTable(api.store.protocolJudges(runId), scheme, profile));
        }
        return 0;
      },
      apiKeys,
    );
  },
});

/**
 * The judge a rescore runs: the run's own judge endpoint (when it had one) under `protocol`, with
 * the endpoint flags over it. The API schema checks the result.
 */
function judgeOf(
  store: RunStore,
  runId: string,
  protocol: unknown,
  flags: {
    'judge-base-url'?: string | undefined;
    'judge-model'?: string | undefined;
    'judge-api-key-env'?: string | undefined;
  },
): JudgeConfigInput {
  const own = store.getRun(runId).manifest.config.judge;
  const baseUrl = flags['judge-base-url'] ?? own?.baseUrl;
  const model = flags['judge-model'] ?? own?.model;
  if (baseUrl === undefined || model === undefined) {
    throw new UsageError(
      `--judge needs --judge-base-url and --judge-model (run ${runId} had no judge to reuse)`,
    );
  }
  const apiKeyEnv = flags['judge-api-key-env'] ?? own?.apiKeyEnv;
  return {
    ...(own ?? {}),
    baseUrl,
    model,
    ...(apiKeyEnv !== undefined ? { apiKeyEnv } : {}),
    protocol: protocol as JudgeConfigInput['protocol'],
  };
}
