import {
  benchmarkProfile,
  categoryLabel,
  schemeLabelOf,
  type BenchmarkProfile,
  type CategoryId,
  type SchemeId,
} from '../../../src-shared/benchmarks';
import type { Sample } from '../../../src-shared/dataset/types';
import {
  DEFAULT_MEMORY_PRESET,
  DEFAULT_TOP_K,
  ExperimentConfigSchema,
} from '../../../src-shared/experiment';
import { numberBoundsAt } from '../../../src-shared/schemaBounds';
import { evidenceRecallAtK, meanEvidenceRecall } from '../../../src-shared/scoring';
import { loadDatasetFile, sampleById } from '../../core/dataset/index';
import { retrieveSample, type QuestionRetrieval } from '../../core/memory/retrieval/evaluate';
import { createMemoryService, memoryPresetNames } from '../../core/memory/registry';
import { extraPresetModules, loadMemoryPresets } from '../../core/pipeline/loadPresets';
import { UsageError, defineCommand } from '../command';
import { parseScheme, readConfigFile } from '../request';
import { ensureWordVectorCache } from '../wordVectors';
import { EXPERIMENT_OPTIONS, JSON_OPTION, SCHEME_OPTION } from '../options';

const DESCRIPTION = `Evidence retrieval without an answerer: inserts every turn of each sample into a fresh collection
of the memory preset, then retrieves the top k memories for every question that has evidence.
Prints evidence recall@k (the share of a question's evidence turns among the first k retrieved),
overall, per category and per sample.`;

function selectSamples(all: Sample[], ids: string | undefined): Sample[] {
  if (ids === undefined) return all;
  const wanted = ids
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (wanted.length === 0) throw new UsageError('--samples needs at least one sample id');
  return wanted.map((id) => sampleById(all, id, 'retrieve', ['samples']));
}

/** The label column: 16 wide, wider when a label (LongMemEval's question types) needs it. */
function labelWidth(labels: readonly string[]): number {
  return Math.max(16, ...labels.map((l) => l.length + 1));
}

function recallLine(
  label: string,
  rows: readonly Row[],
  ks: readonly number[],
  width: number,
): string {
  const cells = ks.map((k) => {
    const { mean } = meanEvidenceRecall(
      rows.map((r) => evidenceRecallAtK(r.evidence, r.retrieved, k)),
    );
    return `${Number.isNaN(mean) ? '    -' : mean.toFixed(3)}`.padStart(8);
  });
  return `  ${label.padEnd(width)}${String(rows.length).padStart(6)}${cells.join('')}`;
}

interface Row extends QuestionRetrieval {
  evidence: string[];
  category: CategoryId;
}

/** The dataset benchmark's categories that have rows, each labelled in the chosen scheme. */
function categoryGroups(
  rows: readonly Row[],
  profile: BenchmarkProfile,
  scheme: SchemeId,
): Array<{ label: string; rows: Row[] }> {
  return profile.categories
    .map(({ id }) => ({
      label: `${id} ${categoryLabel(profile, id, scheme)}`,
      rows: rows.filter((r) => r.category === id),
    }))
    .filter((g) => g.rows.length > 0);
}

export const retrieveCommand = defineCommand({
  summary: 'insert every turn into a memory preset and report evidence recall@k per question',
  usage: 'usage: npm run -s cli -- retrieve --data <file> [options]',
  description: DESCRIPTION,
  options: {
    data: EXPERIMENT_OPTIONS.data,
    preset: { ...EXPERIMENT_OPTIONS.preset, help: 'memory preset' },
    config: {
      type: 'string',
      value: '<file.json>',
      help: "the preset's config (JSON object; a field it leaves out keeps the preset's value)",
    },
    samples: EXPERIMENT_OPTIONS.samples,
    k: { ...EXPERIMENT_OPTIONS['top-k'], help: 'memories retrieved per question' },
    ...SCHEME_OPTION,
    json: {
      ...JSON_OPTION.json,
      help: 'print {"results":[{"sampleId","questionIndex","retrieved":[...]}]} (turn ids, best first) instead of the report',
    },
  },
  async run({ values, positionals }, io) {
    if (positionals.length > 0) {
      throw new UsageError(`unexpected argument "${positionals[0]}" (the dataset goes in --data)`);
    }
    if (values.data === undefined) throw new UsageError('retrieve needs --data <file>');
    const k = values.k === undefined ? DEFAULT_TOP_K : Number(values.k);
    // The bounds a run's top_k takes, read from the config schema.
    const bounds = numberBoundsAt(ExperimentConfigSchema, ['retrieval', 'topK']);
    if (!Number.isInteger(k) || k < bounds.min || k > bounds.max) {
      throw new UsageError(
        `--k must be an integer from ${bounds.min} to ${bounds.max} (got "${values.k}")`,
      );
    }
    const scheme = parseScheme(values.scheme);
    const preset = values.preset ?? DEFAULT_MEMORY_PRESET;
    await loadMemoryPresets(extraPresetModules());
    if (!memoryPresetNames().includes(preset)) {
      throw new UsageError(
        `--preset: unknown preset "${preset}" (presets: ${memoryPresetNames().join(', ')})`,
      );
    }
    const config = values.config === undefined ? {} : readConfigFile(values.config);

    const dataset = await loadDatasetFile(values.data);
    const samples = selectSamples(dataset.samples, values.samples);
    await ensureWordVectorCache(io);
    const rows: Row[] = [];
    let turns = 0;
    let insertMs = 0;
    const started = performance.now();
    for (const sample of samples) {
      const result = await retrieveSample(
        sample,
        (ctx) => createMemoryService(preset, config, ctx),
        k,
      );
      turns += result.turns;
      insertMs += result.insertMs;
      const qa = new Map(sample.qa.map((q) => [q.index, q]));
      for (const q of result.questions) {
        const item = qa.get(q.questionIndex);
        if (item) rows.push({ ...q, evidence: item.evidence, category: item.category });
      }
    }
    const totalMs = performance.now() - started;

    if (values.json) {
      const results = rows.map((r) => ({
        sampleId: r.sampleId,
        questionIndex: r.questionIndex,
        retrieved: r.retrieved,
      }));
      io.stdout(`${JSON.stringify({ results })}\n`);
      return 0;
    }

    const ks = [...new Set([1, 5, 10, k])].filter((x) => x <= k).sort((a, b) => a - b);
    const profile = benchmarkProfile(dataset.info.format);
    const byCategory = categoryGroups(rows, profile, scheme);
    const width = labelWidth([
      ...byCategory.map((g) => g.label),
      ...samples.map((s) => s.sampleId),
    ]);
    const header = `  ${''.padEnd(width)}${'n'.padStart(6)}${ks.map((x) => `R@${x}`.padStart(8)).join('')}`;
    const out: string[] = [];
    out.push(
      `Evidence recall, preset ${preset}, ${samples.length} samples, ${turns.toLocaleString('en-US')} turns, ${rows.length.toLocaleString('en-US')} questions with evidence`,
    );
    out.push('');
    out.push(header);
    out.push(recallLine('all', rows, ks, width));
    out.push('');
    out.push(`  by category (${schemeLabelOf(profile, scheme)} names)`);
    for (const g of byCategory) out.push(recallLine(g.label, g.rows, ks, width));
    out.push('');
    out.push('  by sample');
    for (const sample of samples) {
      out.push(
        recallLine(
          sample.sampleId,
          rows.filter((r) => r.sampleId === sample.sampleId),
          ks,
          width,
        ),
      );
    }
    const queryMs = rows.reduce((sum, r) => sum + r.ms, 0);
    out.push('');
    out.push(
      `Inserted ${turns.toLocaleString('en-US')} turns in ${(insertMs / 1000).toFixed(2)} s; ` +
        `${rows.length} queries, mean ${(queryMs / Math.max(1, rows.length)).toFixed(2)} ms; ` +
        `total ${(totalMs / 1000).toFixed(1)} s (k = ${k}).`,
    );
    out.push('');
    io.stdout(out.join('\n'));
    return 0;
  },
});
