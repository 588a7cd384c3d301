import { resolve } from 'node:path';
import {
  benchmarkProfile,
  categoryLabel,
  type BenchmarkProfile,
} from '../../../src-shared/benchmarks';
import { WorkbenchError, zodError } from '../../../src-shared/errors';
import { JudgeConfigSchema, type MeanN } from '../../../src-shared/experiment';
import type { MetricDefinition } from '../../../src-shared/metrics';
import { MemoryJudgeCache } from '../../core/answer/judge';
import { judgePredictions, type PredictionJudgeReport } from '../../core/answer/judgePredictions';
import { loadDatasetFile } from '../../core/dataset/load';
import { overallRows, schemeLabel } from '../../core/runs/report';
import { checkMem0Parity, type Mem0Parity } from '../../core/scoring/mem0Parity';
import { installPunktModel } from '../../core/scoring/punktModel';
import {
  parsePredictions,
  scoredMetrics,
  scorePredictions,
  summarizeScores,
  type ScoreGroup,
} from '../../core/scoring/predictions';
import { UsageError, defineCommand } from '../command';
import {
  JSON_OPTION,
  JUDGE_OPTIONS,
  KEY_ENV_OPTION,
  RUNS_DB_OPTIONS,
  SCHEME_OPTION,
} from '../options';
import { readJsonFile } from '../../core/structured-file';
import { apiKeysFromFlags, judgeFlags, parseScheme } from '../request';
import { openStore } from '../runsApi';

const DESCRIPTION = `Scores predictions against a dataset's gold answers, without running anything: every metric of
the dataset's benchmark that needs no retrieval (official F1 on every question; Mem0-style set F1
and BLEU-1 on the non-adversarial categories, LoCoMo's 1-4) and, with a judge, the LLM judge J. The predictions file is a JSON array of {"sampleId", "questionIndex", "prediction"}.

With --mem0-eval, re-scores a file written by Mem0's own evaluation/evals.py and reports how many of
its per-item set F1 and BLEU-1 values this build reproduces (BLEU-1 is exact only when NLTK's
English punkt_tab model is installed: python -m nltk.downloader punkt_tab).`;

const fmt = (m: MeanN | number | undefined): string =>
  m === undefined || typeof m === 'number' || m.mean === null ? '-' : m.mean.toFixed(3);

function table(
  summary: ReturnType<typeof summarizeScores>,
  scheme: string,
  judged: boolean,
  profile: BenchmarkProfile,
): string {
  const metrics = scoredMetrics(judged);
  const spread = (m: MetricDefinition): boolean => m.aggregate !== undefined;
  const head = [
    'category',
    'n',
    ...metrics.flatMap((m) => [m.label, ...(spread(m) ? [`${m.label} std`] : [])]),
  ];
  const row = (label: string, g: ScoreGroup): string[] => [
    label,
    `${g.n}`,
    ...metrics.flatMap((m) => {
      const v = g[m.id];
      const std = typeof v === 'object' ? v.std : undefined;
      return [fmt(v), ...(spread(m) ? [std == null ? '-' : std.toFixed(3)] : [])];
    }),
  ];
  const rows = [head];
  for (const c of profile.categories)
    rows.push(row(`${c.id} ${categoryLabel(profile, c.id, scheme)}`, summary.byCategory[c.id]!));
  for (const [label, group] of overallRows(summary.overall, profile))
    if (group) rows.push(row(label, group));
  const widths = head.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]): string =>
    r
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ');
  return `Scores, categories named by ${schemeLabel(profile, scheme)} scheme\n${rows.map(line).join('\n')}\n`;
}

export const scoreCommand = defineCommand({
  summary: 'score a predictions file against a dataset (official F1, set F1, BLEU-1, judge)',
  usage: `usage: npm run -s cli -- score --data <file> --predictions <file.json> [options]
       npm run -s cli -- score --mem0-eval <evaluation_metrics.json> [--json]`,
  description: DESCRIPTION,
  options: {
    'mem0-eval': {
      type: 'string',
      value: '<file.json>',
      help: 'Mem0 evals.py output to check against',
    },
    data: { type: 'string', value: '<file>', help: 'dataset file' },
    predictions: { type: 'string', value: '<file.json>', help: 'predictions to score' },
    ...JUDGE_OPTIONS,
    ...KEY_ENV_OPTION,
    'no-judge-cache': {
      type: 'boolean',
      default: false,
      help: "do not use the runs database's judge cache",
    },
    ...RUNS_DB_OPTIONS,
    ...SCHEME_OPTION,
    json: {
      ...JSON_OPTION.json,
      help: 'print one JSON object: {"items", "byCategory", "overall", ...}',
    },
  },
  async run({ values, positionals }, io) {
    if (positionals.length > 0)
      throw new UsageError(`score takes no positional arguments (got "${positionals[0]}")`);
    if (values['mem0-eval'] !== undefined) {
      const file = resolve(values['mem0-eval']);
      const report = checkMem0Parity(readJsonFile(file, 'Mem0 evaluation file'), file);
      io.stdout(values.json ? `${JSON.stringify(report)}\n` : mem0ParityText(report));
      return 0;
    }
    const scheme = parseScheme(values.scheme);
    if (values.data === undefined) throw new UsageError('score needs --data <file>');
    if (values.predictions === undefined)
      throw new UsageError('score needs --predictions <file.json>');
    const wantsJudge =
      values['judge-base-url'] !== undefined || values['judge-model'] !== undefined;
    if (
      wantsJudge &&
      (values['judge-base-url'] === undefined || values['judge-model'] === undefined)
    ) {
      throw new UsageError('judging needs both --judge-base-url and --judge-model');
    }
    const judgeConfig = wantsJudge ? JudgeConfigSchema.safeParse(judgeFlags(values, {})) : null;
    if (judgeConfig && !judgeConfig.success) throw zodError(judgeConfig.error, 'judge');
    const judgeEnv = judgeConfig?.data.apiKeyEnv;
    const apiKeys = apiKeysFromFlags(values['allow-key-env']);
    const judgeKeys = apiKeys.keysFor(judgeEnv, 'judge', ['judge', 'apiKeyEnv']);
    if (judgeEnv !== undefined && judgeKeys[judgeEnv] === undefined) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `judge: environment variable ${judgeEnv} is not set (it should hold the API key)`,
      );
    }

    const dataset = await loadDatasetFile(resolve(values.data));
    const predictions = parsePredictions(
      readJsonFile(resolve(values.predictions), 'predictions file'),
      dataset.samples,
    );
    const profile = benchmarkProfile(dataset.info.format);
    const items = scorePredictions(dataset.samples, predictions, profile);

    let judgeInfo: PredictionJudgeReport | null = null;
    if (judgeConfig?.success) {
      const stores = values['no-judge-cache']
        ? null
        : openStore(values['runs-db'], values['data-dir']);
      try {
        judgeInfo = await judgePredictions(items, judgeConfig.data, profile, {
          cache: stores ? stores.store.judgeCache() : new MemoryJudgeCache(),
          keys: judgeKeys,
          onWarning: (warning) => io.stderr(`warning: ${warning}\n`),
        });
      } finally {
        stores?.store.close();
      }
    }
    const judged = judgeInfo !== null;
    const summary = summarizeScores(items, judged, profile);
    const reported = scoredMetrics(false).map((m) => m.id);
    if (values.json) {
      io.stdout(
        `${JSON.stringify({
          scheme,
          categoryNames: Object.fromEntries(
            profile.categories.map((c) => [c.id, categoryLabel(profile, c.id, scheme)]),
          ),
          items: items.map((i) => ({
            sampleId: i.sampleId,
            questionIndex: i.questionIndex,
            category: i.category,
            ...Object.fromEntries(reported.map((id) => [id, i.scores[id] ?? null])),
            ...(judged ? { judge: i.judge ?? null } : {}),
          })),
          byCategory: summary.byCategory,
          overall: summary.overall,
          ...(judged ? { judge: judgeInfo } : {}),
        })}\n`,
      );
    } else {
      io.stdout(table(summary, scheme, judged, profile));
      io.stdout(`predictions ${items.length}\n`);
      if (judgeInfo)
        io.stdout(
          `judge ${judgeInfo.model} (protocol ${judgeInfo.protocol}): ${judgeInfo.calls} calls, ${judgeInfo.cacheHits} from cache, ${judgeInfo.errors} errors, ${judgeInfo.unparseableReplies} unreadable replies\n`,
        );
    }
    return 0;
  },
});

function mem0ParityText(report: Mem0Parity): string {
  const punkt = installPunktModel();
  const lines = [
    `${report.items} items of categories 1-4 re-scored against Mem0's own numbers`,
    `BLEU-1 tokenised with ${punkt.dir ? `NLTK's Punkt model at ${punkt.dir}` : "no Punkt model (NLTK's punkt_tab not installed: sentences split without its abbreviations)"}`,
  ];
  for (const [name, parity] of [
    ['set F1', report.setF1],
    ['BLEU-1', report.bleu1],
  ] as const) {
    lines.push(
      `${name}: ${parity.agree}/${report.items} agree; mean ours ${parity.meanOurs.toFixed(4)}, Mem0's ${parity.meanTheirs.toFixed(4)}`,
    );
    for (const d of parity.differ.slice(0, 10)) {
      lines.push(
        `  ${d.conversation}[${d.index}] ours ${d.ours.toFixed(4)} vs ${d.theirs.toFixed(4)}: ${JSON.stringify(d.response)} / ${JSON.stringify(d.answer)}`,
      );
    }
    if (parity.differ.length > 10) lines.push(`  … and ${parity.differ.length - 10} more`);
  }
  return `${lines.join('\n')}\n`;
}
