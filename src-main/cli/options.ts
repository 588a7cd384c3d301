import { MAX_RESCORE_JUDGES } from '../../src-shared/judges';
import { DEFAULT_SCHEME, allSchemeIds, benchmarkProfiles } from '../../src-shared/benchmarks';
import { DEFAULT_PROTOCOL_MODE, PROTOCOL_MODES } from '../../src-shared/dataset/packets';
import {
  ANSWER_PROTOCOLS,
  AnswererConfigSchema,
  ADVERSARIAL_REPLY_MAPPINGS,
  DEFAULT_MAX_CONSECUTIVE_FAILURES,
  DEFAULT_MAX_ERROR_SHARE,
  DEFAULT_MEMORY_LLM_MAX_TOKENS,
  DEFAULT_RUN_CONCURRENCY,
  ExperimentConfigSchema,
  JUDGE_PROTOCOLS,
  PROMPT_STYLES,
  answerProtocolOf,
} from '../../src-shared/experiment';
import { DEFAULT_RESPONSE_CACHE } from '../core/launch/launch';
import { KEY_ENV_RULE } from '../core/keys';
import { DATA_DIR_ENV, HOME_DATA_DIR, RUNS_DB_FILE } from '../core/runs/paths';
import type { CliOption, OptionsDecl } from './command';

/**
 * Every option more than one command takes, declared once with its help line and its default
 * (command.ts renders `--help` from them). What the values mean, and the request they become, is
 * request.ts's; a command spreads the groups it takes into its `options`.
 */

/** The answerer kinds, as the config schema's union has them. */
const ANSWERER_KINDS = (): string[] =>
  AnswererConfigSchema.options.map((option) => option.shape.kind.value);

const configDefaults: { bare?: unknown; llm?: unknown } = {};

function at(value: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (v, key) =>
        v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined,
      value,
    );
}

/**
 * The config schema's default at a dotted path: what a run without the flag gets. An LLM
 * answerer's and a judge's fields are read from a config that has them.
 */
export function schemaDefault(path: string): unknown {
  configDefaults.bare ??= ExperimentConfigSchema.parse({ datasetPath: 'dataset.json' });
  const bare = at(configDefaults.bare, path);
  if (bare !== undefined) return bare;
  const endpoint = { baseUrl: 'http://127.0.0.1/v1', model: 'model' };
  configDefaults.llm ??= ExperimentConfigSchema.parse({
    datasetPath: 'dataset.json',
    answerer: { kind: 'llm', ...endpoint },
    judge: endpoint,
  });
  return at(configDefaults.llm, path);
}

/** An option that sets config field `path`, its help default the schema's (read on `--help`). */
export function configOption<const T extends Omit<CliOption, 'config' | 'absent'>>(
  path: string,
  option: T,
): T & { config: string; absent: () => string } {
  return { ...option, config: path, absent: () => String(schemaDefault(path)) };
}

/** `--data-dir <dir>`: the workbench's data. */
export const DATA_DIR_OPTION = {
  'data-dir': {
    type: 'string',
    value: '<dir>',
    help: 'data directory',
    absent: `$${DATA_DIR_ENV} or ~/${HOME_DATA_DIR}`,
  },
} as const satisfies OptionsDecl;

/** Where the runs database is: `--runs-db <path>` or `<--data-dir>/runs.db` (runsApi's openStore). */
export const RUNS_DB_OPTIONS = {
  'runs-db': {
    type: 'string',
    value: '<path>',
    help: 'runs database',
    absent: `<data dir>/${RUNS_DB_FILE}`,
  },
  ...DATA_DIR_OPTION,
} as const satisfies OptionsDecl;

/** `--json`: exactly one JSON object on stdout instead of the human report. */
export const JSON_OPTION = {
  json: { type: 'boolean', default: false, help: 'print exactly one JSON object on stdout' },
} as const satisfies OptionsDecl;

/** `--scheme`: category names in tables (request.ts's parseScheme). */
export const SCHEME_OPTION = {
  scheme: {
    type: 'string',
    help: 'category names in the tables',
    choices: allSchemeIds,
    absent: DEFAULT_SCHEME,
  },
} as const satisfies OptionsDecl;

/** `--out <file>`: the command's document goes to this file instead of stdout (output.ts). */
export const OUT_OPTION = {
  out: { type: 'string', value: '<file>', help: 'write to a file instead of stdout' },
} as const satisfies OptionsDecl;

/**
 * `--allow-key-env <NAME>` (repeatable), every command that reads API keys: names beyond the
 * key-like ones a key may be read from (request.ts's keyPolicyFromArgs).
 */
export const KEY_ENV_OPTION = {
  'allow-key-env': {
    type: 'string',
    multiple: true,
    value: '<NAME>',
    help: `also read an API key from NAME (repeatable; otherwise only ${KEY_ENV_RULE} is read)`,
  },
} as const satisfies OptionsDecl;

/**
 * `--dataset-dir <dir>` (repeatable), the commands that take configs from the network (`serve`,
 * `worker`): the folders whose files and unix sockets those configs may name (core/trust.ts).
 */
export const DATASET_DIR_OPTION = {
  'dataset-dir': {
    type: 'string',
    multiple: true,
    value: '<dir>',
    help: 'a folder whose files may be opened by path and whose unix sockets an external memory service url may name (repeatable); without one, datasets come in by upload only and no socket is reachable',
  },
} as const satisfies OptionsDecl;

/** The LLM judge's endpoint, as `experiment`, `score` and `reproduce` take it. */
export const JUDGE_ENDPOINT_OPTIONS = {
  'judge-base-url': {
    type: 'string',
    value: '<url>',
    help: 'LLM judge: OpenAI-compatible endpoint, with /v1',
  },
  'judge-model': { type: 'string', value: '<name>', help: 'LLM judge: chat model' },
  'judge-api-key-env': {
    type: 'string',
    value: '<NAME>',
    help: 'LLM judge: environment variable holding its API key',
  },
} as const satisfies OptionsDecl;

/** `--judge-protocol-file`: a judge prompt of one's own (`experiment`, `score`, `rescore`). */
export const JUDGE_PROTOCOL_FILE_OPTION = {
  'judge-protocol-file': {
    type: 'string',
    value: '<file>',
    help: 'LLM judge: your own prompt, a text file with {{question}}, {{gold}} and {{answer}}; named after the file',
  },
} as const satisfies OptionsDecl;

/** The LLM judge, `experiment` and `score` (request.ts's judgeFlags). */
export const JUDGE_OPTIONS = {
  ...JUDGE_ENDPOINT_OPTIONS,
  'judge-repeats': configOption('judge.repeats', {
    type: 'string',
    value: '<n>',
    help: 'LLM judge: repeats per answer, J reported as mean and std',
  }),
  'judge-protocol': {
    type: 'string',
    value: '<name>',
    help: "LLM judge protocol (without it: the dataset's benchmark's own)",
    choices: () => JUDGE_PROTOCOLS,
  },
  ...JUDGE_PROTOCOL_FILE_OPTION,
} as const satisfies OptionsDecl;

/**
 * `--judge protocol[:model[:repeats]]`, repeatable: judges beside the run's own, each a pass over
 * the final answers stored under its identity (`experiment`, `rescore`; request.ts's judgesFlag).
 */
export const JUDGES_OPTION = {
  judge: {
    type: 'string',
    multiple: true,
    value: '<protocol[:model[:repeats]]>',
    help: `a judge beside the run's own, on the judge endpoint, with that judge's model and repeats unless named; repeat the flag for up to ${MAX_RESCORE_JUDGES} judges`,
    choices: () => JUDGE_PROTOCOLS,
  },
} as const satisfies OptionsDecl;

/**
 * How runs are launched, `experiment` (`--repeats` too), `resume`, `sweep run` and `reproduce`
 * (request.ts's launchCallsFromFlags); what a flag leaves unsaid is the launcher's policy
 * (core/launch/launch.ts), the same for each.
 */
export const LAUNCH_OPTIONS = {
  'keep-collections': {
    type: 'boolean',
    default: false,
    help: "keep each sample's collection directory after the run",
  },
  'no-preflight': {
    type: 'boolean',
    default: false,
    help: 'skip the one real call to each LLM and embeddings endpoint that otherwise refuses a run whose endpoint is down, unknown or refuses the key (every run is preflighted: each cell of a sweep, each repeat)',
  },
  'no-cache': {
    type: 'boolean',
    default: false,
    help: `ask the answerer's endpoint even for a request an earlier run made (with the response cache ${DEFAULT_RESPONSE_CACHE}, identical requests are answered from <data dir>/cache/llm-responses.sqlite and counted as cache hits; a repeat after the first keeps its own replies, never another repeat's)`,
  },
  'cache-only': {
    type: 'boolean',
    default: false,
    help: "never call the answerer's endpoint: replay an earlier run's answers from the cache, byte for byte (a request not in it is an error)",
  },
} as const satisfies OptionsDecl;

/**
 * The embedder of a preset's vectors (`experiment`) or of the pack rows that embed as their paper
 * did (`reproduce`): read into an OpenAI-compatible embedder by `request.ts` `embedderFlags`.
 */
export const EMBEDDER_OPTIONS = {
  'embedder-base-url': {
    type: 'string',
    value: '<url>',
    help: 'vector/hybrid presets: OpenAI-compatible /v1/embeddings endpoint, with /v1 (otherwise the offline embedder); vectors are cached in <data dir>/cache/embeddings.sqlite, so a rerun never re-embeds a text',
  },
  'embedder-model': { type: 'string', value: '<name>', help: 'embedder: embedding model' },
  'embedder-dimensions': {
    type: 'string',
    value: '<n>',
    help: 'embedder: ask for n-dimensional vectors (text-embedding-3 models)',
  },
  'embedder-api-key-env': {
    type: 'string',
    value: '<NAME>',
    help: 'embedder: environment variable holding its API key',
  },
} as const satisfies OptionsDecl;

/**
 * `--question-categories`' help: each profile's answerable set (its non-adversarial categories,
 * the `answerable` overall) in its own words, so no benchmark's numbers are written here.
 */
function questionCategoriesHelp(): string {
  const sets = benchmarkProfiles().flatMap((p) =>
    p.overallNames.answerable === null
      ? []
      : [
          `${p.label} ${p.categories.filter((c) => !c.adversarial).map((c) => c.id)} (${p.overallNames.answerable.note})`,
        ],
  );
  return `ask only questions of these stored categories; each benchmark's answerable ones: ${sets.join('; ')}`;
}

/**
 * `--adversarial-reply-mapping`'s help: what it reads, and where, in each profile's own words
 * (the profiles whose `adversarialQuestions` are asked as two options).
 */
function adversarialReplyHelp(): string {
  const where = benchmarkProfiles().flatMap((p) =>
    p.adversarialQuestions ? [`${p.label}: ${p.adversarialQuestions.help}`] : [],
  );
  return (
    "how a reply to a two-option adversarial question is read (locomo: LoCoMo's get_cat_5_answer, exactly; lenient: the earlier reading)" +
    (where.length > 0 ? `; asked so by ${where.join('; ')}` : '')
  );
}

/**
 * What a run measures and how it is named, as `experiment` takes it over a `--config` file
 * (request.ts's experimentRequestFromFlags turns them into the launch request).
 */
export const EXPERIMENT_OPTIONS = {
  data: {
    type: 'string',
    value: '<file>',
    help: 'dataset file, in any format a loader reads',
  },
  samples: {
    type: 'string',
    value: '<ids>',
    help: 'comma-separated sample ids',
    absent: 'all',
  },
  preset: configOption('memory.preset', {
    type: 'string',
    value: '<name>',
    help: 'memory preset; --memory <name> is the same',
  }),
  memory: { type: 'string', value: '<name>', help: 'the same as --preset' },
  'memory-url': {
    type: 'string',
    value: '<url>',
    help: 'your own memory service, running on 127.0.0.1 (preset external; docs/memory-protocol.md)',
  },
  'memory-command': {
    type: 'string',
    value: '"<cmd>"',
    help: 'your own memory service as a process this command starts per sample, speaking JSON lines on stdio, e.g. "python3 my_memory.py"',
  },
  'memory-allow-remote': {
    type: 'boolean',
    default: false,
    help: 'let --memory-url name a host other than this machine',
  },
  config: {
    type: 'string',
    value: '<file.json>',
    help: 'experiment config (any ExperimentConfig fields); flags override it',
  },
  parallel: configOption('parallel', {
    type: 'string',
    value: '<n>',
    help: "samples at once, one worker thread each (at most the cores unless the answerer is an LLM, whose lanes wait on the endpoint; an LLM lane starts its next sample while the last one's answers end)",
  }),
  concurrency: {
    type: 'string',
    value: '<n>',
    help: "LLM requests in flight per endpoint, one budget for the whole run (all samples and workers); a test's questions are then answered concurrently, committed in question order",
    absent: `${DEFAULT_RUN_CONCURRENCY} with the LLM answerer, else one at a time`,
  },
  'max-consecutive-failures': {
    type: 'string',
    value: '<n>',
    help: 'pause the run after n LLM answers failing in a row; `cli resume <run id>` continues it once the endpoint is fixed',
    absent: DEFAULT_MAX_CONSECUTIVE_FAILURES,
  },
  'top-k': configOption('retrieval.topK', {
    type: 'string',
    value: '<n>',
    help: 'memories retrieved per question',
  }),
  'context-words': {
    type: 'string',
    value: '<n>',
    help: 'equal-context-budget mode: trim the retrieved memories to n words',
  },
  seed: configOption('seed', { type: 'string', value: '<n>', help: 'run seed' }),
  name: {
    type: 'string',
    value: '<text>',
    help: "the run's name (shown in the Runs and Compare views; editable later)",
  },
  tag: {
    type: 'string',
    multiple: true,
    value: '<tag>',
    help: 'a tag for the run; repeat for more (no commas)',
  },
  notes: { type: 'string', value: '<text>', help: 'free-text notes kept with the run' },
  repeats: {
    type: 'string',
    value: '<n>',
    help: 'run the whole experiment n times (repeat r with seed + r), grouped as one repeat group, and print each metric as mean ± std over the n complete runs (sample std); the same command again resumes the group',
  },
  errata: {
    type: 'string',
    value: '<file>',
    help: 'apply a dataset errata file (YAML/JSON: sample, question index or text, corrected, source); recorded in the manifest with its sha256, scores printed against the original and the corrected gold, with the per-category ceiling (examples/errata/locomo10-errata.yaml)',
  },
  'exclude-no-evidence': {
    type: 'boolean',
    default: false,
    help: "leave out questions without usable evidence (otherwise asked at the last packet, so n is the dataset's question count)",
  },
  'question-categories': {
    type: 'string',
    value: '<n,...>',
    help: questionCategoriesHelp(),
    absent: 'all',
  },
  mode: {
    type: 'string',
    help: "stream: test as questions become visible, and once more after the last packet; ingest-all: insert everything, then ask every question once (the papers' protocol)",
    choices: () => PROTOCOL_MODES,
    absent: DEFAULT_PROTOCOL_MODE,
  },
  // The default since issue 11; still accepted so existing scripts keep working.
  'include-no-evidence': {
    type: 'boolean',
    default: false,
    hidden: true,
    help: 'ask questions without usable evidence at the last packet',
  },
  'max-error-share': {
    type: 'string',
    value: '<x>',
    help: 'share of errored final answers (0-1) above which the run ends "degraded", exit code 3 (every answer errored: "failed")',
    absent: DEFAULT_MAX_ERROR_SHARE,
  },
  'skip-invalid': {
    type: 'boolean',
    default: false,
    help: "run the valid samples of a file that also holds invalid ones (refused otherwise); the run's manifest and this report list what was skipped",
  },
  answerer: configOption('answerer.kind', {
    type: 'string',
    help: 'who answers (extractive: offline)',
    choices: ANSWERER_KINDS,
  }),
  'base-url': {
    type: 'string',
    value: '<url>',
    help: 'LLM answerer: OpenAI-compatible endpoint, with /v1',
  },
  model: { type: 'string', value: '<name>', help: 'LLM answerer: chat model' },
  'answer-protocol': {
    type: 'string',
    value: '<name>',
    help: "LLM answerer's protocol (locomo-*, mem0* and longmemeval* are the papers' own prompts, byte for byte); without --answerer llm the extractive answerer runs offline and the manifest records the protocol",
    choices: () => ANSWER_PROTOCOLS,
    // A benchmark whose profile names a reader gets it; the others the workbench's own.
    absent: () => {
      const own = benchmarkProfiles().flatMap((p) =>
        p.defaultAnswerProtocol === undefined ? [] : [`${p.label}: ${p.defaultAnswerProtocol}`],
      );
      const fallback = answerProtocolOf({});
      return own.length === 0
        ? fallback
        : `the benchmark's own reader (${own.join(', ')}), else ${fallback}`;
    },
  },
  'prompt-style': {
    type: 'string',
    help: "older name for --answer-protocol workbench-<style>, the workbench's earlier prompts: --prompt-style mem0 is workbench-mem0, not Mem0's own prompt (--answer-protocol mem0)",
    choices: () => PROMPT_STYLES,
  },
  'adversarial-reply-mapping': configOption('answerer.adversarialReplyMapping', {
    type: 'string',
    help: adversarialReplyHelp(),
    choices: () => ADVERSARIAL_REPLY_MAPPINGS,
  }),
  'category5-mapping': {
    type: 'string',
    help: 'deprecated: the old name of --adversarial-reply-mapping',
    deprecatedFor: 'adversarial-reply-mapping',
    choices: () => ADVERSARIAL_REPLY_MAPPINGS,
  },
  'context-tokens': configOption('answerer.contextTokens', {
    type: 'string',
    value: '<n>',
    help: 'locomo-full-context: context budget, cut from the end',
  }),
  'batch-size': {
    type: 'string',
    value: '<n>',
    help: "locomo-full-context: questions to a prompt, LoCoMo's batch prompt (its scripts: 10 for gpt-3.5-turbo, 20 for gpt-4-turbo)",
    absent: 1,
  },
  'api-key-env': {
    type: 'string',
    value: '<NAME>',
    help: 'LLM answerer: environment variable holding the API key',
  },
  ...JUDGE_OPTIONS,
  'memory-base-url': {
    type: 'string',
    value: '<url>',
    help: 'memory LLM (memoryos long-term facts, tiers summaries): endpoint, with /v1',
  },
  'memory-model': { type: 'string', value: '<name>', help: 'memory LLM: chat model' },
  'memory-api-key-env': {
    type: 'string',
    value: '<NAME>',
    help: 'memory LLM: environment variable holding its API key',
  },
  'memory-llm-max-tokens': {
    type: 'string',
    value: '<n>',
    help: 'memory LLM: max_tokens of each reply; a reply cut off there is a warning, a memory left empty fails the run',
    absent: DEFAULT_MEMORY_LLM_MAX_TOKENS,
  },
  ...EMBEDDER_OPTIONS,
} as const satisfies OptionsDecl;
