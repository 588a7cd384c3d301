import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeOpenAIServer,
  type FakeChatRequest,
  type FakeOpenAIServer,
} from '../support/fake-openai-server';

/**
 * A run judged by two protocols (issue 37 item 1): its own judge (mem0, model judge-a) and one
 * `experiment --judge strict:judge-b:3` adds, both answered by the local fake server with verdicts
 * fixed by the question's length, so each J and the agreement are known by hand from the stored
 * questions. `report --json` and the text report show both headlines with intervals and the
 * agreement.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-multi-judge-'));
const db = join(dir, 'runs.db');
const env = {
  ...process.env,
  MEMORY_WORKBENCH_DATA: join(dir, 'data'),
  MEMORY_WORKBENCH_EXTRA_PRESETS: join(repo, 'tests/fixtures/experiment/test-presets.ts'),
};
const cliArgs = ['--import', 'tsx', join(repo, 'src-main/cli/main.ts')];

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [...cliArgs, ...args], {
      cwd: repo,
      env,
      encoding: 'utf8',
    });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, out: e.stdout ?? '', err: e.stderr ?? '' };
  }
}

// judge-a accepts a question of even length; judge-b one whose length is not a multiple of 4
// (on the fixture's questions each judge says both things, and they agree on one in six).
const acceptsA = (question: string): boolean => question.length % 2 === 0;
const acceptsB = (question: string): boolean => question.length % 4 !== 0;

let server: FakeOpenAIServer;
let runId: string;
const models = new Set<string>();

beforeAll(async () => {
  server = await startFakeOpenAIServer({
    chat: (chat: FakeChatRequest) => {
      const prompt = chat.messages.at(-1)?.content ?? '';
      // The last one: mem0's prompt has an example question before the real one.
      const question = [...prompt.matchAll(/^Question: (.*)$/gm)].at(-1)?.[1] ?? '';
      models.add(chat.model);
      const correct = chat.model === 'judge-a' ? acceptsA(question) : acceptsB(question);
      return JSON.stringify({ label: correct ? 'CORRECT' : 'WRONG', reason: 'by length' });
    },
  });
  const run = await cli(
    'experiment',
    '--data',
    mini,
    '--preset',
    'test-recency',
    '--judge-base-url',
    server.url,
    '--judge-model',
    'judge-a',
    '--judge-protocol',
    'mem0',
    '--judge',
    'strict:judge-b:3',
    '--runs-db',
    db,
    '--json',
  );
  expect(run.code, run.err).toBe(0);
  runId = (JSON.parse(run.out) as { runId: string }).runId;
}, 180_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The questions each judge scored: the final answers of categories 1-4 (LoCoMo's judged ones). */
function judgedQuestions(): Array<{ sample: string; question: string }> {
  const conn = new Database(db, { readonly: true });
  try {
    return conn
      .prepare(
        `SELECT a.sample_id AS sample, a.question FROM answers a
         JOIN (SELECT sample_id, question_index, MAX(test_index) AS t FROM answers GROUP BY 1, 2) f
           ON a.sample_id = f.sample_id AND a.question_index = f.question_index AND a.test_index = f.t
         WHERE a.category != 5`,
      )
      .all() as Array<{ sample: string; question: string }>;
  } finally {
    conn.close();
  }
}

interface Interval {
  estimate?: number;
  meanDiff?: number;
  low: number;
  high: number;
  n: number;
}

describe('a run judged by two protocols', () => {
  it('stores the added judge under its identity and reports both J with intervals and their agreement', async () => {
    expect([...models].sort()).toEqual(['judge-a', 'judge-b']);
    const questions = judgedQuestions();
    const n = questions.length;
    const a = questions.map((q) => (acceptsA(q.question) ? 1 : 0));
    const b = questions.map((q) => (acceptsB(q.question) ? 1 : 0));
    const jA = a.reduce<number>((s, x) => s + x, 0) / n;
    const jB = b.reduce<number>((s, x) => s + x, 0) / n;
    // The fixture's questions must make both judges say both things, or κ is undefined.
    expect(jA).toBeGreaterThan(0);
    expect(jA).toBeLessThan(1);
    expect(jB).toBeGreaterThan(0);
    expect(jB).toBeLessThan(1);
    // By hand: observed agreement, Cohen's chance agreement from each judge's own marginals,
    // Fleiss' from the pooled ones, and Krippendorff's α for two raters with complete nominal
    // data, 1 - d(2N - 1) / (n_correct n_wrong) over the 2N labels.
    const disagreements = a.filter((x, i) => x !== b[i]).length;
    const observed = 1 - disagreements / n;
    const cohenChance = jA * jB + (1 - jA) * (1 - jB);
    const pooled = (jA + jB) / 2;
    const fleissChance = pooled * pooled + (1 - pooled) * (1 - pooled);
    const correctLabels = (jA + jB) * n;
    const alpha = 1 - (disagreements * (2 * n - 1)) / (correctLabels * (2 * n - correctLabels));

    const json = await cli('report', runId, '--json', '--runs-db', db);
    expect(json.code, json.err).toBe(0);
    const report = JSON.parse(json.out) as {
      judgeProtocols: Array<{ protocol: string; model: string; origin: string; repeats: number }>;
      judgePanel: {
        questions: number;
        judges: Array<{
          judge: { protocol: string; model: string; origin: string; repeats: number };
          own: boolean;
          headline: Interval;
          vsFirst: Interval | null;
          selfConsistency: { unanimity: Interval; spread: { std: number } } | null;
        }>;
        agreement: {
          percentAgreement: Interval;
          pairs: Array<{ cohenKappa: Interval; percentAgreement: Interval }>;
          fleissKappa: Interval;
          krippendorffAlpha: Interval;
        };
      };
    };
    const origin = new URL(server.url).origin;
    expect(
      report.judgeProtocols.map(({ protocol, model, origin: o, repeats }) => ({
        protocol,
        model,
        o,
        repeats,
      })),
    ).toEqual([{ protocol: 'strict', model: 'judge-b', o: origin, repeats: 3 }]);
    const panel = report.judgePanel;
    expect(panel.questions).toBe(n);
    const [own, added] = panel.judges;
    expect(own?.judge).toEqual({ protocol: 'mem0', model: 'judge-a', origin, repeats: 1 });
    expect(own?.own).toBe(true);
    expect(added?.judge).toEqual({ protocol: 'strict', model: 'judge-b', origin, repeats: 3 });
    const within = (x: Interval | undefined | null, value: number): void => {
      expect(x?.low).toBeLessThanOrEqual(value + 1e-9);
      expect(x?.high).toBeGreaterThanOrEqual(value - 1e-9);
      expect(x!.high).toBeGreaterThan(x!.low);
    };
    expect(own?.headline.meanDiff).toBeCloseTo(jA, 10);
    expect(own?.headline.n).toBe(n);
    within(own?.headline, jA);
    expect(added?.headline.meanDiff).toBeCloseTo(jB, 10);
    within(added?.headline, jB);
    expect(added?.vsFirst?.meanDiff).toBeCloseTo(jB - jA, 10);
    // Three repeats of a deterministic judge agree with themselves on every answer.
    expect(added?.selfConsistency?.unanimity.estimate).toBe(1);
    expect(added?.selfConsistency?.spread.std).toBe(0);
    expect(own?.selfConsistency).toBeNull();

    const agreement = panel.agreement;
    expect(agreement.percentAgreement.estimate).toBeCloseTo(observed, 10);
    expect(agreement.pairs).toHaveLength(1);
    expect(agreement.pairs[0]?.percentAgreement.estimate).toBeCloseTo(observed, 10);
    const cohen = (observed - cohenChance) / (1 - cohenChance);
    expect(agreement.pairs[0]?.cohenKappa.estimate).toBeCloseTo(cohen, 10);
    within(agreement.pairs[0]?.cohenKappa, cohen);
    expect(agreement.fleissKappa.estimate).toBeCloseTo(
      (observed - fleissChance) / (1 - fleissChance),
      10,
    );
    expect(agreement.krippendorffAlpha.estimate).toBeCloseTo(alpha, 10);
    within(agreement.krippendorffAlpha, alpha);

    const text = await cli('report', runId, '--runs-db', db);
    expect(text.code, text.err).toBe(0);
    const judges = text.out.slice(text.out.indexOf('Judges on'));
    const interval = (x: Interval): string =>
      `${(x.estimate ?? x.meanDiff)!.toFixed(3)} [${x.low.toFixed(3)}, ${x.high.toFixed(3)}]`;
    expect(judges).toMatch(
      new RegExp(`^mem0 \\(run\\)\\s+${escape(interval(own!.headline))}\\s+-\\s+${n}\\s+0$`, 'm'),
    );
    expect(judges).toMatch(
      new RegExp(
        `^strict\\s+${escape(interval(added!.headline))}\\s+${escape(interval(added!.vsFirst!))}\\s+${n}\\s+0$`,
        'm',
      ),
    );
    expect(judges).toMatch(
      new RegExp(
        `^  Cohen's κ mem0 × strict\\s+${escape(interval(agreement.pairs[0]!.cohenKappa))}`,
        'm',
      ),
    );
    expect(judges).toMatch(
      new RegExp(`^  Krippendorff's α\\s+${escape(interval(agreement.krippendorffAlpha))}`, 'm'),
    );
    expect(judges).toMatch(/^ {2}strict: strict · judge-b · ×3 · .*3 repeats: majority-vote J/m);

    // cli compare, the run against itself: both judges are shared, each J is the report's and
    // the paired Δ is 0; the text prints a row per judge.
    const compared = await cli('compare', runId, runId, '--json', '--runs-db', db);
    expect(compared.code, compared.err).toBe(0);
    const byJudge = (
      JSON.parse(compared.out) as {
        judges: Array<{
          judge: { protocol: string };
          perRun: Interval[];
          vsBaseline: Array<Interval | null>;
        }>;
      }
    ).judges;
    expect(byJudge.map((j) => j.judge.protocol)).toEqual(['mem0', 'strict']);
    expect(byJudge[0]!.perRun[0]!.meanDiff).toBeCloseTo(jA, 10);
    expect(byJudge[1]!.perRun[1]!.meanDiff).toBeCloseTo(jB, 10);
    expect(byJudge[1]!.vsBaseline[1]!.meanDiff).toBe(0);
    const compareText = await cli('compare', runId, runId, '--runs-db', db);
    expect(compareText.code, compareText.err).toBe(0);
    expect(compareText.out).toMatch(/^strict\s+\d+\s+\d\.\d{3} \[/m);

    // The shared HTML report carries the same panel.
    const html = await cli('report', runId, '--html', '--runs-db', db);
    expect(html.code, html.err).toBe(0);
    const section = html.out.slice(html.out.indexOf('<section aria-label="Judges">'));
    expect(section).toContain(`<td>${interval(own!.headline)}</td>`);
    expect(section).toContain(`<td>${interval(added!.vsFirst!)}</td>`);
    expect(section).toContain(`<td>${interval(agreement.krippendorffAlpha)}</td>`);
  }, 150_000);
});

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
