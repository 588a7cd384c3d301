import {
  DEFAULT_SCHEME,
  benchmarkProfile,
  categoryLabel,
  schemeLabelOf,
  schemeOf,
  type BenchmarkProfile,
  type SchemeId,
} from '../../../src-shared/benchmarks';
import type { DatasetStats, EvidenceProblemDetail } from '../../../src-shared/dataset/stats';
import type { DatasetLoadResult } from '../../../src-shared/dataset/types';
import { datasetStats, loadDatasetFile } from '../../core/dataset/index';
import { UsageError, defineCommand } from '../command';
import { parseScheme } from '../request';
import { JSON_OPTION, SCHEME_OPTION } from '../options';

const USAGE = `usage: npm run -s cli -- stats <file> [options]

Loads a dataset file, validates it and prints what a run over it would see: sessions, turns,
packets, questions per category, evidence repairs and the tests each sample will trigger.

options:
  --scheme <official|mem0>  category names to print (default: ${DEFAULT_SCHEME})
  --json                    print exactly one JSON object instead of the report
  --format <name>           dataset format (default: detected from the content)
  --strict                  fail on the first malformed sample instead of skipping it
  --exclude-no-evidence     plan without the questions that have no usable evidence (a run asks
                            them at the last packet by default)
  -h, --help                show this help
`;

/** Evidence details beyond this go to --json only; a person reads the first ones. */
const MAX_DETAIL_LINES = 40;

const n = (value: number): string => value.toLocaleString('en-US');

function percent(part: number, whole: number): string {
  return whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`;
}

function describeProblem(d: EvidenceProblemDetail): string {
  const part = d.part !== undefined && d.part !== d.repairedTo ? ` part "${d.part}"` : '';
  let outcome = ' (dropped)';
  if (d.problem === 'duplicate') outcome = ' (dropped: listed twice)';
  else if (d.repairedTo !== undefined) outcome = ` -> ${d.repairedTo}`;
  return `${d.sampleId} qa[${d.qaIndex}]  ${JSON.stringify(d.raw)}${part}  ${d.problem}${outcome}`;
}

/** Questions per category and group (BEAM: per ability and size), when the dataset groups samples. */
function groupTable(stats: DatasetStats, profile: BenchmarkProfile, scheme: SchemeId): string[] {
  const groups = stats.totals.byGroup;
  if (!groups) return [];
  const names = profile.categories.map((c) => categoryLabel(profile, c.id, scheme));
  const width = Math.max(12, ...names.map((name) => name.length));
  const cols = groups.map((g) => Math.max(8, g.group.length));
  const row = (label: string, cells: string[]): string =>
    `  ${label.padEnd(width + 3)} ${cells.map((c, i) => c.padStart(cols[i] ?? 8)).join(' ')}`;
  const out = [`Samples and questions by ${profile.sampleGroup ?? 'group'}`];
  out.push(
    row(
      '',
      groups.map((g) => g.group),
    ),
  );
  out.push(
    row(
      'samples',
      groups.map((g) => n(g.samples)),
    ),
  );
  out.push(
    row(
      'turns',
      groups.map((g) => n(g.turns)),
    ),
  );
  out.push(
    row(
      'questions',
      groups.map((g) => n(g.qa)),
    ),
  );
  profile.categories.forEach((c, i) => {
    const id = String(c.id).padStart(String(profile.categories.length).length);
    out.push(
      row(
        `${id} ${names[i] as string}`,
        groups.map((g) => n(g.byCategory[c.id] ?? 0)),
      ),
    );
  });
  out.push('');
  return out;
}

function humanReport(
  result: DatasetLoadResult,
  stats: DatasetStats,
  scheme: SchemeId,
  profile: BenchmarkProfile,
  includeNoEvidence: boolean,
): string {
  const out: string[] = [];
  const { info } = result;
  const size = info.bytes === null ? '' : `, ${n(info.bytes)} bytes`;
  out.push(`Dataset ${info.source} (${info.format}${size})`);
  if (info.sha256) out.push(`sha256 ${info.sha256}`);
  out.push('');

  result.samples.forEach((sample, i) => {
    const s = stats.samples[i];
    if (!s) return;
    out.push(`${s.sampleId}  (${sample.speakers[0]} & ${sample.speakers[1]})`);
    out.push(
      `  sessions ${s.sessions}  turns ${n(s.turns)} (${n(s.imageTurns)} with images)  packets ${n(s.packets)}`,
    );
    out.push(
      `  questions ${s.qa} (${s.questionsWithEvidence} with evidence)  planned tests ${s.plannedTests} (every ${s.testThreshold} visible questions)`,
    );
    out.push(
      `  turns per session: ${s.sessionTurnCounts.map((c) => `${c.session}:${c.turns}`).join(' ')}`,
    );
    out.push('');
  });

  const t = stats.totals;
  out.push('Totals');
  out.push(
    `  samples ${t.samples}  sessions ${n(t.sessions)}  turns ${n(t.turns)} (${n(t.imageTurns)} with images)  packets ${n(t.packets)}`,
  );
  out.push(
    `  questions ${n(t.qa)} (${n(t.questionsWithEvidence)} with evidence)  planned tests ${n(t.plannedTests)}`,
  );
  out.push('');

  out.push(`Questions by category (${schemeLabelOf(profile, scheme)} names)`);
  const names = profile.categories.map((c) => categoryLabel(profile, c.id, scheme));
  const width = Math.max(12, ...names.map((name) => name.length));
  profile.categories.forEach((c, i) => {
    const count = t.byCategory[c.id] ?? 0;
    const id = String(c.id).padStart(String(profile.categories.length).length);
    out.push(
      `  ${id} ${(names[i] as string).padEnd(width)} ${n(count).padStart(6)}  ${percent(count, t.qa).padStart(6)}`,
    );
  });
  out.push('');
  out.push(...groupTable(stats, profile, scheme));

  const e = stats.evidence;
  out.push('Evidence ids (qa[i] is the 0-based question index)');
  out.push(
    `  repaired ${e.repaired}  unresolved ${e.unresolved}  duplicates dropped ${e.duplicates}  questions without usable evidence ${e.questionsWithoutEvidence}${
      // A haystack benchmark (LongMemEval) asks every question after its haystack.
      e.questionsWithoutEvidence > 0 && result.samples.some((s) => s.askAfter !== 'haystack')
        ? includeNoEvidence
          ? ' (asked at the last packet)'
          : ' (excluded from tests)'
        : ''
    }`,
  );
  for (const d of e.details.slice(0, MAX_DETAIL_LINES)) out.push(`  ${describeProblem(d)}`);
  if (e.details.length > MAX_DETAIL_LINES) {
    out.push(`  ... ${e.details.length - MAX_DETAIL_LINES} more (see --json)`);
  }

  if (result.problems.length > 0) {
    const errors = result.problems.filter((p) => p.severity === 'error');
    const skipped = new Set(errors.map((p) => p.sampleIndex)).size;
    out.push('');
    out.push(
      `Problems: ${errors.length} errors (${skipped} samples skipped), ${
        result.problems.length - errors.length
      } warnings`,
    );
    for (const p of result.problems) out.push(`  ${p.severity}: ${p.message}`);
  }
  out.push('');
  return out.join('\n');
}

function jsonReport(
  result: DatasetLoadResult,
  stats: DatasetStats,
  scheme: SchemeId,
  profile: BenchmarkProfile,
): string {
  const report = {
    source: result.info.source,
    format: result.info.format,
    bytes: result.info.bytes,
    sha256: result.info.sha256,
    scheme: schemeOf(profile, scheme),
    categoryNames: Object.fromEntries(
      profile.categories.map((c) => [c.id, categoryLabel(profile, c.id, scheme)]),
    ),
    totals: stats.totals,
    samples: stats.samples,
    evidence: stats.evidence,
    problems: result.problems,
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

export const statsCommand = defineCommand({
  summary: 'validate a dataset file and print its sessions, packets, categories and test plan',
  usage: USAGE,
  options: {
    ...SCHEME_OPTION,
    ...JSON_OPTION,
    format: { type: 'string' },
    strict: { type: 'boolean', default: false },
    'exclude-no-evidence': { type: 'boolean', default: false },
    // The default since issue 11; still accepted.
    'include-no-evidence': { type: 'boolean', default: false },
  },
  async run({ values, positionals }, io) {
    const scheme = parseScheme(values.scheme);
    if (positionals.length !== 1) {
      throw new UsageError(
        positionals.length === 0
          ? 'stats needs a dataset file'
          : `stats takes one file, got ${positionals.length}`,
      );
    }
    const file = positionals[0] as string;
    const result = await loadDatasetFile(file, {
      strict: values.strict,
      ...(values.format !== undefined ? { format: values.format } : {}),
    });
    const profile = benchmarkProfile(result.info.format);
    const stats = datasetStats(
      result.samples,
      { includeNoEvidence: !values['exclude-no-evidence'] },
      profile,
    );
    io.stdout(
      values.json
        ? jsonReport(result, stats, scheme, profile)
        : humanReport(result, stats, scheme, profile, !values['exclude-no-evidence']),
    );
    return 0;
  },
});
