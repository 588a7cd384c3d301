import { axisValueLabel } from '../../../src-shared/sweeps';
import type { SampleExecutor } from '../../core/pipeline/executors';
import { checkMemoryConfig } from '../../core/pipeline/loadPresets';
import { planSweep, type CellPlan, type SweepPlan } from '../../core/pipeline/plan';
import { runSweep } from '../../core/sweeps/run';
import { readSweepFile } from '../../core/sweeps/spec';
import { DEFAULT_QUEUE } from '../../core/sweeps/queueDefaults';
import {
  UsageError,
  defineCommand,
  positiveIntFlag,
  type CliIO,
  type FlagValues,
} from '../command';
import { ensureWordVectorCache } from '../wordVectors';
import { openStore } from '../runsApi';
import { JSON_OPTION, KEY_ENV_OPTION, LAUNCH_OPTIONS, RUNS_DB_OPTIONS } from '../options';
import { apiKeysFromFlags, launchCallsFromFlags } from '../request';

const DESCRIPTION = `A sweep is a base experiment config plus axes (dotted config paths and their values); its grid
is the cartesian product of the axes, each cell "repeats" times. Every cell is validated before
anything runs, and each becomes an ordinary run in the runs database tagged with the sweep.

  plan   prints the grid, the LLM calls it will make (answers, judge) and a cost estimate
  run    runs the grid; running the same spec again skips completed cells and resumes the rest`;

const EPILOGUE = `spec example (YAML):
  name: topk-ablation
  base: { datasetPath: ../datasets/locomo10.json, samples: [conv-26] }
  axes:
    memory.preset: [hybrid, text]
    retrieval.topK: [5, 10, 25]
  repeats: 1`;

const fmtInt = (n: number): string => n.toLocaleString('en-US');
/** Cents for real sweeps, more digits for the tiny ones (a fixture costs fractions of a cent). */
const money = (c: number): string => `$${c >= 1 ? c.toFixed(2) : c.toPrecision(2)}`;
const fmtCost = (c: number | null): string => (c === null ? 'n/a (no prices)' : money(c));

function planTable(plan: SweepPlan): string {
  const header = ['cell', 'samples', 'tests', 'answers', 'answer calls', 'judge calls', 'cost'];
  const rows = plan.cells.map((c: CellPlan) => [
    c.key,
    fmtInt(c.samples),
    fmtInt(c.tests),
    fmtInt(c.questions),
    fmtInt(c.answerCalls),
    fmtInt(c.judgeCalls),
    c.cost === null ? '-' : money(c.cost),
  ]);
  const t = plan.totals;
  rows.push([
    `total (${plan.cells.length} cells)`,
    fmtInt(t.samples),
    fmtInt(t.tests),
    fmtInt(t.questions),
    fmtInt(t.answerCalls),
    fmtInt(t.judgeCalls),
    t.cost === null ? '-' : money(t.cost),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]): string =>
    r.map((v, i) => (i === 0 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/** Cells at once: one locally, more when BullMQ workers run the samples. */
const CELLS_AT_ONCE = { local: 1, distributed: 8 } as const;

const SWEEP_OPTIONS = {
  redis: {
    type: 'string',
    value: '<url>',
    help: 'distributed: enqueue samples on BullMQ at this Redis (redis://host:6379); "cli worker --redis <url>" processes them',
  },
  queue: {
    type: 'string',
    value: '<name>',
    help: "BullMQ queue (the workers' --queue must match)",
    absent: DEFAULT_QUEUE,
  },
  'cells-at-once': {
    type: 'string',
    value: '<n>',
    help: 'cells running at once',
    absent: `${CELLS_AT_ONCE.local}; with --redis ${CELLS_AT_ONCE.distributed}`,
  },
  ...LAUNCH_OPTIONS,
  'cache-only': {
    ...LAUNCH_OPTIONS['cache-only'],
    help: `${LAUNCH_OPTIONS['cache-only'].help} (with --redis the workers have no response cache: it is off, and --cache-only is refused)`,
  },
  ...RUNS_DB_OPTIONS,
  ...KEY_ENV_OPTION,
  ...JSON_OPTION,
} as const;

async function plan(file: string, json: boolean, io: CliIO): Promise<number> {
  const sweep = readSweepFile(file);
  for (const cell of sweep.cells) {
    await checkMemoryConfig(cell.config, `sweep spec ${file}: cell ${cell.key}`);
  }
  const result = await planSweep(sweep.cells);
  if (json) {
    io.stdout(`${JSON.stringify({ sweepId: sweep.sweepId, name: sweep.spec.name, ...result })}\n`);
    return 0;
  }
  const axes = Object.entries(sweep.spec.axes)
    .map(([p, v]) => `${p} = [${v.map(axisValueLabel).join(', ')}]`)
    .join('; ');
  io.stdout(
    `sweep ${sweep.sweepId}: ${sweep.cells.length} cells (${axes || 'no axes'}; repeats ${sweep.spec.repeats})\n\n`,
  );
  io.stdout(`${planTable(result)}\n\n`);
  const t = result.totals;
  io.stdout(
    `LLM calls: ${fmtInt(t.answerCalls)} answer + ${fmtInt(t.judgeCalls)} judge (at most: identical rows are judged once); ` +
      `about ${fmtInt(t.promptTokens)} prompt and at most ${fmtInt(t.completionTokens)} completion tokens; ` +
      `estimated cost ${fmtCost(t.cost)}. Memory-LLM calls are not estimated.\n`,
  );
  return 0;
}

/** The distributed executor loads BullMQ only when asked for, so the local path needs none of it. */
async function distributedExecutor(
  url: string,
  queue: string | undefined,
): Promise<{ executor: SampleExecutor; close: () => Promise<void>; shownUrl: string }> {
  const { bullmqExecutor, displayRedisUrl } = await import('../../core/sweeps/distributed');
  const distributed = await bullmqExecutor({
    redisUrl: url,
    ...(queue !== undefined ? { queue } : {}),
  });
  return { ...distributed, shownUrl: displayRedisUrl(url) };
}

async function run(
  file: string,
  values: FlagValues<typeof SWEEP_OPTIONS>,
  io: CliIO,
): Promise<number> {
  const sweep = readSweepFile(file);
  const calls = launchCallsFromFlags(values);
  const redis = values.redis;
  const cellsAtOnce =
    positiveIntFlag('--cells-at-once', values['cells-at-once']) ??
    (redis ? CELLS_AT_ONCE.distributed : CELLS_AT_ONCE.local);
  await ensureWordVectorCache(io);
  const { store, dataDir } = openStore(values['runs-db'], values['data-dir']);
  const distributed = redis ? await distributedExecutor(redis, values.queue) : null;
  const controller = new AbortController();
  const onSigint = (): void => {
    if (controller.signal.aborted) process.exit(130);
    io.stderr('\ncancelling the sweep: running cells finish their question in flight\n');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    io.stderr(
      `sweep ${sweep.sweepId}: ${sweep.cells.length} cells${distributed ? ` on ${distributed.shownUrl}` : ''}\n`,
    );
    const outcome = await runSweep(sweep, {
      store,
      dataDir,
      cellsAtOnce,
      signal: controller.signal,
      apiKeys: apiKeysFromFlags(values['allow-key-env']),
      keepCollections: values['keep-collections'],
      ...calls,
      ...(distributed ? { executor: distributed.executor } : {}),
      onCell: (e) => {
        if (e.status === undefined && e.action !== 'skipped') {
          io.stderr(
            `cell ${e.cell.index + 1}/${sweep.cells.length} ${e.cell.key}: ${e.action} run ${e.runId}\n`,
          );
        } else {
          io.stderr(
            `cell ${e.cell.index + 1}/${sweep.cells.length} ${e.cell.key}: ${e.action === 'skipped' ? 'already completed' : e.status} (run ${e.runId})${e.error ? `: ${e.error}` : ''}\n`,
          );
        }
      },
    });
    if (values.json) io.stdout(`${JSON.stringify(outcome)}\n`);
    else {
      for (const c of outcome.cells) {
        io.stdout(`${c.key}\t${c.status}\t${c.runId ?? '-'}${c.error ? `\t${c.error}` : ''}\n`);
      }
      io.stdout(
        `\nsweep ${outcome.sweepId}: ${outcome.completed}/${outcome.cells.length} cells completed` +
          `${outcome.failed > 0 ? `; run the same command again to resume the rest` : ''}\n`,
      );
    }
    if (controller.signal.aborted) return 130;
    return outcome.failed === 0 ? 0 : 1;
  } finally {
    process.off('SIGINT', onSigint);
    await distributed?.close();
    store.close();
  }
}

export const sweepCommand = defineCommand({
  summary: 'plan or run a grid of experiments (locally, or on BullMQ workers with --redis)',
  usage: `usage: npm run -s cli -- sweep plan <spec.yaml|spec.json> [--json]
       npm run -s cli -- sweep run <spec.yaml|spec.json> [options]`,
  description: DESCRIPTION,
  epilogue: EPILOGUE,
  optionsHeading: 'options (run)',
  options: SWEEP_OPTIONS,
  async run({ values, positionals }, io) {
    const [action, file, ...extra] = positionals;
    if (action !== 'plan' && action !== 'run') {
      throw new UsageError(
        `sweep needs "plan" or "run" (got ${action === undefined ? 'nothing' : `"${action}"`})`,
      );
    }
    if (file === undefined || extra.length > 0)
      throw new UsageError(`sweep ${action} takes one spec file`);
    if (action === 'plan') return plan(file, values.json, io);
    return run(file, values, io);
  },
});
