import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, runCli } from '../support/cli';
import {
  startFakeOpenAIServer,
  type FakeChatRequest,
  type FakeOpenAIServer,
  type RouteResponse,
} from '../support/fake-openai-server';

/**
 * Issue 35's "Done when": an independent recomputation from the export and the fake server's log
 * agrees with every figure a LoCoMo LLM run prints. `cli experiment` answers and judges through a
 * fake OpenAI-compatible server whose replies follow rules stated here; every figure of the
 * printout (the per-category table, the counts, Mem0's Table 2 line) and of the export's usage is
 * then recomputed without the product's scoring code: the text metrics by the Python references
 * (NLTK through /usr/bin/python3), J by re-applying the fake judge's rule, recall from the fixture's
 * evidence, requests and tokens from the server's log, percentiles by NumPy.
 */
const PYTHON = '/usr/bin/python3';
// figures.json's fig-1: every LoCoMo category, multi-hop golds with commas, all of it small.
const FIXTURE = join(REPO, 'tests/fixtures/locomo/figures.json');
const SAMPLE = 'fig-1';
const ANSWER_MODEL = 'fake-chat';
const JUDGE_MODEL = 'fake-judge';
const KEY_ENV = 'MW_RECOMPUTE_API_KEY';
const dir = mkdtempSync(join(tmpdir(), 'workbench-recompute-'));
const db = join(dir, 'runs.db');
const env = { [KEY_ENV]: 'sk-recompute-test', MEMORY_WORKBENCH_DATA: join(dir, 'data') };

interface FixtureQa {
  question: string;
  answer?: string | number;
  adversarial_answer?: string;
  evidence: string[];
  category: number;
}
const dataset = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Array<{
  sample_id: string;
  qa: FixtureQa[];
}>;
const qas = dataset.find((s) => s.sample_id === SAMPLE)!.qa;

const NOT_MENTIONED = 'Not mentioned in the conversation';

/** The fixture question an answer prompt asks. */
function questionOf(content: string): FixtureQa {
  const options = /\(a\) (.*?) \(b\) (.*?)\.\s/.exec(content);
  // Adversarial questions may share their text; their tempting wrong answers tell them apart.
  const qa = qas.find(
    (q) =>
      content.includes(`Question: ${q.question}`) &&
      (options === null || options.includes(q.adversarial_answer ?? '')),
  );
  if (qa === undefined) throw new Error(`the fake answerer knows no question in: ${content}`);
  return qa;
}

/**
 * The fake answerer, by the question's rank among its category's questions in the fixture: a third
 * answer the gold, a third a wrong answer, a third overlap it in part (a multi-hop gold's first part
 * alone); adversarial two-option questions alternate between the "not mentioned" option and the
 * other, so every category has right and wrong answers.
 */
function answerReply(content: string): string {
  const options = /\(a\) (.*?) \(b\) (.*?)\.\s/.exec(content);
  const qa = questionOf(content);
  const rank = qas.filter((q) => q.category === qa.category).indexOf(qa);
  if (options) return (options[1] === NOT_MENTIONED) === (rank % 2 === 0) ? '(a)' : '(b)';
  const gold = String(qa.answer);
  if (rank % 3 === 0) return gold;
  if (rank % 3 === 1) return 'a blue bicycle';
  // A multi-hop gold's first part alone scores 0.5 by LoCoMo's per-part rule, 0.67 as one answer.
  return gold.includes(',') ? gold.split(',')[0]! : `${gold} and Bergen last year`;
}

/** The fake judge's rule, re-applied below to the export's gold and prediction. */
const judgeSaysCorrect = (gold: string, generated: string): boolean =>
  generated.toLowerCase().includes(gold.trim().toLowerCase());

function judgeReply(content: string): string {
  // The last ones: Mem0's judge prompt has an example "Gold answer:" line before the real one.
  const gold = [...content.matchAll(/^Gold answer: (.*)$/gm)].at(-1)?.[1];
  const generated = [...content.matchAll(/^Generated answer: (.*)$/gm)].at(-1)?.[1];
  if (gold === undefined || generated === undefined) throw new Error('not a judge prompt');
  return JSON.stringify({ label: judgeSaysCorrect(gold, generated) ? 'CORRECT' : 'WRONG' });
}

/** Usage as this server reports it (characters, so no tokenizer is shared with the product). */
function usageOf(chat: FakeChatRequest, reply: string): { prompt: number; completion: number } {
  return {
    prompt: chat.messages.reduce((n, m) => n + m.content.length, 0),
    completion: reply.length,
  };
}

function replyTo(chat: FakeChatRequest): string {
  const content = chat.messages.at(-1)?.content ?? '';
  return chat.model === JUDGE_MODEL ? judgeReply(content) : answerReply(content);
}

function chatScript(chat: FakeChatRequest): RouteResponse {
  const reply = replyTo(chat);
  const usage = usageOf(chat, reply);
  return {
    json: {
      id: 'chatcmpl-recompute',
      object: 'chat.completion',
      model: chat.model,
      choices: [
        { index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' },
      ],
      usage: {
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        total_tokens: usage.prompt + usage.completion,
      },
    },
  };
}

/**
 * The references, verbatim in substance: LoCoMo task_eval/evaluation.py (normalize_answer,
 * f1_score, f1 and eval_question_answering's per-category dispatch; ../shared/DESIGN.md section 5
 * "Official F1"), mem0 evaluation/metrics/utils.py (simple_tokenize, set F1, BLEU-1 with
 * sentence_bleu weights (1,0,0,0) and smoothing method1), NumPy's default (linear) percentile, the
 * method src-shared/scoring/stats.ts `quantileSorted` documents. nltk.word_tokenize needs Punkt's
 * trained model, NLTK data Debian lacks: as scripts/golden/generate.py does, Punkt with empty
 * parameters splits sentences (the replies here are one sentence each, where both agree).
 */
const REFERENCE_PY = String.raw`
import json, re, string, sys
from collections import Counter
try:
    import numpy as np
    from nltk.stem import PorterStemmer
    from nltk.tokenize.destructive import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu
except ImportError as e:
    print('missing: %s' % e, file=sys.stderr)
    sys.exit(3)
ps = PorterStemmer()

def normalize_answer(s):
    s = s.replace(',', '')
    s = s.lower()
    s = ''.join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r'\b(a|an|the|and)\b', ' ', s)
    return ' '.join(s.split())

def f1_score(prediction, ground_truth):
    p = [ps.stem(w) for w in normalize_answer(prediction).split()]
    g = [ps.stem(w) for w in normalize_answer(ground_truth).split()]
    same = sum((Counter(p) & Counter(g)).values())
    if same == 0:
        return 0
    precision, recall = same / len(p), same / len(g)
    return 2 * precision * recall / (precision + recall)

def f1(prediction, ground_truth):
    predictions = [x.strip() for x in prediction.split(',')]
    golds = [x.strip() for x in ground_truth.split(',')]
    return float(np.mean([max(f1_score(p, g) for p in predictions) for g in golds]))

def official(output, answer, category):
    if category == 3:
        answer = answer.split(';')[0].strip()
    if category in (2, 3, 4):
        return f1_score(output, answer)
    if category == 1:
        return f1(output, answer)
    return 1 if ('no information available' in output.lower() or 'not mentioned' in output.lower()) else 0

def simple_tokenize(text):
    text = str(text).lower().replace('.', ' ').replace(',', ' ').replace('!', ' ').replace('?', ' ')
    return text.split()

def set_f1(prediction, reference):
    p, r = set(simple_tokenize(prediction)), set(simple_tokenize(reference))
    if not p or not r:
        return 0.0
    common = p & r
    precision, recall = len(common) / len(p), len(common) / len(r)
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0

_word, _punkt = NLTKWordTokenizer(), PunktSentenceTokenizer(PunktParameters())
def word_tokenize(text):
    return [t for s in _punkt.tokenize(text) for t in _word.tokenize(s)]

def bleu1(pred_tokens, ref_tokens):
    return sentence_bleu([ref_tokens], pred_tokens, weights=(1, 0, 0, 0), smoothing_function=SmoothingFunction().method1)

data = json.load(sys.stdin)
out = {'items': [], 'percentiles': {}}
for it in data['items']:
    p, g = it['prediction'], it['gold']
    out['items'].append({
        'officialF1': official(p, g, it['category']),
        'setF1': set_f1(p, g),
        'bleu1': bleu1(word_tokenize(p.lower()), word_tokenize(g.lower())),
        'bleu1Simple': bleu1(simple_tokenize(p), simple_tokenize(g)),
    })
for name, values in data['timings'].items():
    out['percentiles'][name] = [float(np.percentile(values, 50)), float(np.percentile(values, 95))]
print(json.dumps(out))
`;

interface PythonFigures {
  items: Array<Record<'officialF1' | 'setF1' | 'bleu1' | 'bleu1Simple', number>>;
  percentiles: Record<string, [number, number]>;
}

function runReference(input: unknown): PythonFigures {
  if (!existsSync(PYTHON)) {
    throw new Error(
      `${PYTHON} is missing: this test recomputes with Python 3 and NLTK (apt-get install python3-nltk)`,
    );
  }
  const r = spawnSync(PYTHON, ['-c', REFERENCE_PY], {
    input: JSON.stringify(input),
    encoding: 'utf8',
  });
  if (r.status === 3) {
    throw new Error(
      `${PYTHON} lacks NLTK or NumPy (${r.stderr.trim()}): apt-get install python3-nltk`,
    );
  }
  if (r.status !== 0) throw new Error(`the Python reference failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as PythonFigures;
}

interface ExportedAnswer {
  sampleId: string;
  questionIndex: number;
  category: number;
  question: string;
  /** Null for an adversarial question without an answer. */
  gold: string | null;
  prediction: string;
  error: string | null;
  retrievedTurnIds: string[];
  memoryTokens: number | null;
}
interface RunExport {
  run: {
    runId: string;
    usage: Record<
      'answer' | 'judge',
      Record<'calls' | 'promptTokens' | 'completionTokens' | 'failures', number> & {
        cost: number | null;
      }
    > & {
      memory: unknown;
    };
  };
  answers: ExportedAnswer[];
  testAnswers: Array<ExportedAnswer & { testIndex: number; retrieveMs: number; answerMs: number }>;
}

let server: FakeOpenAIServer;
let printed: string;
let shown: string;
let exported: RunExport;
beforeAll(async () => {
  server = await startFakeOpenAIServer({ chat: chatScript });
  const run = await runCli(
    [
      'experiment',
      ...['--data', FIXTURE, '--samples', SAMPLE, '--runs-db', db],
      ...[
        '--answerer',
        'llm',
        '--base-url',
        server.url,
        '--model',
        ANSWER_MODEL,
        '--api-key-env',
        KEY_ENV,
      ],
      // Without --judge-protocol: LoCoMo's own judge, the mem0 protocol.
      ...[
        '--judge-base-url',
        server.url,
        '--judge-model',
        JUDGE_MODEL,
        '--judge-api-key-env',
        KEY_ENV,
      ],
      // Every request in the log is the run's own: no preflight call, none answered by a cache.
      ...['--no-preflight', '--no-cache'],
    ],
    env,
  );
  expect(run.code, run.err).toBe(0);
  printed = run.out;
  const runId = /^run (\S+) completed/m.exec(printed)![1]!;
  const out = await runCli(['export', runId, '--format', 'json', '--runs-db', db], env);
  expect(out.code, out.err).toBe(0);
  exported = JSON.parse(out.out) as RunExport;
  const show = await runCli(['runs', 'show', runId, '--runs-db', db], env);
  expect(show.code, show.err).toBe(0);
  shown = show.out;
}, 120_000);
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A printed figure equals the recomputed one to the digits printed. */
function expectPrinted(cell: string, value: number, what: string): void {
  const digits = cell.split('.')[1]?.length ?? 0;
  const printedValue = Number(cell.replaceAll(',', ''));
  expect(Number.isNaN(printedValue), `${what}: "${cell}" is not a number`).toBe(false);
  expect(
    Math.abs(printedValue - value),
    `${what}: printed ${cell}, recomputed ${value}`,
  ).toBeLessThanOrEqual(0.5 * 10 ** -digits + 1e-9);
}

/** Evidence ids as DESIGN.md section 4 says to normalise them: split lists, unpad, keep `Dn:m`. */
const normalisedEvidence = (evidence: readonly string[]): Set<string> =>
  new Set(
    evidence
      .flatMap((e) => e.split(/[;\s]+/))
      .flatMap((id) => {
        const m = /^D(\d+):(\d+)$/.exec(id);
        return m ? [`D${Number(m[1])}:${Number(m[2])}`] : [];
      }),
  );

/** Per final answer and metric, the recomputed score; null where the metric does not score it. */
type Recomputed = Record<string, number | null>;

function recomputeAnswers(): Recomputed[] {
  const answers = exported.answers;
  const python = runReference({
    items: answers.map((a) => ({
      prediction: a.prediction,
      gold: a.gold ?? '',
      category: a.category,
    })),
    timings: {},
  });
  return answers.map((a, i) => {
    const qa = qas[a.questionIndex]!;
    const scored = a.error === null;
    const judged = scored && a.category !== 5; // Mem0-style metrics: categories 1-4 (DESIGN.md 5)
    const ref = python.items[i]!;
    const gold = normalisedEvidence(qa.evidence);
    const retrieved = new Set(a.retrievedTurnIds);
    return {
      'official F1': scored ? ref.officialF1 : null,
      // retrieval.ts: the share of the deduplicated evidence retrieved; none -> not scored.
      'evidence recall':
        gold.size === 0 ? null : [...gold].filter((id) => retrieved.has(id)).length / gold.size,
      // LoCoMo eval_question_answering: raw ids found / their count; no evidence counts 1.
      'evidence recall (LoCoMo)':
        qa.evidence.length === 0
          ? 1
          : qa.evidence.filter((id) => retrieved.has(id)).length / qa.evidence.length,
      'set F1': judged ? ref.setF1 : null,
      'BLEU-1': judged ? ref.bleu1 : null,
      'BLEU-1 (simple_tokenize)': judged ? ref.bleu1Simple : null,
      J: judged ? (judgeSaysCorrect(a.gold ?? '', a.prediction) ? 1 : 0) : null,
      // One repeat of a deterministic judge: the spread of J over repeats is 0.
      'J std': judged ? 0 : null,
    };
  });
}

/** The printed per-category table: column heads, and per row label its cells. */
function printedTable(): { heads: string[]; rows: Map<string, string[]> } {
  const lines = printed.split('\n');
  const at = lines.findIndex((l) => l.startsWith('category '));
  expect(at, 'the per-category table').toBeGreaterThanOrEqual(0);
  const heads = lines[at]!.trim()
    .split(/\s{2,}/)
    .slice(1);
  const rows = new Map<string, string[]>();
  for (const line of lines.slice(at + 1)) {
    if (!/^(\d |overall)/.test(line)) break;
    const cells = line.trim().split(/\s+/);
    rows.set(cells.slice(0, cells.length - heads.length).join(' '), cells.slice(-heads.length));
  }
  return { heads, rows };
}

const mean = (values: number[]): number => values.reduce((s, v) => s + v, 0) / values.length;

describe('an independent recomputation of a LoCoMo LLM run', () => {
  it('agrees with every cell of the per-category table and the question counts', () => {
    const recomputed = recomputeAnswers();
    const answers = exported.answers;
    // The export's final answers are the fixture's questions of the sample, asked and answered.
    expect(answers.map((a) => a.question)).toEqual(qas.map((q) => q.question));
    expect(answers.map((a) => a.gold)).toEqual(
      qas.map((q) => (q.answer === undefined ? null : String(q.answer))),
    );
    // The run mixed right, wrong and partial answers: the figures are not all 0 or 1.
    expect(new Set(recomputed.map((r) => r['official F1'])).size).toBeGreaterThan(2);
    expect(new Set(recomputed.map((r) => r.J))).toEqual(new Set([0, 1, null]));

    const groups = new Map<string, number[]>([
      ['overall (all, official)', answers.map((_, i) => i)],
      ['overall (categories 1-4)', answers.flatMap((a, i) => (a.category === 5 ? [] : [i]))],
    ]);
    const { heads, rows } = printedTable();
    for (const [label] of rows) {
      const category = /^(\d) /.exec(label)?.[1];
      if (category === undefined) continue;
      groups.set(
        label,
        answers.flatMap((a, i) => (a.category === Number(category) ? [i] : [])),
      );
    }
    expect([...rows.keys()].sort()).toEqual([...groups.keys()].sort());
    expect(rows.size).toBe(2 + new Set(qas.map((q) => q.category)).size);

    for (const [label, members] of groups) {
      const cells = rows.get(label)!;
      let last: number[] = [];
      heads.forEach((head, c) => {
        const cell = cells[c]!;
        const what = `${label} / ${head}`;
        if (head === 'n') {
          // The n beside a figure counts the answers it is the mean of.
          expect(cell, what).toBe(String(last.length));
          return;
        }
        expect(
          Object.keys(recomputed[0]!),
          `no recomputation for the printed column "${head}"`,
        ).toContain(head);
        last = members.flatMap((i) => {
          const v = recomputed[i]![head];
          return v === null || v === undefined ? [] : [v];
        });
        if (last.length === 0) expect(cell, what).toBe('-');
        else expectPrinted(cell, mean(last), what);
      });
    }

    const errors = answers.filter((a) => a.error !== null).length;
    expect(printed).toContain(`questions ${answers.length}, errors ${errors}\n`);
    const all = dataset.reduce((n, s) => n + s.qa.length, 0);
    expect(printed).toContain(
      `n = ${qas.length} of the dataset's ${all} questions: ${all - qas.length} in samples not selected`,
    );
  });

  it("agrees with Mem0's Table 2 line, from the export's timings and the log's prompts", () => {
    // Final answers are each question's answer at its last test (the export's `answers`).
    const last = new Map<string, RunExport['testAnswers'][number]>();
    for (const a of exported.testAnswers) {
      const key = `${a.sampleId}#${a.questionIndex}`;
      if ((last.get(key)?.testIndex ?? -1) < a.testIndex) last.set(key, a);
    }
    const finals = exported.answers.map((a) => last.get(`${a.sampleId}#${a.questionIndex}`)!);
    expect(finals.map((a) => a.prediction)).toEqual(exported.answers.map((a) => a.prediction));
    const ok = finals.filter((a) => a.error === null);
    const search = ok.map((a) => a.retrieveMs);
    const total = ok.map((a) => a.retrieveMs + a.answerMs);
    // Memory tokens per question: the memories block of the question's last answer prompt in the
    // log, counted by the estimate's documented definition (tokenEstimate.ts ESTIMATE_TOKEN_PATTERN:
    // words, digit runs of up to three, each other symbol).
    const prompts = server.requests
      .map((r) => r.body as FakeChatRequest)
      .filter((b) => b.model === ANSWER_MODEL)
      .map((b) => b.messages.at(-1)!.content);
    const tokens = ok.map((a) => {
      const prompt = prompts.findLast((p) => questionOf(p) === qas[a.questionIndex])!;
      const memories =
        /the beginning of the conversation\.\n\n([\s\S]*)\n\nBased on the above context/.exec(
          prompt,
        )![1]!;
      return memories.match(/\p{L}+|\p{N}{1,3}|[^\p{L}\p{N}\s]/gu)!.length;
    });
    expect(tokens).toEqual(ok.map((a) => a.memoryTokens));
    const { percentiles } = runReference({ items: [], timings: { search, total, tokens } });

    const line =
      /^Mem0 Table 2 columns: search p50 (\S+) s, p95 (\S+) s; total \(search \+ answer\) p50 (\S+) s, p95 (\S+) s; memory tokens \/ question mean (\S+), p50 (\S+); ingest (.*)$/m.exec(
        printed,
      );
    expect(line, 'the Table 2 line').not.toBeNull();
    const [, s50, s95, t50, t95, tokensMean, tokensP50, ingest] = line!;
    expectPrinted(s50!, percentiles['search']![0] / 1000, 'search p50 (s)');
    expectPrinted(s95!, percentiles['search']![1] / 1000, 'search p95 (s)');
    expectPrinted(t50!, percentiles['total']![0] / 1000, 'total p50 (s)');
    expectPrinted(t95!, percentiles['total']![1] / 1000, 'total p95 (s)');
    expectPrinted(tokensMean!, Math.round(mean(tokens)), 'memory tokens / question mean');
    expectPrinted(
      tokensP50!,
      Math.round(percentiles['tokens']![0]),
      'memory tokens / question p50',
    );
    // No memory LLM in this preset: the log holds no request but the answerer's and the judge's.
    const models = new Set(server.requests.map((r) => (r.body as FakeChatRequest).model));
    expect(models).toEqual(new Set([ANSWER_MODEL, JUDGE_MODEL]));
    expect(exported.run.usage.memory).toBeNull();
    expect(ingest).toBe('no memory LLM');
  });

  it("agrees with the recorded requests and tokens per role, from the server's log", () => {
    // Every request the server received: chat completions only (the embedder is offline).
    expect(new Set(server.requests.map((r) => r.path))).toEqual(new Set(['/v1/chat/completions']));
    for (const [role, model] of [
      ['answer', ANSWER_MODEL],
      ['judge', JUDGE_MODEL],
    ] as const) {
      const sent = server.requests
        .map((r) => r.body as FakeChatRequest)
        .filter((b) => b.model === model);
      const usage = sent.map((b) => usageOf(b, replyTo(b)));
      expect(exported.run.usage[role], role).toEqual({
        calls: sent.length,
        promptTokens: usage.reduce((n, u) => n + u.prompt, 0),
        completionTokens: usage.reduce((n, u) => n + u.completion, 0),
        cost: null,
        failures: 0,
      });
    }
    // Every final answer of categories 1-4 was judged, by at least one request naming it.
    const judgePrompts = server.requests
      .map((r) => r.body as FakeChatRequest)
      .filter((b) => b.model === JUDGE_MODEL)
      .map((b) => b.messages.at(-1)!.content);
    for (const a of exported.answers.filter((x) => x.category !== 5))
      expect(judgePrompts.some((p) => p.includes(`Generated answer: ${a.prediction}\n`))).toBe(
        true,
      );
    expect(shown).toContain(`actual ${server.requests.length} requests`);
  });
});
