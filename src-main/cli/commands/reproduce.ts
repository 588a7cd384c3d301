import { resolve } from 'node:path';
import {
  packCellLabel,
  packRowStatus,
  packSourceLine,
  signedDiff,
  storedRowsText,
  table2Figure,
  type PackCell,
  type PackListItem,
  type PackResults,
  type PackTable2Cell,
  type ReproducePack,
} from '../../../src-shared/reproduce';
import { metricOf } from '../../../src-shared/metrics';
import { formatMeanStd } from '../../../src-shared/repeats';
import { runnableRows, type PackEndpoints } from '../../core/reproduce/packs';
import type { Prices } from '../../core/reproduce/run';
import {
  preparePack,
  reproducePack,
  reproducePacks,
  reproduceResults,
  runPreparedPack,
} from '../../core/reproduce/service';
import { recordedUserFiles } from '../../core/datasets';
import type { CliIO } from '../command';
import { UsageError, defineCommand } from '../command';
import { ensureWordVectorCache } from '../wordVectors';
import { openExistingStore, openStore } from '../runsApi';
import {
  EMBEDDER_OPTIONS,
  EXPERIMENT_OPTIONS,
  JSON_OPTION,
  JUDGE_ENDPOINT_OPTIONS,
  KEY_ENV_OPTION,
  LAUNCH_OPTIONS,
  RUNS_DB_OPTIONS,
} from '../options';
import { apiKeysFromFlags, embedderFromFlags, launchCallsFromFlags } from '../request';

const DESCRIPTION = `Runs a paper's table as a reproduce pack: the paper's answer protocol, answerer and judge models,
question set and repeat count, one repeat group per row whose memory preset the workbench has,
then prints the paper's published figure beside ours for every cell, with the difference. Before
anything runs it prints the LLM calls, the estimated tokens and the cost.

Without --base-url it runs offline with the extractive answerer and no judge, and says that this
is not the paper's setting (metrics that need the judge stay empty).`;

const fmtInt = (n: number): string => n.toLocaleString('en-US');

/** Every pack, whether it runs here, and what the runs DB (if there is one yet) holds of it. */
async function printPacks(
  io: CliIO,
  json: boolean,
  flags: { 'runs-db'?: string | undefined; 'data-dir'?: string | undefined },
): Promise<number> {
  const opened = openExistingStore(flags['runs-db'], flags['data-dir']);
  let items: PackListItem[];
  try {
    items = await reproducePacks(opened?.store ?? null);
  } finally {
    opened?.store.close();
  }
  if (json) {
    const packs = items.map(({ pack, runnable, reason, stored }) => ({
      id: pack.id,
      title: pack.title,
      runnable,
      reason,
      stored,
    }));
    io.stdout(`${JSON.stringify({ packs })}\n`);
    return 0;
  }
  for (const { pack, runnable, stored } of items) {
    const held = stored && stored.rows > 0 ? `\tstored runs: ${storedRowsText(stored)}` : '';
    io.stdout(`${pack.id}\t${runnable ? 'runnable' : 'not runnable yet'}\t${pack.title}${held}\n`);
  }
  for (const p of items.filter((x) => !x.runnable)) io.stdout(`\n${p.reason}\n`);
  return 0;
}

function parsePrices(value: string | undefined): Prices | undefined {
  if (value === undefined) return undefined;
  const [a, b] = value.split(',').map(Number);
  if (a === undefined || b === undefined || !(a >= 0) || !(b >= 0))
    throw new UsageError(`--prices must be two non-negative numbers "in,out" (got "${value}")`);
  return { inputPerMillion: a, outputPerMillion: b };
}

/** Paper vs ours, one line per cell, in the pack's category naming. */
function comparisonTable(pack: ReproducePack, cells: readonly PackCell[]): string {
  const header = ['row', 'metric', 'cell', 'paper', 'ours', 'ours - paper'];
  const name = (cell: string): string => packCellLabel(pack, cell);
  const rows = cells.map((c) => [
    c.row,
    metricOf(c.metric).label,
    name(c.cell),
    formatMeanStd({ mean: c.paper, std: c.paperStd }, pack.decimals),
    formatMeanStd({ mean: c.ours, std: c.oursStd }, pack.decimals),
    signedDiff(c.diff, pack.decimals, '-'),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string =>
    r.map((v, i) => (i < 3 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/** Mem0 Table 2's latency and memory-token figures, paper vs ours, in the paper's units. */
function table2Table(cells: readonly PackTable2Cell[]): string {
  const header = ['row', 'figure', 'paper', 'ours', 'ours - paper'];
  const rows = cells.map((c) => {
    const figure = table2Figure(c.column, c.paper, '-');
    return [
      c.row,
      figure.label,
      figure.text,
      table2Figure(c.column, c.ours, '-').text,
      figure.diff(c.diff),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string =>
    r.map((v, i) => (i < 2 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/** Paper vs ours over the runs stored for the pack, whichever surface made them. */
function printResults(io: CliIO, pack: ReproducePack, results: PackResults, json: boolean): number {
  if (json) {
    io.stdout(`${JSON.stringify({ pack: pack.id, ...results })}\n`);
    return 0;
  }
  io.stdout(`${pack.title}\nsource: ${packSourceLine(pack)}\n`);
  const ran = new Map(results.rows.map((r) => [r.row, r]));
  io.stdout('\nstored runs per row (the newest complete group):\n');
  for (const row of runnableRows(pack, true)) {
    const stored = ran.get(row.id);
    io.stdout(
      stored
        ? `${row.id}: ${packRowStatus(stored)}; dataset ${stored.dataset.file}\n  ${stored.command}\n`
        : `${row.id}: no stored runs\n`,
    );
  }
  io.stdout(
    `\npaper vs ours (${pack.scheme} category names, x${pack.scale}):\n${comparisonTable(pack, results.cells)}\n`,
  );
  if (results.table2.length > 0)
    io.stdout(
      `\nlatency and memory tokens per question, paper vs ours (Table 2's units):\n${table2Table(results.table2)}\n`,
    );
  return 0;
}

export const reproduceCommand = defineCommand({
  summary:
    "run a paper's table (protocol, models, questions, repeats) and compare with its figures",
  usage: `usage: npm run -s cli -- reproduce list
       npm run -s cli -- reproduce <pack> --data <locomo10.json> [options]
       npm run -s cli -- reproduce <pack> --show [--data-dir <dir>]`,
  description: DESCRIPTION,
  options: {
    data: { ...EXPERIMENT_OPTIONS.data, help: "dataset file (the paper's: locomo10.json)" },
    samples: {
      ...EXPERIMENT_OPTIONS.samples,
      help: 'comma-separated sample ids (the paper used all)',
    },
    'base-url': {
      ...EXPERIMENT_OPTIONS['base-url'],
      help: 'answerer endpoint, OpenAI-compatible, with /v1',
      absent: 'offline',
    },
    model: {
      ...EXPERIMENT_OPTIONS.model,
      help: 'answerer model for every row',
      absent: "the paper's, per row",
    },
    'api-key-env': {
      ...EXPERIMENT_OPTIONS['api-key-env'],
      help: "environment variable holding the answerer's (and judge's) API key",
    },
    'judge-base-url': { ...JUDGE_ENDPOINT_OPTIONS['judge-base-url'], absent: '--base-url' },
    'judge-model': { ...JUDGE_ENDPOINT_OPTIONS['judge-model'], absent: "the paper's" },
    'judge-api-key-env': JUDGE_ENDPOINT_OPTIONS['judge-api-key-env'],
    prices: {
      type: 'string',
      value: '<in,out>',
      help: 'USD per million prompt and completion tokens, for the estimate',
    },
    repeats: {
      type: 'string',
      value: '<n>',
      help: "complete runs per row instead of the paper's count (said in the report)",
    },
    ...EMBEDDER_OPTIONS,
    'embedder-base-url': {
      ...EMBEDDER_OPTIONS['embedder-base-url'],
      help: "embedder of the rows that embed as their paper did (Mem0's and its RAG's: text-embedding-3-small), OpenAI-compatible, with /v1",
      absent: 'the offline word vectors',
    },
    plan: { type: 'boolean', default: false, help: 'print the plan and the estimate, run nothing' },
    show: {
      type: 'boolean',
      default: false,
      help: "print the pack's stored results (whichever surface ran them) beside the paper's, run nothing",
    },
    ...LAUNCH_OPTIONS,
    ...KEY_ENV_OPTION,
    ...RUNS_DB_OPTIONS,
    ...JSON_OPTION,
  },
  async run({ values, positionals }, io) {
    const [packId, ...rest] = positionals;
    if (packId === undefined) throw new UsageError('reproduce needs a pack id (or "list")');
    if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
    if (packId === 'list') return printPacks(io, values.json, values);
    const pack = await reproducePack(packId);
    if (values.show) {
      const { store, dataDir } = openStore(values['runs-db'], values['data-dir']);
      try {
        const results = await reproduceResults(pack.id, store, recordedUserFiles(dataDir));
        return printResults(io, pack, results, values.json);
      } finally {
        store.close();
      }
    }
    if (values.data === undefined) throw new UsageError('reproduce needs --data <file>');
    const repeats = values.repeats === undefined ? undefined : Number(values.repeats);
    if (repeats !== undefined && (!Number.isInteger(repeats) || repeats < 1 || repeats > 100))
      throw new UsageError(`--repeats must be an integer from 1 to 100 (got "${values.repeats}")`);
    const endpoints: PackEndpoints | undefined =
      values['base-url'] === undefined
        ? undefined
        : {
            baseUrl: values['base-url'],
            ...(values.model ? { model: values.model } : {}),
            ...(values['api-key-env'] ? { apiKeyEnv: values['api-key-env'] } : {}),
            ...(values['judge-base-url'] ? { judgeBaseUrl: values['judge-base-url'] } : {}),
            ...(values['judge-model'] ? { judgeModel: values['judge-model'] } : {}),
            ...(values['judge-api-key-env'] ? { judgeApiKeyEnv: values['judge-api-key-env'] } : {}),
          };
    const prices = parsePrices(values.prices);
    const calls = launchCallsFromFlags(values);
    const samples = values.samples
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const prepared = await preparePack(pack, {
      datasetPath: resolve(values.data),
      samples,
      repeats,
      prices,
      endpoints,
      embedder: embedderFromFlags(values),
    });
    const { offline, setting, plan: t } = prepared;
    const repeatNote =
      prepared.repeats === pack.repeats
        ? `${prepared.repeats} complete run(s) per row, as the paper`
        : `${prepared.repeats} complete run(s) per row (the paper: ${pack.repeats})`;
    const estimate = `LLM calls: ${fmtInt(t.answerCalls)} answer + ${fmtInt(t.judgeCalls)} judge (at most); about ${fmtInt(t.promptTokens)} prompt and at most ${fmtInt(t.completionTokens)} completion tokens; estimated cost ${t.cost === null ? 'n/a (give --prices in,out)' : `$${t.cost.toFixed(2)}`}. Memory-LLM calls are not estimated.`;
    if (!values.json) {
      io.stdout(
        `${pack.title}\nsource: ${packSourceLine(pack)}\n${pack.source.note}\nthe paper's questions: ${pack.source.questionSet}\n`,
      );
      io.stdout(
        `${setting}\n${repeatNote}; rows run: ${runnableRows(pack, !offline)
          .map((r) => `${r.id} (${r.label})`)
          .join(', ')}; paper-only rows: ${
          pack.rows
            .filter((r) => r.preset === null)
            .map((r) => r.id)
            .join(', ') || 'none'
        }\n${estimate}\n`,
      );
    }
    if (values.plan) {
      if (values.json)
        io.stdout(
          `${JSON.stringify({ pack: pack.id, offline, repeats: prepared.repeats, plan: t, setting })}\n`,
        );
      return 0;
    }

    await ensureWordVectorCache(io);
    const { store, dataDir } = openStore(values['runs-db'], values['data-dir']);
    let result: Awaited<ReturnType<typeof runPreparedPack>>;
    try {
      const apiKeys = apiKeysFromFlags(values['allow-key-env']);
      result = await runPreparedPack(prepared, {
        store,
        dataDir,
        apiKeys,
        keepCollections: values['keep-collections'],
        ...calls,
        onCell: (row, e) => {
          if (e.status !== undefined || e.action === 'skipped')
            io.stderr(
              `${row} repeat ${e.cell.repeat + 1}/${prepared.repeats}: run ${e.runId} ${e.status ?? e.action}${e.error ? ` (${e.error})` : ''}\n`,
            );
        },
      });
    } finally {
      store.close();
    }
    const { cells, table2, groups, incomplete, failures } = result;
    for (const f of failures)
      io.stderr(
        `${f.row} repeat ${f.repeat + 1}/${prepared.repeats}: not completed${f.runId ? ` (run ${f.runId})` : ''}: ${f.error}\n`,
      );
    if (values.json) {
      io.stdout(
        `${JSON.stringify({ pack: pack.id, offline, setting, repeats: prepared.repeats, plan: t, groups, cells, table2, failures })}\n`,
      );
    } else {
      io.stdout(
        `\npaper vs ours (${pack.scheme} category names, x${pack.scale}):\n${comparisonTable(pack, cells)}\n`,
      );
      if (table2.length > 0)
        io.stdout(
          `\nlatency and memory tokens per question, paper vs ours (Table 2's units):\n${table2Table(table2)}\n`,
        );
      if (offline) io.stdout(`\n${setting}\n`);
      if (incomplete > 0)
        io.stdout(
          `${incomplete} row(s) have fewer complete runs than asked: run the same command again to resume them\n`,
        );
    }
    return incomplete === 0 ? 0 : 1;
  },
});
