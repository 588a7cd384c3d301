import { resolve } from 'node:path';
import {
  benchmarkProfile,
  categoryLabel,
  type BenchmarkProfile,
  type SchemeId,
} from '../../../src-shared/benchmarks';
import { WorkbenchError, zodError } from '../../../src-shared/errors';
import { JudgeConfigSchema, judgeConfigFor } from '../../../src-shared/experiment';
import {
  AUDIT_ANSWER_CLASSES,
  AUDIT_ANSWER_CLASS_IDS,
  DEFAULT_AUDIT_QUESTIONS_PER_CATEGORY,
  DEFAULT_AUDIT_SEED,
  acceptanceTable,
  judgeErrorPhrase,
  judgeIdentityLabel,
  type AcceptanceTable,
  type JudgeIdentity,
} from '../../../src-shared/judgeAudit';
import type { Proportion } from '../../../src-shared/scoring/judgeError';
import { datasetFileSha256, loadDatasetFile } from '../../core/dataset/load';
import {
  auditJudges,
  auditVerdicts,
  ensureAuditSet,
  judgeAuditSet,
  type AuditJudgeResult,
  type AuditSet,
} from '../../core/runs/judgeAudit';
import { UsageError, defineCommand, positiveIntFlag, type CliIO } from '../command';
import {
  JSON_OPTION,
  JUDGE_OPTIONS,
  KEY_ENV_OPTION,
  RUNS_DB_OPTIONS,
  SCHEME_OPTION,
} from '../options';
import { apiKeysFromFlags, judgeFlags, parseScheme } from '../request';
import { EXIT_CODES } from '../runOutput';
import { openStore } from '../runsApi';

const DESCRIPTION = `Measures a judge on answers whose truth is known without a person. From the dataset's questions
(a seeded sample per category) it builds, per question, the gold answer itself and answers known
to be wrong: another question's gold from the same conversation, a vague answer that names no
fact, a hedge between the gold and another gold, a verbose answer with the gold among wrong
claims, and the gold with its date changed. The set is stored in the runs database and found
again by the same dataset, seed and size, so every judge is asked about the same answers.

With --judge-base-url and --judge-model, the judge (its protocol, model and endpoint are its
identity) is asked about every answer through the runs database's judge cache. Then, for every
judge that has judged the set, the table of how often it accepts each class, overall and per
category, with Wilson 95% intervals: the ideal is 100% for the gold and 0% for every other class.`;

const percent = (p: Proportion): string => (p.n === 0 ? '-' : `${(100 * p.estimate).toFixed(1)}%`);
const bounds = (p: Proportion): string =>
  p.n === 0 ? '' : `[${(100 * p.low).toFixed(1)}, ${(100 * p.high).toFixed(1)}]`;

/** The per-class table of one judge, then class × category. */
function judgeTable(
  judge: JudgeIdentity,
  table: AcceptanceTable,
  profile: BenchmarkProfile,
  scheme: SchemeId,
): string {
  const out = [`judge ${judgeIdentityLabel(judge)}`];
  out.push(
    `  ${'class'.padEnd(12)} ${'truth'.padEnd(7)} ${'n'.padStart(6)} ${'accepted'.padStart(9)}  95% interval`,
  );
  for (const cell of table.byClass) {
    out.push(
      `  ${cell.answerClass.padEnd(12)} ${AUDIT_ANSWER_CLASSES[cell.answerClass].expected.padEnd(7)} ${String(cell.n).padStart(6)} ${percent(cell).padStart(9)}  ${bounds(cell)}`,
    );
  }
  const far = table.falseAcceptance;
  out.push(
    `  ${'known-wrong'.padEnd(12)} ${'wrong'.padEnd(7)} ${String(far.n).padStart(6)} ${percent(far).padStart(9)}  ${bounds(far)}`,
  );
  const phrase = judgeErrorPhrase(far);
  if (phrase !== null) out.push(`  in a headline: ${phrase}`);
  if (table.missing > 0) out.push(`  ${table.missing} answers without a verdict (judge errors)`);
  const categories = [...new Set(table.byClassAndCategory.map((c) => c.category as number))];
  const names = categories.map((id) => `${id} ${categoryLabel(profile, id, scheme)}`);
  const widths = names.map((name) => Math.max(13, name.length));
  out.push('', `  accepted by category (n)`);
  out.push(
    `  ${''.padEnd(12)} ${names.map((name, i) => name.padStart(widths[i] ?? 13)).join(' ')}`,
  );
  for (const answerClass of AUDIT_ANSWER_CLASS_IDS) {
    const cells = categories.map((category, i) => {
      const cell = table.byClassAndCategory.find(
        (c) => c.answerClass === answerClass && c.category === category,
      );
      const text = cell === undefined ? '-' : `${percent(cell)} (${cell.n})`;
      return text.padStart(widths[i] ?? 13);
    });
    if (cells.every((c) => c.trim() === '-')) continue;
    out.push(`  ${answerClass.padEnd(12)} ${cells.join(' ')}`);
  }
  return `${out.join('\n')}\n`;
}

function setLine(set: AuditSet, created: boolean): string {
  const questions = new Set(set.items.map((i) => `${i.sampleId}\u0000${i.questionIndex}`)).size;
  return (
    `judge audit ${set.id}: ${set.items.length} answers of known truth for ${questions} questions of ` +
    `${set.datasetSource} (${set.benchmark}, seed ${set.seed}, at most ${set.perCategory} per category), ` +
    `${created ? 'built now' : `stored ${set.createdAt}`}\n`
  );
}

function passLine(pass: AuditJudgeResult): string {
  return (
    `judged by ${judgeIdentityLabel(pass.judge)}: ${pass.judged} answers, ${pass.calls} calls, ` +
    `${pass.cacheHits} from cache, ${pass.errors} without a verdict\n`
  );
}

/** A pass that left answers without a verdict is not a success (like a rescore's judge pass). */
function passExit(pass: AuditJudgeResult | null, io: CliIO): number {
  if (pass === null) return EXIT_CODES.completed;
  const missing = pass.errors + pass.notJudged;
  if (missing === 0) return EXIT_CODES.completed;
  io.stderr(
    `judge-audit: ${missing} answers have no verdict from ${judgeIdentityLabel(pass.judge)}` +
      `${pass.stopped ? `: the pass stopped early (${pass.stopped})` : ''}\n`,
  );
  return pass.stopped ? EXIT_CODES.paused : EXIT_CODES.degraded;
}

export const judgeAuditCommand = defineCommand({
  summary: 'measure a judge on answers of known truth built from a dataset (per-class acceptance)',
  usage:
    'usage: npm run -s cli -- judge-audit <dataset file> [--judge-base-url <url> --judge-model <name>] [options]',
  description: DESCRIPTION,
  options: {
    seed: {
      type: 'string',
      value: '<n>',
      help: 'seed of the question sample and of the built answers',
      absent: String(DEFAULT_AUDIT_SEED),
    },
    'per-category': {
      type: 'string',
      value: '<n>',
      help: 'questions drawn per category',
      absent: String(DEFAULT_AUDIT_QUESTIONS_PER_CATEGORY),
    },
    ...JUDGE_OPTIONS,
    ...KEY_ENV_OPTION,
    ...SCHEME_OPTION,
    ...JSON_OPTION,
    ...RUNS_DB_OPTIONS,
  },
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw new UsageError('judge-audit takes one dataset file');
    const scheme = parseScheme(values.scheme);
    const seed = nonNegativeInt('--seed', values.seed) ?? DEFAULT_AUDIT_SEED;
    const perCategory =
      positiveIntFlag('--per-category', values['per-category']) ??
      DEFAULT_AUDIT_QUESTIONS_PER_CATEGORY;
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
    const judgeEnv = judgeConfig?.data?.apiKeyEnv;
    const judgeKeys = apiKeysFromFlags(values['allow-key-env']).keysFor(judgeEnv, 'judge', [
      'judge',
      'apiKeyEnv',
    ]);
    if (judgeEnv !== undefined && judgeKeys[judgeEnv] === undefined) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `judge: environment variable ${judgeEnv} is not set (it should hold the API key)`,
      );
    }

    const file = resolve(positionals[0] as string);
    const dataset = await loadDatasetFile(file);
    const profile = benchmarkProfile(dataset.info.format);
    const sha256 = dataset.info.sha256 ?? (await datasetFileSha256(file));
    const { store } = openStore(values['runs-db'], values['data-dir']);
    try {
      const { set, created } = ensureAuditSet(
        store,
        { samples: dataset.samples, source: dataset.info.source, sha256, profile },
        { seed, perCategory },
      );
      let pass: AuditJudgeResult | null = null;
      if (judgeConfig?.success) {
        const { config, warning } = judgeConfigFor(judgeConfig.data, profile);
        if (warning) io.stderr(`warning: ${warning}\n`);
        pass = await judgeAuditSet(store, set, config, profile, {
          keys: judgeKeys,
          log: (message) => io.stderr(`judge-audit: ${message}\n`),
        });
      }
      const judges = auditJudges(store, set.id).map((judge) => ({
        judge,
        table: acceptanceTable(set.items, auditVerdicts(store, set.id, judge)),
      }));
      if (values.json) {
        const { items, ...meta } = set;
        io.stdout(
          `${JSON.stringify({
            set: { ...meta, answers: items.length },
            classes: Object.fromEntries(
              AUDIT_ANSWER_CLASS_IDS.map((id) => [
                id,
                items.filter((i) => i.answerClass === id).length,
              ]),
            ),
            ...(pass ? { pass } : {}),
            judges,
          })}\n`,
        );
        return passExit(pass, io);
      }
      io.stdout(setLine(set, created));
      if (pass) io.stdout(passLine(pass));
      if (judges.length === 0) {
        io.stdout('no judge has judged this set yet (give --judge-base-url and --judge-model)\n');
      }
      for (const { judge, table } of judges)
        io.stdout(`\n${judgeTable(judge, table, profile, scheme)}`);
      return passExit(pass, io);
    } finally {
      store.close();
    }
  },
});

function nonNegativeInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
    throw new UsageError(`${flag} must be an integer from 0 to 4294967295 (got "${value}")`);
  }
  return n;
}
