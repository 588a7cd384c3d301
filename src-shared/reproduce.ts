import { z } from 'zod';
import { LOCOMO_PROFILE, categoryLabel, isAdversarial, type BenchmarkProfile } from './benchmarks';
import type { Table2Columns } from './compare';
import type { RepeatSummary } from './repeats';
import type { RunStatus } from './experiment';
import type { ExperimentEstimate } from './runs';

/**
 * Reproduce packs (issue 12 item 6): a paper table as data — the answer protocol, the answerer and
 * judge the paper used, the question set, the repeat count and, per row, the workbench memory
 * preset that plays the paper's system — with the paper's published figures and their source.
 * Packs name protocols and presets by registry id; src-main/core/reproduce checks every id when a
 * pack is loaded, so a pack whose ids do not exist yet is data, not a runnable pack.
 */

const ID = /^[a-z0-9][a-z0-9-]{0,63}$/;

/**
 * Every pack is a table of a LoCoMo paper: its `scheme` is one of LoCoMo's and its `categories`
 * are LoCoMo's numbers, so LoCoMo's profile names its cells and says which overall a cell reads.
 * A pack of another benchmark would carry its benchmark id in the schema instead.
 */
export const PACK_BENCHMARK: BenchmarkProfile = LOCOMO_PROFILE;

/** A table cell: a category number as a string, or `overall`. */
const CellKey = z.string().regex(/^(overall|\d+)$/, 'a category number or "overall"');

/** Mem0 Table 2's latency and token columns, in the order and units the paper prints them. */
export const PACK_TABLE2_COLUMNS = [
  { key: 'searchP50', label: 'search p50 (s)', decimals: 3 },
  { key: 'searchP95', label: 'search p95 (s)', decimals: 3 },
  { key: 'totalP50', label: 'total p50 (s)', decimals: 3 },
  { key: 'totalP95', label: 'total p95 (s)', decimals: 3 },
  { key: 'memoryTokens', label: 'memory tokens', decimals: 0 },
] as const;
export type PackTable2Key = (typeof PACK_TABLE2_COLUMNS)[number]['key'];

/** A row's Table 2 figures: seconds and tokens per question; null where the paper prints "-". */
const PackTable2Schema = z
  .object({
    searchP50: z.number().nonnegative().nullable(),
    searchP95: z.number().nonnegative().nullable(),
    totalP50: z.number().nonnegative().nullable(),
    totalP95: z.number().nonnegative().nullable(),
    memoryTokens: z.number().int().positive().nullable(),
  })
  .strict();
export type PackTable2 = z.output<typeof PackTable2Schema>;

export const PackRowSchema = z
  .object({
    id: z.string().regex(ID),
    label: z.string().min(1),
    /** The workbench memory preset that runs this row; null: the paper's figures only. */
    preset: z.string().regex(ID).nullable(),
    presetConfig: z.record(z.string(), z.unknown()).optional(),
    /** Overrides the pack's answer protocol for this row. */
    protocol: z.string().regex(ID).optional(),
    topK: z.number().int().positive().optional(),
    /** `locomo-full-context` budget in tokens. */
    contextTokens: z.number().int().positive().optional(),
    /** `locomo-full-context`: questions to a prompt, as the paper's runs asked them. */
    batchSize: z.number().int().min(1).max(100).optional(),
    /**
     * The row's preset needs a memory LLM (`mem0`): the pack's endpoint and answerer model serve
     * it, as the paper's systems used the same model; offline the row does not run.
     */
    memoryLlm: z.boolean().optional(),
    /**
     * The paper's system embedded with an API model (Mem0's evaluation: text-embedding-3-small):
     * the row's preset takes the embedder `reproduce --embedder-*` names, else the offline one.
     */
    takesEmbedder: z.boolean().optional(),
    /** The answerer model the paper used for this row, where it differs from the pack's. */
    model: z.string().min(1).optional(),
    /** Metric id -> cell -> the published value on the paper's scale (null: not published). */
    published: z.record(z.string(), z.record(CellKey, z.number().nullable())),
    /** The paper's ± (one standard deviation over its runs), where it prints one. */
    publishedStd: z.record(z.string(), z.record(CellKey, z.number().nonnegative())).optional(),
    /** The paper's latency and memory-token figures for the row (Mem0 Table 2). */
    publishedTable2: PackTable2Schema.optional(),
    /**
     * Ids the row had before a rename: its repeat groups stored under them (`<pack>.<id>`) are
     * resumed as its own, so a rename never orphans runs already made.
     */
    formerIds: z.array(z.string().regex(ID)).optional(),
  })
  .strict();

export const ReproducePackSchema = z
  .object({
    id: z.string().regex(ID),
    title: z.string().min(1),
    source: z
      .object({
        paper: z.string().min(1),
        table: z.string().min(1),
        arxiv: z.string().regex(/^\d{4}\.\d{4,5}$/),
        /** The version of the paper the figures are read from (versions print different tables). */
        edition: z.string().min(1),
        /** The paper's question set, beside which a run on the released file is compared. */
        questionSet: z.string().min(1),
        /**
         * `paper`: read in the paper's text; `secondary`: copied from public repositories that
         * quote the paper (named in `note`); `unverified`: no source text found, figures absent.
         */
        verified: z.enum(['paper', 'secondary', 'unverified']),
        note: z.string(),
      })
      .strict(),
    /** Category names in the table. */
    scheme: z.enum(['official', 'mem0']),
    /** The paper's scale: 100 when it prints percentages. */
    scale: z.number().positive(),
    /** Decimals the paper prints; the comparison shows every cell at that precision. */
    decimals: z.number().int().min(0).max(4),
    answerer: z
      .object({
        protocol: z.string().regex(ID),
        model: z.string().min(1),
        maxTokens: z.number().int().positive().optional(),
      })
      .strict(),
    judge: z
      .object({
        protocol: z.string().regex(ID),
        model: z.string().min(1),
        repeats: z.number().int().positive(),
      })
      .strict()
      .nullable(),
    /** Categories the table reports, and the only ones its runs ask (the paper's question set). */
    categories: z.array(z.number().int().positive()).min(1),
    /** Complete runs per row (the paper's mean over N runs). */
    repeats: z.number().int().min(1).max(100),
    /** Cells compared: metric ids in table order. */
    metrics: z.array(z.string().min(1)).min(1),
    rows: z.array(PackRowSchema).min(1),
  })
  .strict();

export type ReproducePack = z.output<typeof ReproducePackSchema>;
export type PackRow = z.output<typeof PackRowSchema>;

/** One cell of the comparison: the paper's figure beside ours (both on the paper's scale). */
export interface PackCell {
  row: string;
  metric: string;
  cell: string;
  paper: number | null;
  /** The paper's ± for the cell, where it prints one. */
  paperStd: number | null;
  ours: number | null;
  /** Std of ours over the row's complete runs; null with one run. */
  oursStd: number | null;
  /** ours - paper; null when either is missing. */
  diff: number | null;
}

/** A cell's name in the pack's scheme: "overall", or "2 temporal". */
export function packCellLabel(pack: Pick<ReproducePack, 'scheme'>, cell: string): string {
  return cell === 'overall'
    ? 'overall'
    : `${cell} ${categoryLabel(PACK_BENCHMARK, Number(cell), pack.scheme)}`;
}

/** Paper vs ours for every published cell of the rows that ran. */
export function comparePack(
  pack: ReproducePack,
  results: ReadonlyMap<string, RepeatSummary>,
): PackCell[] {
  const cells: PackCell[] = [];
  for (const row of pack.rows) {
    const summary = results.get(row.id);
    for (const metric of pack.metrics) {
      const published = row.published[metric] ?? {};
      for (const cell of [...pack.categories.map(String), 'overall']) {
        const paper = published[cell] ?? null;
        const paperStd = row.publishedStd?.[metric]?.[cell] ?? null;
        const stat = summary
          ? cell === 'overall'
            ? pack.categories.some((c) => isAdversarial(PACK_BENCHMARK, c))
              ? summary.overall.all[metric]
              : summary.overall.answerable?.[metric]
            : summary.byCategory[Number(cell)]?.[metric]
          : undefined;
        const ours = stat?.mean == null ? null : stat.mean * pack.scale;
        const oursStd = stat?.std == null ? null : stat.std * pack.scale;
        if (paper === null && ours === null) continue;
        cells.push({
          row: row.id,
          metric,
          cell,
          paper,
          paperStd,
          ours,
          oursStd,
          diff: paper === null || ours === null ? null : ours - paper,
        });
      }
    }
  }
  return cells;
}

/** One Table 2 figure of a row: the paper's beside ours, in the paper's units. */
export interface PackTable2Cell {
  row: string;
  column: PackTable2Key;
  paper: number | null;
  ours: number | null;
  diff: number | null;
}

/**
 * Ours in the paper's units over a row's complete runs: each run's search and total p50/p95
 * (compare.ts `table2Columns`, ms) in seconds, and its mean memory tokens per question, averaged
 * over the runs that have the figure (a run made before memory tokens were counted has none).
 */
export function packTable2Ours(runs: readonly Table2Columns[]): PackTable2 {
  const meanOf = (values: ReadonlyArray<number | null>, scale: number): number | null => {
    const present = values.filter((v): v is number => v !== null);
    return present.length === 0
      ? null
      : present.reduce((a, b) => a + b, 0) / present.length / scale;
  };
  const seconds = (pick: (c: Table2Columns) => number | undefined) =>
    meanOf(
      runs.map((r) => pick(r) ?? null),
      1000,
    );
  return {
    searchP50: seconds((c) => c.searchMs?.p50),
    searchP95: seconds((c) => c.searchMs?.p95),
    totalP50: seconds((c) => c.totalMs?.p50),
    totalP95: seconds((c) => c.totalMs?.p95),
    memoryTokens: meanOf(
      runs.map((r) => r.memoryTokens?.mean ?? null),
      1,
    ),
  };
}

/** A Table 2 column's label and a figure at the precision the paper prints it. */
export function table2Figure(
  column: PackTable2Key,
  value: number | null,
  empty = '–',
): { label: string; text: string; diff: (d: number | null) => string } {
  const spec = PACK_TABLE2_COLUMNS.find((c) => c.key === column)!;
  return {
    label: spec.label,
    text: value === null ? empty : value.toFixed(spec.decimals),
    diff: (d) => signedDiff(d, spec.decimals, empty),
  };
}

/** Paper vs ours for every Table 2 figure of the rows that print or ran one. */
export function comparePackTable2(
  pack: ReproducePack,
  ours: ReadonlyMap<string, PackTable2>,
): PackTable2Cell[] {
  const cells: PackTable2Cell[] = [];
  for (const row of pack.rows) {
    const mine = ours.get(row.id);
    if (!row.publishedTable2 && !mine) continue;
    for (const { key } of PACK_TABLE2_COLUMNS) {
      const paper = row.publishedTable2?.[key] ?? null;
      const value = mine?.[key] ?? null;
      if (paper === null && value === null) continue;
      cells.push({
        row: row.id,
        column: key,
        paper,
        ours: value,
        diff: paper === null || value === null ? null : value - paper,
      });
    }
  }
  return cells;
}

const VERIFIED_WORDS: Record<ReproducePack['source']['verified'], string> = {
  paper: "read in the paper's text",
  secondary: 'quoted by other sources, not checked against the paper',
  unverified: 'none stored',
};

/** Where a pack's figures come from, in one line, for the CLI and the Reproduce view. */
export function packSourceLine(pack: ReproducePack): string {
  const s = pack.source;
  return `${s.paper}, ${s.table}; ${s.edition}, arXiv ${s.arxiv}; figures: ${VERIFIED_WORDS[s.verified]}`;
}

/** Ours − paper, signed. */
export function signedDiff(diff: number | null, digits: number, empty = '–'): string {
  return diff === null ? empty : `${diff >= 0 ? '+' : ''}${diff.toFixed(digits)}`;
}

/** A word for a POSIX shell: kept bare when it is safe, else single-quoted. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The saved endpoint a CLI run of a pack goes through (the Models view's fields). */
export interface PackCommandEndpoint {
  baseUrl: string;
  model: string;
  apiKeyEnv?: string;
  prices?: { inputPerMillion: number; outputPerMillion: number };
}

/**
 * The `cli reproduce` command that runs a pack in the paper's setting through a saved endpoint:
 * the paper's models unless `useEndpointModel` (a local server serves its own model), the
 * endpoint's key variable and prices. The Reproduce view runs offline only and shows this.
 */
export function packCommand(
  packId: string,
  datasetPath: string,
  endpoint: PackCommandEndpoint | null,
  useEndpointModel = false,
  /** A stored row's own question set and run count, where they differ from the paper's. */
  scope: { samples?: readonly string[] | null; repeats?: number | null } = {},
): string {
  const words = ['npm', 'run', '-s', 'cli', '--', 'reproduce', packId, '--data', datasetPath];
  if (scope.samples && scope.samples.length > 0) words.push('--samples', scope.samples.join(','));
  if (scope.repeats != null) words.push('--repeats', String(scope.repeats));
  if (endpoint) {
    words.push('--base-url', endpoint.baseUrl);
    if (endpoint.apiKeyEnv) words.push('--api-key-env', endpoint.apiKeyEnv);
    if (useEndpointModel) words.push('--model', endpoint.model, '--judge-model', endpoint.model);
    if (endpoint.prices)
      words.push(
        '--prices',
        `${endpoint.prices.inputPerMillion},${endpoint.prices.outputPerMillion}`,
      );
  }
  return words.map(shellWord).join(' ');
}

/** What the runs DB holds for a pack, read from run tags only (no answers): for the pack list. */
export interface PackStored {
  /** The pack's rows with at least one stored run, whatever its status. */
  rows: number;
  /** The pack's rows the workbench can run (with an LLM endpoint); the others are the paper's only. */
  runnableRows: number;
  /** The newest of those runs (run ids sort by creation time); null when none. */
  newestRunId: string | null;
}

/** A pack as the Reproduce view lists it. */
export interface PackListItem {
  pack: ReproducePack;
  /** False while a protocol or preset it names is not registered; `reason` says which. */
  runnable: boolean;
  reason: string | null;
  /** Null where no runs DB was read (`cli reproduce list` before any run). */
  stored: PackStored | null;
}

/** "2 of 5 rows", of the rows the workbench can run (a paper-only row never has runs). */
export function storedRowsText({ rows, runnableRows }: PackStored): string {
  return `${rows} of ${runnableRows} ${runnableRows === 1 ? 'row' : 'rows'}`;
}

/**
 * The pack a view opens on when the user named none: the one whose stored runs are newest (the
 * pack a researcher just ran, from whichever surface), else the first runnable one.
 */
export function defaultPack(list: readonly PackListItem[]): PackListItem | null {
  let newest: PackListItem | null = null;
  for (const item of list) {
    const id = item.stored?.newestRunId ?? null;
    if (id !== null && (newest === null || id > (newest.stored?.newestRunId ?? ''))) newest = item;
  }
  return newest ?? list.find((p) => p.runnable) ?? null;
}

/** A pack's plan or its result, as the CLI's JSON and the Reproduce view show them. */
export interface PackRun {
  packId: string;
  offline: boolean;
  /** The sentence that says what was run (offline: not the paper's setting). */
  setting: string;
  repeats: number;
  plan: ExperimentEstimate;
  /** Absent for a plan; after a run, paper vs ours per cell. */
  cells?: PackCell[];
  /** Absent for a plan; after a run, the Table 2 latency and token figures, paper vs ours. */
  table2?: PackTable2Cell[];
  groups?: Record<string, string>;
  incomplete?: number;
  /** Repeats of a row that did not complete, with why (a run that never started has no id). */
  failures?: PackFailure[];
}

export interface PackFailure {
  row: string;
  /** 0-based repeat within the row. */
  repeat: number;
  runId: string | null;
  error: string;
}

/**
 * A pack row's stored results (issue 38 item 1): the row's repeat group with the newest complete
 * run, whichever surface ran it (`cli reproduce`, the Reproduce view, a sweep of the row's group).
 */
export interface PackRowResult {
  row: string;
  /** The repeat group the figures are over. */
  sweepId: string;
  /** `partial`: fewer complete runs than the group asked, or a run of it that did not complete. */
  status: 'complete' | 'partial';
  /** The complete runs ours is the mean over, in repeat order. */
  completed: string[];
  /** Complete runs the group asked for; null on runs made before the pack tag recorded it. */
  asked: number | null;
  /** The group's repeats whose latest run did not complete, with that run's status. */
  unfinished: Array<{ runId: string; repeat: number; status: RunStatus }>;
  /** The sample ids the runs asked; null: every sample of the file. */
  samples: string[] | null;
  /** Questions the newest complete run asked (0 when none completed). */
  questions: number;
  /** Answered by the extractive answerer with no judge: not the paper's setting. */
  offline: boolean;
  /** The dataset the runs read: the file the user gave (not an upload's stored copy), its sha256. */
  dataset: { file: string; sha256: string | null };
  /** When the newest complete run ended. */
  endedAt: string | null;
  /** The `cli reproduce` command that makes (or resumes) this row's runs on the user's file. */
  command: string;
}

/** A pack's stored results: each row that has runs, and paper vs ours over them. */
export interface PackResults {
  packId: string;
  rows: PackRowResult[];
  cells: PackCell[];
  table2: PackTable2Cell[];
}

/** A stored row's status, runs and question set in one line, for the CLI and the Reproduce view. */
export function packRowStatus(row: PackRowResult): string {
  const runs =
    row.status === 'complete'
      ? `complete: ${row.completed.length} run(s)`
      : `PARTIAL: ${row.completed.length} of ${row.asked ?? row.completed.length + row.unfinished.length} run(s) complete${row.unfinished
          .map((u) => `; run ${u.repeat + 1} ${u.status} (${u.runId})`)
          .join('')}`;
  const samples =
    row.samples === null ? 'every sample' : `sample(s) ${row.samples.join(', ')} only`;
  const setting = row.offline ? "offline, not the paper's setting" : 'LLM answerer';
  return `${runs}; ${samples}, ${row.questions.toLocaleString('en-US')} questions; ${setting}`;
}
