import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { CATEGORY_IDS, categoryName, type CategoryId } from '../src-shared/dataset/categories';
import type { Sample } from '../src-shared/dataset/types';
import { HybridCollection } from '../src-main/core/collection';
import { loadDatasetFile } from '../src-main/core/dataset/index';
import { createMemoryService } from '../src-main/core/memory/registry';
import '../src-main/core/memory/presets';
import {
  DEFAULT_PREVIOUS_TURN_VECTOR,
  contextVector,
  sharedWinkEmbedder,
  turnText,
} from '../src-main/core/memory/retrieval';
import { evaluateRetrieval, recallAtK } from '../src-main/core/memory/retrieval/evaluate';
import {
  HELD_OUT_SAMPLES,
  TUNE_SAMPLES,
  fmt,
  machineLine,
  peakRssMb,
  percentile,
  writeSection,
} from './common';

const K = 25;
const KS = [1, 5, 10, 25] as const;
/** The largest sample (689 turns): the latency target is stated for a ~700-turn conversation. */
const LATENCY_SAMPLE = 'conv-47';

interface Answer {
  sampleId: string;
  category: CategoryId;
  evidence: string[];
  retrieved: string[];
  ms: number;
}

interface SystemResult {
  name: string;
  answers: Answer[];
  turns: number;
  ingestMs: number | null;
}

type Retriever = (
  sample: Sample,
) => Promise<{ answers: Answer[]; turns: number; ingestMs: number | null }>;

function presetRetriever(preset: string, config: Record<string, unknown> = {}): Retriever {
  return async (sample) => {
    const r = await evaluateRetrieval(
      [sample],
      (ctx) => createMemoryService(preset, config, ctx),
      K,
    );
    return { answers: r.questions, turns: r.turns, ingestMs: r.insertMs };
  };
}

const withEvidence = (sample: Sample) => sample.qa.filter((q) => q.evidence.length > 0);
const turnsOf = (sample: Sample) => sample.sessions.flatMap((s) => s.turns);

/** MiniSearch with its defaults (BM25+, lowercase word tokens, no stemming), OR queries. */
const miniSearch: Retriever = async (sample) => {
  const t0 = performance.now();
  const index = new MiniSearch<{ id: string; text: string }>({ fields: ['text'] });
  const turns = turnsOf(sample);
  index.addAll(turns.map((t) => ({ id: t.diaId, text: turnText(t) })));
  const ingestMs = performance.now() - t0;
  const answers = withEvidence(sample).map((q) => {
    const q0 = performance.now();
    const retrieved = index
      .search(q.question)
      .slice(0, K)
      .map((r) => String(r.id));
    const ms = performance.now() - q0;
    return { sampleId: sample.sampleId, category: q.category, evidence: q.evidence, retrieved, ms };
  });
  return { answers, turns: turns.length, ingestMs };
};

/** The vector preset's document vectors (turn + 0.5 x previous turn), as the preset builds them. */
async function documentVectors(
  sample: Sample,
): Promise<{ ids: string[]; vectors: Float32Array[] }> {
  const embedder = await sharedWinkEmbedder();
  const ids: string[] = [];
  const vectors: Float32Array[] = [];
  for (const session of sample.sessions) {
    const raw = embedder.embedSync(session.turns.map((t) => turnText(t)));
    session.turns.forEach((t, i) => {
      ids.push(t.diaId);
      vectors.push(
        contextVector(
          raw[i] as Float32Array,
          i > 0 ? (raw[i - 1] as Float32Array) : null,
          DEFAULT_PREVIOUS_TURN_VECTOR,
        ),
      );
    });
  }
  return { ids, vectors };
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let j = 0; j < a.length; j++) s += (a[j] as number) * (b[j] as number);
  return s;
}

const agreement: number[] = [];

/** Exact cosine over every document vector; also scores hnsw's raw top-10 against it. */
const exactCosine: Retriever = async (sample) => {
  const embedder = await sharedWinkEmbedder();
  const { ids, vectors } = await documentVectors(sample);
  const dir = mkdtempSync(join(tmpdir(), 'mw-bench-hnsw-'));
  const hnsw = HybridCollection.open(dir, { embedder });
  try {
    hnsw.createIndex('vector', { type: 'vector', dim: embedder.dim, space: 'cosine' });
    await hnsw.insert(
      ids.map((id, i) => ({ id, text: id, vectors: { vector: vectors[i] as Float32Array } })),
    );
    const answers: Answer[] = [];
    for (const q of withEvidence(sample)) {
      const q0 = performance.now();
      const qv = embedder.embedSync([q.question])[0] as Float32Array;
      const order = vectors.map((v, i) => [i, dot(v, qv)] as const).sort((a, b) => b[1] - a[1]);
      const retrieved = order.slice(0, K).map(([i]) => ids[i] as string);
      const ms = performance.now() - q0;
      answers.push({
        sampleId: sample.sampleId,
        category: q.category,
        evidence: q.evidence,
        retrieved,
        ms,
      });
      const approx = new Set((await hnsw.retrieve('vector', qv, { topK: 10 })).map((h) => h.id));
      agreement.push(
        retrieved.slice(0, 10).filter((id) => approx.has(id)).length / Math.min(10, ids.length),
      );
    }
    return { answers, turns: ids.length, ingestMs: null };
  } finally {
    hnsw.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

async function runSystem(
  name: string,
  retriever: Retriever,
  samples: Sample[],
): Promise<SystemResult> {
  // One unrecorded pass over the first sample: JIT warm-up, embedder load, SQLite page cache.
  if (samples[0]) await retriever(samples[0]);
  agreement.length = 0;
  const out: SystemResult = { name, answers: [], turns: 0, ingestMs: 0 };
  for (const sample of samples) {
    const r = await retriever(sample);
    out.answers.push(...r.answers);
    out.turns += r.turns;
    out.ingestMs = r.ingestMs === null || out.ingestMs === null ? null : out.ingestMs + r.ingestMs;
  }
  process.stderr.write(`  ${name}: done\n`);
  return out;
}

function meanRecall(answers: readonly Answer[], k: number): number {
  return recallAtK(answers, k).mean;
}

function hitAt(answers: readonly Answer[], k: number): number {
  if (answers.length === 0) return Number.NaN;
  const top = (a: Answer) => new Set(a.retrieved.slice(0, k));
  return answers.filter((a) => a.evidence.some((id) => top(a).has(id))).length / answers.length;
}

function latency(answers: readonly Answer[]): { p50: number; p95: number } {
  const ms = answers.map((a) => a.ms).sort((x, y) => x - y);
  return { p50: percentile(ms, 0.5), p95: percentile(ms, 0.95) };
}

const ABLATION: Array<{ label: string; preset: string; config: Record<string, unknown> }> = (() => {
  const off = { previousTurnScore: 0, nextTurnScore: 0, speakerBoost: 0, dropQuestionWords: false };
  return [
    {
      label: 'BM25 (text index: stems, stop words), plain question',
      preset: 'text',
      config: { ...off },
    },
    {
      label: '+ SIF vectors, RRF fusion (equal weights)',
      preset: 'hybrid',
      config: { ...off, previousTurnVector: 0, fusion: 'rrf', vectorWeight: 1 },
    },
    {
      label: 'weighted fusion instead (text 1, vector 0.2)',
      preset: 'hybrid',
      config: { ...off, previousTurnVector: 0 },
    },
    {
      label: '+ drop question words from the text query',
      preset: 'hybrid',
      config: { ...off, previousTurnVector: 0, dropQuestionWords: true },
    },
    {
      label: '+ previous turn mixed into the turn vector (0.5)',
      preset: 'hybrid',
      config: { ...off, dropQuestionWords: true },
    },
    {
      label: '+ neighbour scores (prev 0.5, next 0.2)',
      preset: 'hybrid',
      config: { speakerBoost: 0 },
    },
    { label: '+ named-speaker boost (x1.4) = hybrid default', preset: 'hybrid', config: {} },
    { label: 'hybrid default without stemming', preset: 'hybrid', config: { stem: false } },
    { label: 'text preset default (all ideas, no vectors)', preset: 'text', config: {} },
    // Issue 28 item 4, each step on top of the hybrid default; the last is hybrid-context.
    {
      label: 'hybrid + previous turn in the BM25 document',
      preset: 'hybrid',
      config: { textWindow: 1 },
    },
    { label: 'hybrid + two previous turns instead', preset: 'hybrid', config: { textWindow: 2 } },
    {
      label: 'hybrid + previous turn + session month in BM25',
      preset: 'hybrid',
      config: { textWindow: 1, dateWords: true },
    },
    {
      label: '+ session score 0.6',
      preset: 'hybrid',
      config: { textWindow: 1, dateWords: true, sessionScore: 0.6 },
    },
    {
      label: '+ neighbour scores prev 0.2, next 0.5',
      preset: 'hybrid-context',
      config: { sessionScore: 0.6, timeBoost: 0 },
    },
    {
      label: '+ time boost x2 for "when" questions',
      preset: 'hybrid-context',
      config: { sessionScore: 0.6 },
    },
    {
      label: '+ session score 0.8 instead of 0.6 = hybrid-context',
      preset: 'hybrid-context',
      config: {},
    },
    {
      label: 'hybrid-context with RRF fusion instead',
      preset: 'hybrid-context',
      config: { fusion: 'rrf' },
    },
  ];
})();

/**
 * `--samples tune`, `held-out` or comma-separated ids (passed on as `samples=<value>`): explore
 * on one half at a time on a shared machine.
 */
function chosenSamples(all: Sample[], extra: string[]): Sample[] {
  const value = extra.find((e) => e.startsWith('samples='))?.slice('samples='.length);
  if (value === undefined) return all;
  const wanted =
    value === 'tune'
      ? TUNE_SAMPLES
      : value === 'held-out'
        ? HELD_OUT_SAMPLES
        : new Set(value.split(',').map((id) => id.trim()));
  const chosen = all.filter((s) => wanted.has(s.sampleId));
  if (chosen.length === 0) {
    throw new Error(
      `bench retrieval: --samples ${value} matches no sample (samples: ${all.map((s) => s.sampleId).join(', ')})`,
    );
  }
  return chosen;
}

export async function retrievalSuite(data: string, write: boolean, extra: string[]): Promise<void> {
  const started = performance.now();
  const dataset = await loadDatasetFile(data);
  const samples = chosenSamples(dataset.samples, extra);
  // A section measured on part of the samples must not replace the full one in the docs.
  if (samples.length !== dataset.samples.length) write = false;
  const tune = (a: Answer) => TUNE_SAMPLES.has(a.sampleId);
  const held = (a: Answer) => HELD_OUT_SAMPLES.has(a.sampleId);
  process.stderr.write(`retrieval bench on ${data}: ${samples.length} samples\n`);

  const systems: SystemResult[] = [];
  for (const preset of ['vector', 'text', 'hybrid', 'hybrid-context'])
    systems.push(await runSystem(preset, presetRetriever(preset), samples));
  systems.push(await runSystem('MiniSearch BM25+ (reference)', miniSearch, samples));
  systems.push(await runSystem('exact cosine, SIF (reference)', exactCosine, samples));
  const hnswAgreement = agreement.reduce((s, x) => s + x, 0) / Math.max(1, agreement.length);

  const ablation: Array<{ label: string; all: number; tune: number; held: number }> = [];
  if (!extra.includes('no-ablation')) {
    for (const step of ABLATION) {
      const answers: Answer[] = [];
      for (const sample of samples)
        answers.push(...(await presetRetriever(step.preset, step.config)(sample)).answers);
      ablation.push({
        label: step.label,
        all: meanRecall(answers, 10),
        tune: meanRecall(answers.filter(tune), 10),
        held: meanRecall(answers.filter(held), 10),
      });
      process.stderr.write(
        `  ablation: ${step.label}: ${fmt(ablation[ablation.length - 1]?.all ?? NaN)}\n`,
      );
    }
  }
  const rss = peakRssMb();

  const n = systems[0]?.answers.length ?? 0;
  const lines: string[] = [];
  lines.push('## Retrieval (evidence recall over LoCoMo turns)');
  lines.push('');
  lines.push(
    'Reproduce: `npm run bench -- retrieval` (reads `../shared/datasets/locomo10.json`; `--data <file>` for another path).',
  );
  lines.push('');
  lines.push(
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}. Suite wall time ${((performance.now() - started) / 1000).toFixed(0)} s; peak RSS of the bench process ${rss === null ? 'n/a' : `${rss.toFixed(0)} MB`}.`,
  );
  lines.push('');
  lines.push(
    `Every turn of a sample is inserted (packet by packet, one collection per sample), then each of the ${n} questions with evidence is asked once; recall@k = share of the question's evidence turns among the first k retrieved, averaged over questions. Defaults were tuned on conv-26..conv-44 (tune, ${systems[0]?.answers.filter(tune).length ?? 0} questions); conv-47..conv-50 are held out (${systems[0]?.answers.filter(held).length ?? 0} questions).`,
  );
  lines.push('');
  lines.push(
    '| system | R@1 | R@5 | R@10 | R@25 | hit@10 | R@10 tune | R@10 held-out | ingest turns/s | query p50 ms | query p95 ms | p95 ms on conv-47 (689 turns) |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const s of systems) {
    const lat = latency(s.answers);
    const big = latency(s.answers.filter((a) => a.sampleId === LATENCY_SAMPLE));
    const ingest =
      s.ingestMs === null ? '-' : Math.round((s.turns / s.ingestMs) * 1000).toLocaleString('en-US');
    lines.push(
      `| ${s.name} | ${KS.map((k) => fmt(meanRecall(s.answers, k))).join(' | ')} | ${fmt(hitAt(s.answers, 10))} | ${fmt(meanRecall(s.answers.filter(tune), 10))} | ${fmt(meanRecall(s.answers.filter(held), 10))} | ${ingest} | ${fmt(lat.p50, 2)} | ${fmt(lat.p95, 2)} | ${fmt(big.p95, 2)} |`,
    );
  }
  lines.push('');
  lines.push(
    'Ingest = `MemoryService.insert` per packet (SIF embedding + SQLite + every index), after a warm-up sample; the exact-cosine reference has no ingest of its own (it reuses the vectors). MiniSearch ingest is `addAll` of one sample.',
  );
  lines.push('');
  lines.push(
    `hnsw top-10 agreement with exact cosine search over the same vectors (M 16, efConstruction 100, ef 64): **${fmt(hnswAgreement, 4)}** (target >= 0.99).`,
  );
  lines.push('');
  lines.push('### Recall@10 by category (official LoCoMo names)');
  lines.push('');
  lines.push(
    `| system | ${CATEGORY_IDS.map((c) => `${c} ${categoryName(c, 'official')} (n=${systems[0]?.answers.filter((a) => a.category === c).length ?? 0})`).join(' | ')} |`,
  );
  lines.push(`|---|${CATEGORY_IDS.map(() => '---').join('|')}|`);
  for (const s of systems) {
    lines.push(
      `| ${s.name} | ${CATEGORY_IDS.map((c) =>
        fmt(
          meanRecall(
            s.answers.filter((a) => a.category === c),
            10,
          ),
        ),
      ).join(' | ')} |`,
    );
  }
  if (ablation.length > 0) {
    lines.push('');
    lines.push('### What each idea bought (recall@10, cumulative from the top)');
    lines.push('');
    lines.push('| step | all | tune | held-out |');
    lines.push('|---|---|---|---|');
    for (const a of ablation)
      lines.push(`| ${a.label} | ${fmt(a.all)} | ${fmt(a.tune)} | ${fmt(a.held)} |`);
  }
  const body = lines.join('\n');
  process.stdout.write(`${body}\n`);
  if (write) await writeSection('retrieval', body);
}
