/**
 * Every option group that more than one command takes, declared once (node:util parseArgs
 * configs; `-h/--help` is defineCommand's). What the values mean, and the request they become, is
 * request.ts's; a command spreads the groups it takes into its `options`.
 */

/** `--data-dir <dir>`: the workbench's data (default $MEMORY_WORKBENCH_DATA or ~/.memory-workbench). */
export const DATA_DIR_OPTION = { 'data-dir': { type: 'string' } } as const;

/** Where the runs database is: `--runs-db <path>` or `<--data-dir>/runs.db` (runsApi's openStore). */
export const RUNS_DB_OPTIONS = { 'runs-db': { type: 'string' }, ...DATA_DIR_OPTION } as const;

/** `--json`: exactly one JSON object on stdout instead of the human report. */
export const JSON_OPTION = { json: { type: 'boolean', default: false } } as const;

/** `--scheme <official|mem0>`: category names in tables (request.ts's parseScheme). */
export const SCHEME_OPTION = { scheme: { type: 'string' } } as const;

/** `--out <file>`: the command's document goes to this file instead of stdout (output.ts). */
export const OUT_OPTION = { out: { type: 'string' } } as const;

/**
 * `--allow-key-env <NAME>` (repeatable), every command that reads API keys: names beyond the
 * key-like ones a key may be read from (request.ts's keyPolicyFromArgs).
 */
export const KEY_ENV_OPTION = { 'allow-key-env': { type: 'string', multiple: true } } as const;

/**
 * `--dataset-dir <dir>` (repeatable), the commands that take configs from the network (`serve`,
 * `worker`): the folders whose files and unix sockets those configs may name (core/trust.ts).
 */
export const DATASET_DIR_OPTION = { 'dataset-dir': { type: 'string', multiple: true } } as const;

/** The LLM judge, `experiment` and `score` (request.ts's judgeFlags). */
export const JUDGE_OPTIONS = {
  'judge-base-url': { type: 'string' },
  'judge-model': { type: 'string' },
  'judge-repeats': { type: 'string' },
  'judge-api-key-env': { type: 'string' },
  'judge-protocol': { type: 'string' },
  'judge-protocol-file': { type: 'string' },
} as const;

/**
 * How runs are launched, `experiment` (`--repeats` too), `resume`, `sweep run` and `reproduce`
 * (request.ts's launchCallsFromFlags); what a flag leaves unsaid is the launcher's policy
 * (core/launch/launch.ts), the same for each.
 */
export const LAUNCH_OPTIONS = {
  'keep-collections': { type: 'boolean', default: false },
  'no-preflight': { type: 'boolean', default: false },
  'no-cache': { type: 'boolean', default: false },
  'cache-only': { type: 'boolean', default: false },
} as const;

/** LAUNCH_OPTIONS' help lines, the same in every command that takes them. */
export const LAUNCH_OPTIONS_HELP = `  --keep-collections        keep each sample's collection directory after the run
  --no-preflight            skip the one real call to each LLM and embeddings endpoint that
                            otherwise refuses a run whose endpoint is down, unknown or refuses the
                            key (every run is preflighted: each cell of a sweep, each repeat)
  --no-cache                ask the answerer's endpoint even for a request an earlier run made
                            (by default identical requests are answered from
                            <data dir>/cache/llm-responses.sqlite and counted as cache hits; a
                            repeat after the first keeps its own replies, never another repeat's)
  --cache-only              never call the answerer's endpoint: replay an earlier run's answers
                            from the cache, byte for byte (a request not in it is an error)`;

/**
 * What a run measures and how it is named, as `experiment` takes it over a `--config` file
 * (request.ts's experimentRequestFromFlags turns them into the launch request).
 */
export const EXPERIMENT_OPTIONS = {
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
  'memory-llm-max-tokens': { type: 'string' },
  'embedder-base-url': { type: 'string' },
  'embedder-model': { type: 'string' },
  'embedder-dimensions': { type: 'string' },
  'embedder-api-key-env': { type: 'string' },
} as const;
