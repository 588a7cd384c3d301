import { resolve } from 'node:path';
import { DEFAULT_SCHEME, isCategoryNumber } from '../../../src-shared/benchmarks';
import { parseOrThrow, zodError } from '../../../src-shared/errors';
import { RunIdentitySchema } from '../../../src-shared/runs';
import {
  ANSWER_PROTOCOLS,
  ExperimentConfigSchema,
  JUDGE_PROTOCOLS,
} from '../../../src-shared/experiment';
import { launchRun } from '../../core/launch/launch';
import { estimateOf } from '../../core/pipeline/plan';
import {
  JSON_OPTION,
  RUNS_DB_OPTIONS,
  SCHEME_OPTION,
  UsageError,
  defineCommand,
  positiveIntFlag,
} from '../command';
import { JUDGE_OPTIONS, judgeFlags } from '../judgeOptions';
import { helpList } from '../helpList';
import { ApiKeySource } from '../../core/keys';
import { ALLOW_KEY_ENV_OPTION, keyPolicyFromArgs } from '../keyPolicy';
import { LAUNCH_OPTIONS, launchCallsFromFlags } from '../launchOptions';
import { ensureWordVectorCache } from '../wordVectors';
import { runRepeats } from '../repeats';
import { readErrataFile } from '../../core/dataset/errata';
import { dryRun, errataReport, progressReporter, reportOutcome, superviseRun } from '../runOutput';
import { parseScheme, readConfigFile } from '../request';
import { openStore } from '../runsApi';

const USAGE = `usage: npm run -s cli -- experiment --data <file> [options]

Runs an experiment: feeds each sample's conversation to a memory preset packet by packet, re-asks
the visible questions at every test, scores each answer and records everything in the runs
database. Prints the per-category table of final answers and the run id.

options:
  --data <file>             dataset file (LoCoMo or LongMemEval JSON)
  --samples <ids>           comma-separated sample ids (default: all)
  --preset <name>           memory preset (default: hybrid); --memory <name> is the same
  --memory-url <url>        your own memory service, running on 127.0.0.1 (preset external;
                            docs/memory-protocol.md)
  --memory-command "<cmd>"  your own memory service as a process this command starts per sample,
                            speaking JSON lines on stdio, e.g. "python3 my_memory.py"
  --memory-allow-remote     let --memory-url name a host other than this machine
  --config <file.json>      experiment config (any ExperimentConfig fields); flags override it
  --parallel <n>            samples at once, one worker thread each (default 1, at most the cores)
  --concurrency <n>         LLM requests in flight per endpoint, one budget for the whole run
                            (all samples and workers); a test's questions are then answered
                            concurrently, committed in question order (default: one at a time)
  --max-consecutive-failures <n>  pause the run after n LLM answers failing in a row (default 20);
                            \`cli resume <run id>\` continues it once the endpoint is fixed
  --top-k <n>               memories retrieved per question (default 10)
  --context-words <n>       equal-context-budget mode: trim the retrieved memories to n words
  --seed <n>                run seed (default 42)
  --name <text>             the run's name (shown in the Runs and Compare views; editable later)
  --tag <tag>               a tag for the run; repeat for more (no commas)
  --notes <text>            free-text notes kept with the run
  --errata <file>           apply a dataset errata file (YAML/JSON: sample, question index or
                            text, corrected, source); recorded in the manifest with its sha256,
                            scores printed against the original and the corrected gold, with
                            the per-category ceiling (examples/errata/locomo10-errata.yaml)
  --repeats <n>             run the whole experiment n times (repeat r with seed + r), grouped as
                            one repeat group, and print each metric as mean ± std over the n
                            complete runs (sample std); the same command again resumes the group
  --exclude-no-evidence     leave out questions without usable evidence (asked at the last packet
                            by default, so n is the dataset's question count)
  --question-categories <n,...>  ask only questions of these stored categories (default: all);
                            1,2,3,4 is Mem0's question set (LoCoMo's adversarial 5 left out)
  --mode <stream|ingest-all>  stream (default): test as questions become visible, and once more
                            after the last packet; ingest-all: insert everything, then ask every
                            question once (the papers' protocol)
  --max-error-share <x>     share of errored final answers (0-1) above which the run ends
                            "degraded", exit code 3 (default 0.1; every answer errored: "failed")
  --skip-invalid            run the valid samples of a file that also holds invalid ones (refused
                            otherwise); the run's manifest and this report list what was skipped
  --answerer <extractive|llm>  who answers (default: extractive, offline)
  --base-url <url>          LLM answerer: OpenAI-compatible endpoint, with /v1
  --model <name>            LLM answerer: chat model
  --answer-protocol <name> LLM answerer, one of:
${helpList(ANSWER_PROTOCOLS, 28)}
                            (default workbench-locomo; locomo-*, mem0* and longmemeval* are the
                            papers' own prompts, byte for byte); without --answerer llm the
                            extractive answerer runs offline and the manifest records the protocol
  --prompt-style <locomo|mem0>  older name for --answer-protocol workbench-locomo|workbench-mem0
  --category5-mapping <locomo|lenient>  how an (a)/(b) reply is read (default: locomo,
                            LoCoMo's get_cat_5_answer)
  --context-tokens <n>      locomo-full-context: context budget, cut from the end (default 128000)
  --batch-size <n>          locomo-full-context: questions to a prompt, LoCoMo's batch prompt (its
                            scripts: 10 for gpt-3.5-turbo, 20 for gpt-4-turbo; default 1)
  --api-key-env <NAME>      LLM answerer: environment variable holding the API key
  --judge-base-url <url>    LLM judge (Mem0 J over categories 1-4): endpoint, with /v1
  --judge-model <name>      LLM judge: chat model
  --judge-repeats <n>       LLM judge: repeats per answer (default 1)
  --judge-protocol <name>   LLM judge, one of: ${JUDGE_PROTOCOLS.join(', ')}
                            (default: the dataset's own, mem0 on LoCoMo, longmemeval on LongMemEval)
  --judge-protocol-file <file>  LLM judge: your own prompt, a text file with {{question}},
                            {{gold}} and {{answer}}; named after the file
  --judge-api-key-env <NAME>  LLM judge: environment variable holding its API key
  --memory-base-url <url>   memory LLM (memoryos long-term facts, tiers summaries): endpoint, with /v1
  --memory-model <name>     memory LLM: chat model
  --memory-api-key-env <NAME>  memory LLM: environment variable holding its API key
  --embedder-base-url <url> vector/hybrid presets: OpenAI-compatible /v1/embeddings endpoint, with /v1
                            (default embedder: wink-sif-100d, offline); vectors are cached in
                            <data dir>/cache/embeddings.sqlite, so a rerun never re-embeds a text
  --embedder-model <name>   embedder: embedding model
  --embedder-dimensions <n> embedder: ask for n-dimensional vectors (text-embedding-3 models)
  --embedder-api-key-env <NAME>  embedder: environment variable holding its API key
  --allow-key-env <NAME>    also read an API key from NAME (repeatable; by default only
                            names ending in _API_KEY or _TOKEN are read)
  --runs-db <path>          runs database (default: <data dir>/runs.db)
  --data-dir <dir>          data directory (default: $MEMORY_WORKBENCH_DATA or ~/.memory-workbench)
  --keep-collections        keep each sample's collection directory after the run
  --no-preflight            skip the one real call to each LLM and embeddings endpoint that
                            otherwise refuses a run whose endpoint is down, unknown or refuses the key
  --dry-run                 print what the run would ask of its LLM endpoints (answer and judge
                            calls, estimated prompt/completion tokens, cost at the configured
                            prices) and stop; nothing is called or written
  --no-cache                ask the answerer's endpoint even for a request an earlier run made
                            (by default identical requests are answered from
                            <data dir>/cache/llm-responses.sqlite and counted as cache hits)
  --cache-only              never call the answerer's endpoint: replay an earlier run's answers
                            from the cache, byte for byte (a request not in it is an error)
  --scheme <official|mem0>  category names in the table (default: ${DEFAULT_SCHEME})
  --json                    print exactly one JSON object (run id, status, summary) on stdout
  -h, --help                show this help

Ctrl-C cancels gracefully (committed tests stay; "resume <id>" continues); a second Ctrl-C exits.

exit codes: 0 completed, 1 failed (or an error before the run), 2 usage error, 3 degraded (too many
errored answers), 4 paused by the circuit breaker (resume once the endpoint works), 130 cancelled.
`;

type FlagValues = Record<string, string | string[] | boolean | undefined>;

const asObject = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? { ...(v as object) } : {};

/** `--answerer llm --base-url ... --model ...` over the config file's answerer; the schema checks it. */
function answererFlags(values: FlagValues, fromFile: unknown): Record<string, unknown> | undefined {
  const flags: Array<[string, string]> = [
    ['base-url', 'baseUrl'],
    ['model', 'model'],
    ['prompt-style', 'promptStyle'],
    ['answer-protocol', 'answerProtocol'],
    ['category5-mapping', 'category5Mapping'],
    ['context-tokens', 'contextTokens'],
    ['batch-size', 'batchSize'],
    ['api-key-env', 'apiKeyEnv'],
  ];
  const kind = values['answerer'];
  const given = flags.filter(([flag]) => values[flag] !== undefined);
  if (kind === undefined && given.length === 0) return undefined;
  const base = asObject(fromFile);
  // Another kind's fields would not validate: a --answerer flag starts from that kind's defaults.
  const out: Record<string, unknown> =
    typeof kind === 'string' && base['kind'] !== kind ? { kind } : { ...base };
  // `--answer-protocol` alone: the offline answerer standing in for that protocol.
  if (out['kind'] === undefined && given.every(([flag]) => flag === 'answer-protocol'))
    out['kind'] = 'extractive';
  if (out['kind'] === undefined) {
    throw new UsageError(
      `${given.map(([f]) => `--${f}`).join(', ')} need${given.length === 1 ? 's' : ''} --answerer llm`,
    );
  }
  for (const [flag, field] of given) out[field] = values[flag];
  const contextTokens = positiveIntFlag(
    '--context-tokens',
    values['context-tokens'] as string | undefined,
  );
  if (contextTokens !== undefined) out['contextTokens'] = contextTokens;
  const batchSize = positiveIntFlag('--batch-size', values['batch-size'] as string | undefined);
  if (batchSize !== undefined) out['batchSize'] = batchSize;
  return out;
}

/** `--memory-base-url/--memory-model/--memory-api-key-env` over the config file's `memory.llm`. */
function memoryLlmFlags(
  values: FlagValues,
  fromFile: unknown,
): Record<string, unknown> | undefined {
  const flags: Array<[string, string]> = [
    ['memory-base-url', 'baseUrl'],
    ['memory-model', 'model'],
    ['memory-api-key-env', 'apiKeyEnv'],
  ];
  const given = flags.filter(([flag]) => values[flag] !== undefined);
  if (given.length === 0) return undefined;
  const out = asObject(fromFile);
  for (const [flag, field] of given) out[field] = values[flag];
  return out;
}

/**
 * `--embedder-base-url/--embedder-model/...` become the preset config's `embedder` (vector and
 * hybrid presets); given over a config file's OpenAI embedder, they change its fields.
 */
function embedderFlags(values: FlagValues, fromFile: unknown): Record<string, unknown> | undefined {
  const flags: Array<[string, string]> = [
    ['embedder-base-url', 'baseUrl'],
    ['embedder-model', 'model'],
    ['embedder-api-key-env', 'apiKeyEnv'],
  ];
  const dimensions = positiveIntFlag(
    '--embedder-dimensions',
    values['embedder-dimensions'] as string | undefined,
  );
  const given = flags.filter(([flag]) => values[flag] !== undefined);
  if (given.length === 0 && dimensions === undefined) return undefined;
  const base = asObject(fromFile);
  const out: Record<string, unknown> = base['kind'] === 'openai' ? base : { kind: 'openai' };
  for (const [flag, field] of given) out[field] = values[flag];
  if (dimensions !== undefined) out['dimensions'] = dimensions;
  return out;
}

/** `--preset`, its alias `--memory`, and `external` implied by a service flag. */
function presetFlag(values: FlagValues): string | undefined {
  const named = values['preset'] ?? values['memory'];
  if (
    values['preset'] !== undefined &&
    values['memory'] !== undefined &&
    values['preset'] !== values['memory']
  )
    throw new UsageError('--preset and --memory name the same thing; give one');
  const service = values['memory-url'] !== undefined || values['memory-command'] !== undefined;
  if (!service) return named as string | undefined;
  if (named !== undefined && named !== 'external') {
    throw new UsageError(
      `--memory-url and --memory-command run preset external, not "${String(named)}"`,
    );
  }
  return 'external';
}

/** `--memory-url/--memory-command/--memory-allow-remote` over the config file's external config. */
function externalServiceFlags(
  values: FlagValues,
  fromFile: unknown,
): Record<string, unknown> | undefined {
  const url = values['memory-url'];
  const command = values['memory-command'];
  if (url !== undefined && command !== undefined)
    throw new UsageError('give --memory-url or --memory-command, not both');
  if (url === undefined && command === undefined) {
    if (values['memory-allow-remote'])
      throw new UsageError('--memory-allow-remote needs --memory-url');
    return undefined;
  }
  const out = asObject(fromFile);
  delete out['url'];
  delete out['command'];
  if (url !== undefined) out['url'] = url;
  if (command !== undefined) out['command'] = command;
  if (values['memory-allow-remote']) out['allowRemote'] = true;
  return out;
}

export const experimentCommand = defineCommand({
  summary: 'run a memory preset over a dataset, score it and record the run',
  usage: USAGE,
  options: {
    data: { type: 'string' },
    samples: { type: 'string' },
    'question-categories': { type: 'string' },
    preset: { type: 'string' },
    memory: { type: 'string' },
    'memory-url': { type: 'string' },
    'memory-command': { type: 'string' },
    'memory-allow-remote': { type: 'boolean', default: false },
    config: { type: 'string' },
    parallel: { type: 'string' },
    concurrency: { type: 'string' },
    'max-consecutive-failures': { type: 'string' },
    'top-k': { type: 'string' },
    'context-words': { type: 'string' },
    seed: { type: 'string' },
    name: { type: 'string' },
    tag: { type: 'string', multiple: true },
    notes: { type: 'string' },
    repeats: { type: 'string' },
    errata: { type: 'string' },
    'exclude-no-evidence': { type: 'boolean', default: false },
    mode: { type: 'string' },
    // The default since issue 11; still accepted so existing scripts keep working.
    'include-no-evidence': { type: 'boolean', default: false },
    'max-error-share': { type: 'string' },
    'skip-invalid': { type: 'boolean', default: false },
    answerer: { type: 'string' },
    'base-url': { type: 'string' },
    model: { type: 'string' },
    'prompt-style': { type: 'string' },
    'answer-protocol': { type: 'string' },
    'category5-mapping': { type: 'string' },
    'context-tokens': { type: 'string' },
    'batch-size': { type: 'string' },
    'api-key-env': { type: 'string' },
    ...JUDGE_OPTIONS,
    'memory-base-url': { type: 'string' },
    'memory-model': { type: 'string' },
    'memory-api-key-env': { type: 'string' },
    'embedder-base-url': { type: 'string' },
    'embedder-model': { type: 'string' },
    'embedder-dimensions': { type: 'string' },
    'embedder-api-key-env': { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    'allow-key-env': ALLOW_KEY_ENV_OPTION,
    ...RUNS_DB_OPTIONS,
    ...LAUNCH_OPTIONS,
    ...SCHEME_OPTION,
    ...JSON_OPTION,
  },
  async run({ values, positionals }, io) {
    if (positionals.length > 0)
      throw new UsageError(`experiment takes no positional arguments (got "${positionals[0]}")`);
    const scheme = parseScheme(values.scheme);
    const file = values.config === undefined ? {} : readConfigFile(values.config);
    const data =
      values.data ?? (typeof file['datasetPath'] === 'string' ? file['datasetPath'] : undefined);
    if (data === undefined) throw new UsageError('experiment needs --data <file>');
    const merged: Record<string, unknown> = { ...file, datasetPath: resolve(data) };
    const memory = { ...((file['memory'] as Record<string, unknown> | undefined) ?? {}) };
    const preset = presetFlag(values);
    if (preset !== undefined) {
      // Another preset's config would not validate; a --preset flag starts from that preset's defaults.
      if (memory['preset'] !== preset) delete memory['config'];
      memory['preset'] = preset;
    }
    const service = externalServiceFlags(values, memory['config']);
    if (service !== undefined) memory['config'] = service;
    const memoryLlm = memoryLlmFlags(values, memory['llm']);
    if (memoryLlm !== undefined) memory['llm'] = memoryLlm;
    const presetConfig = asObject(memory['config']);
    const embedder = embedderFlags(values, presetConfig['embedder']);
    if (embedder !== undefined) memory['config'] = { ...presetConfig, embedder };
    merged['memory'] = memory;
    if (values.samples !== undefined)
      merged['samples'] = values.samples
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    const parallel = positiveIntFlag('--parallel', values.parallel);
    if (parallel !== undefined) merged['parallel'] = parallel;
    const concurrency = positiveIntFlag('--concurrency', values.concurrency);
    if (concurrency !== undefined) merged['concurrency'] = concurrency;
    const maxFailures = positiveIntFlag(
      '--max-consecutive-failures',
      values['max-consecutive-failures'],
    );
    if (maxFailures !== undefined) merged['maxConsecutiveFailures'] = maxFailures;
    const topK = positiveIntFlag('--top-k', values['top-k']);
    const contextWords = positiveIntFlag('--context-words', values['context-words']);
    if (topK !== undefined || contextWords !== undefined)
      merged['retrieval'] = {
        ...((file['retrieval'] as object | undefined) ?? {}),
        ...(topK !== undefined ? { topK } : {}),
        ...(contextWords !== undefined ? { contextWords } : {}),
      };
    if (values.seed !== undefined) {
      const seed = Number(values.seed);
      if (!Number.isInteger(seed))
        throw new UsageError(`--seed must be an integer (got "${values.seed}")`);
      merged['seed'] = seed;
    }
    if (values['include-no-evidence'] && values['exclude-no-evidence'])
      throw new UsageError('--include-no-evidence and --exclude-no-evidence contradict each other');
    if (values['question-categories'] !== undefined)
      merged['questionCategories'] = values['question-categories'].split(',').map((part) => {
        const category = Number(part.trim());
        if (part.trim() === '' || !isCategoryNumber(category))
          throw new UsageError(
            `--question-categories must be positive category numbers separated by commas (got "${values['question-categories']}")`,
          );
        return category;
      });
    if (values['include-no-evidence']) merged['includeNoEvidence'] = true;
    if (values['exclude-no-evidence']) merged['includeNoEvidence'] = false;
    if (values.mode !== undefined) merged['mode'] = values.mode;
    if (values['max-error-share'] !== undefined) {
      const share = Number(values['max-error-share']);
      if (values['max-error-share'].trim() === '' || !(share >= 0 && share <= 1))
        throw new UsageError(
          `--max-error-share must be a number from 0 to 1 (got "${values['max-error-share']}")`,
        );
      merged['maxErrorShare'] = share;
    }
    if (values['skip-invalid']) merged['skipInvalid'] = true;
    const answerer = answererFlags(values, file['answerer']);
    if (answerer !== undefined) merged['answerer'] = answerer;
    const judge = judgeFlags(values, file['judge']);
    if (judge !== undefined) merged['judge'] = judge;
    const parsed = ExperimentConfigSchema.safeParse(merged);
    if (!parsed.success) {
      throw zodError(
        parsed.error,
        values.config === undefined ? 'experiment config' : `config file ${values.config}`,
      );
    }
    const config = parsed.data;
    // Not config: a run's name and tags do not change what it measures (or its config hash).
    const identity = parseOrThrow(
      RunIdentitySchema,
      {
        ...(values.name !== undefined ? { name: values.name } : {}),
        ...(values.tag !== undefined ? { tags: values.tag } : {}),
        ...(values.notes !== undefined ? { notes: values.notes } : {}),
      },
      '--name/--tag/--notes',
    );
    const repeats = positiveIntFlag('--repeats', values.repeats);
    const errata = values.errata === undefined ? undefined : readErrataFile(values.errata);
    if (values['dry-run']) return dryRun(config, values.json, io);

    await ensureWordVectorCache(io);
    const { store, dataDir } = openStore(values['runs-db'], values['data-dir']);
    try {
      const apiKeys = new ApiKeySource({
        policy: keyPolicyFromArgs(values['allow-key-env'], 'pass'),
      });
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
        errataReport(store, outcome.runId, scheme),
      );
    } finally {
      store.close();
    }
  },
});
