import { DEFAULT_SCHEME } from '../../../src-shared/benchmarks';
import {
  ANSWER_PROTOCOLS,
  DEFAULT_MEMORY_LLM_MAX_TOKENS,
  JUDGE_PROTOCOLS,
} from '../../../src-shared/experiment';
import { launchRun } from '../../core/launch/launch';
import { estimateOf } from '../../core/pipeline/plan';
import { UsageError, defineCommand } from '../command';
import { helpList } from '../helpList';
import {
  EXPERIMENT_OPTIONS,
  JSON_OPTION,
  KEY_ENV_OPTION,
  LAUNCH_OPTIONS,
  LAUNCH_OPTIONS_HELP,
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
import { dryRun, errataReport, progressReporter, reportOutcome, superviseRun } from '../runOutput';
import { openStore } from '../runsApi';
import { ensureWordVectorCache } from '../wordVectors';

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
  --parallel <n>            samples at once, one worker thread each (default 1; at most the
                            cores unless the answerer is an LLM, whose lanes wait on the endpoint;
                            an LLM lane starts its next sample while the last one's answers end)
  --concurrency <n>         LLM requests in flight per endpoint, one budget for the whole run
                            (all samples and workers); a test's questions are then answered
                            concurrently, committed in question order (default: 32 with the LLM
                            answerer, else one at a time)
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
                            (default: the dataset's own reader, longmemeval on LongMemEval, else
                            workbench-locomo; locomo-*, mem0* and longmemeval* are the
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
  --memory-llm-max-tokens <n>  memory LLM: max_tokens of each reply (default ${DEFAULT_MEMORY_LLM_MAX_TOKENS}); a reply
                            cut off there is a warning, a memory left empty fails the run
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
${LAUNCH_OPTIONS_HELP}
  --dry-run                 print what the run would ask of its LLM endpoints (answer and judge
                            calls, estimated prompt/completion tokens, cost at the configured
                            prices) and stop; nothing is called or written
  --scheme <official|mem0>  category names in the table (default: ${DEFAULT_SCHEME})
  --json                    print exactly one JSON object (run id, status, summary) on stdout
  -h, --help                show this help

Ctrl-C cancels gracefully (committed tests stay; "resume <id>" continues); a second Ctrl-C exits.

exit codes: 0 completed, 1 failed (or an error before the run), 2 usage error, 3 degraded (too many
errored answers), 4 paused by the circuit breaker (resume once the endpoint works), 130 cancelled.
`;

export const experimentCommand = defineCommand({
  summary: 'run a memory preset over a dataset, score it and record the run',
  usage: USAGE,
  options: {
    ...EXPERIMENT_OPTIONS,
    'dry-run': { type: 'boolean', default: false },
    ...KEY_ENV_OPTION,
    ...RUNS_DB_OPTIONS,
    ...LAUNCH_OPTIONS,
    ...SCHEME_OPTION,
    ...JSON_OPTION,
  },
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
        errataReport(store, outcome.runId, scheme),
      );
    } finally {
      store.close();
    }
  },
});
