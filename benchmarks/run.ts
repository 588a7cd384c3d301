/**
 * Benchmarks on the real LoCoMo file: `npm run bench -- <suite> [--data <file>] [--no-write]`.
 *
 *   retrieval  every turn preset side by side with reference retrievers: recall, latency, ingest
 *   growth     the default preset on one sample repeated 1, 4 and 16 times: how a query's cost grows
 *   pipeline   the full experiment engine over all samples (workers, runs DB, extractive answers)
 *   compare    the Compare view's request over two full runs
 *   compare-view  the Compare view's engine and shaping over 2 x 1,986 answers built in memory
 *   embed      the offline wink embedder over 6,000 turns
 *   sweep      a 12-cell sweep: local executor vs BullMQ on 1, 2 and 4 worker processes
 *   runsdb     corruption checks and repair on a ~100 MB runs database (no dataset needed)
 *   server     light API calls' latency while the local server serves a heavy read mix
 *   server-reproduce  the same while reproduce.results reads two packs' runs (full size)
 *   llm        a full LLM run at 1 s per call under a rate limit: concurrency, cache, rate
 *   ui         a full run from the Experiments view in Chromium vs the same run from the CLI, then
 *              issue 26's budget over 200 runs (--budget-only: the budget alone; --full-run-db <file>:
 *              a runs DB holding one full run to build from, instead of running one)
 *   longmemeval  M-scale ingest (streamed, one memory per question): turns/s, peak RSS, wall time
 *   dataset-open  datasets.open of a ~400 MB file: app.info latency meanwhile, peak RSS, main vs worker
 *   mem0       the released Mem0 library as a preset: ingest calls, tokens and wall per conversation
 *   beam       BEAM offline: the 20 chats of 100K, and a 10M-token conversation built from them
 *
 * Each suite prints its report and replaces its own section of docs/benchmarks.md.
 */
import { parseArgs } from 'node:util';
import { resolveDataset } from './common';
import { compareSuite } from './compare';
import { llmSuite } from './llm';
import { pipelineSuite } from './pipeline';
import { retrievalSuite } from './retrieval';
import { growthSuite } from './growth';
import { sweepSuite } from './sweep';
import { runsDbSuite } from './runsdb';
import { serverSuite } from './server';
import { serverReproduceSuite } from './server-reproduce';
import { uiSuite } from './ui';
import { longMemEvalSuite } from './longmemeval';
import { datasetOpenSuite } from './dataset-open';
import { mem0Suite } from './mem0';
import { beamSuite } from './beam';
import { compareViewSuite } from './compare-view';
import { embedSuite } from './embed';

const SUITES: Record<string, (data: string, write: boolean, extra: string[]) => Promise<void>> = {
  retrieval: retrievalSuite,
  growth: growthSuite,
  pipeline: pipelineSuite,
  compare: compareSuite,
  sweep: sweepSuite,
  runsdb: runsDbSuite,
  server: serverSuite,
  'server-reproduce': serverReproduceSuite,
  llm: llmSuite,
  ui: uiSuite,
  longmemeval: longMemEvalSuite,
  'dataset-open': datasetOpenSuite,
  mem0: mem0Suite,
  beam: beamSuite,
  'compare-view': compareViewSuite,
  embed: embedSuite,
};

const USAGE = `usage: npm run bench -- <${Object.keys(SUITES).join('|')}> [--data <file>] [--no-write] [--no-ablation] [--budget-only] [--full-run-db <file>] [--baseline-renderer <dir>] [--samples <tune|held-out|ids>]\n`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      data: { type: 'string' },
      'no-write': { type: 'boolean', default: false },
      'no-ablation': { type: 'boolean', default: false },
      'budget-only': { type: 'boolean', default: false },
      'full-run-db': { type: 'string' },
      'baseline-renderer': { type: 'string' },
      samples: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [name] = positionals;
  const suite = name === undefined ? undefined : SUITES[name];
  if (!suite) {
    process.stderr.write(`bench: unknown suite ${JSON.stringify(name ?? '')}\n${USAGE}`);
    return 2;
  }
  // runsdb builds its own database and needs no LoCoMo file, nor do compare-view and embed; beam
  // reads ../shared/datasets/beam. LongMemEval reads the file given with --data (a synthetic M
  // file), never locomo10.json.
  const data =
    name === 'runsdb' || name === 'beam' || name === 'compare-view' || name === 'embed'
      ? ''
      : name === 'longmemeval'
        ? (values.data ?? '')
        : resolveDataset(values.data);
  const extra = [
    ...(values['no-ablation'] ? ['no-ablation'] : []),
    ...(values['budget-only'] ? ['budget-only'] : []),
    ...(values['full-run-db'] === undefined ? [] : [`full-run-db=${values['full-run-db']}`]),
    ...(values['baseline-renderer'] === undefined
      ? []
      : [`baseline-renderer=${values['baseline-renderer']}`]),
    ...(values.samples !== undefined ? [`samples=${values.samples}`] : []),
  ];
  await suite(data, !values['no-write'], extra);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
