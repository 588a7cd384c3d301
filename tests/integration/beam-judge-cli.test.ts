import { beamFixtureTree } from '../support/beam-fixture';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src-main/core/sqlite';
import { BEAM_EQUIVALENCE_SYSTEM } from '../../src-main/core/answer/beam-judge';
import { REPO, runCli } from '../support/cli';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * A BEAM run end to end through the real CLI against the fake OpenAI-compatible server: the
 * answerer, then the judge pass under the profile's own judge (`beam-rubric`, not named on the
 * command line), then `report --format beam`. The judge's replies are a function of the rubric
 * item alone, so this test computes, from the dataset files and the replies it scripted, each
 * question's score as compute_metrics.py would (int() per item, the mean over items; event
 * ordering: tau_norm with no line aligned) and each ability's mean of per-chat means as
 * report_results.py does, independently of the workbench's scorer.
 */

const FIXTURE = join(beamFixtureTree(), '100K');
const REAL = join(REPO, '../shared/datasets/beam/100K');
const dir = mkdtempSync(join(tmpdir(), 'workbench-beam-judge-'));
let server: FakeOpenAIServer;

/** The judge's score for a rubric item as the fake server writes it: 0, 0.5 or 1 by its hash. */
function scoreText(item: string): string {
  const byte = createHash('sha256').update(item).digest()[0] as number;
  return ['0', '0.5', '1'][byte % 3] as string;
}
/** The answer: one line that is no rubric item, so event ordering aligns nothing. */
const ANSWER = 'I remember it from our conversation.';
const CRITERION = '- RUBRIC CRITERION (what to check): ';

beforeAll(async () => {
  server = await startFakeOpenAIServer({
    chat: (chat) => {
      if (chat.model === 'fake-chat') return ANSWER;
      const system = chat.messages.find((m) => m.role === 'system')?.content;
      if (system === BEAM_EQUIVALENCE_SYSTEM) return 'no';
      const user = chat.messages.find((m) => m.role === 'user')?.content ?? '';
      const at = user.indexOf(CRITERION);
      // extract_facts: the reference discards its reply.
      if (at < 0) return '["a fact"]';
      const rest = user.slice(at + CRITERION.length);
      const item = rest.slice(0, rest.indexOf('\n- RESPONSE TO EVALUATE: '));
      return `{"score": ${scoreText(item)}, "reason": "scripted"}`;
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

type Probing = Record<string, Array<{ question: string; rubric: string[] }>>;

/** tau-b of the reference against one unaligned line, closed form: -sqrt(2 / (n + 1)). */
function unalignedTauNorm(n: number): number {
  return (1 - Math.sqrt(2 / (n + 1))) / 2;
}

/** Each ability's mean over chats of the mean over the chat's questions, from the files. */
function expectedRow(root: string, chats: readonly string[]): Record<string, number> {
  const perAbility = new Map<string, number[]>();
  for (const chat of chats) {
    const probing = JSON.parse(
      readFileSync(join(root, chat, 'probing_questions/probing_questions.json'), 'utf8'),
    ) as Probing;
    for (const [ability, questions] of Object.entries(probing)) {
      if (questions.length === 0) continue;
      const scores = questions.map((q) =>
        ability === 'event_ordering'
          ? unalignedTauNorm(new Set(q.rubric).size)
          : q.rubric.reduce((sum, item) => sum + Math.trunc(Number(scoreText(item))), 0) /
            q.rubric.length,
      );
      const chatMean = scores.reduce((a, b) => a + b, 0) / scores.length;
      perAbility.set(ability, [...(perAbility.get(ability) ?? []), chatMean]);
    }
  }
  return Object.fromEntries(
    [...perAbility].map(([ability, means]) => [
      ability,
      means.reduce((a, b) => a + b, 0) / means.length,
    ]),
  );
}

async function runBeam(data: string, samples: readonly string[], tag: string) {
  const db = join(dir, `${tag}.db`);
  const env = { MEMORY_WORKBENCH_DATA: join(dir, `data-${tag}`) };
  const run = await runCli(
    [
      'experiment',
      '--data',
      data,
      ...(samples.length > 0 ? ['--samples', samples.join(',')] : []),
      '--answerer',
      'llm',
      '--base-url',
      server.url,
      '--model',
      'fake-chat',
      '--judge-base-url',
      server.url,
      '--judge-model',
      'fake-judge',
      '--runs-db',
      db,
      '--no-preflight',
    ],
    env,
  );
  expect(run.err + run.out).toMatch(/completed/);
  expect(run.code).toBe(0);
  const sqlite = openSqlite(db, { readonly: true, fileMustExist: true });
  let runId: string;
  let errors: number;
  try {
    runId = (sqlite.prepare('SELECT id FROM runs').get() as { id: string }).id;
    errors = (
      sqlite.prepare('SELECT COUNT(*) AS n FROM answers WHERE judge_error IS NOT NULL').get() as {
        n: number;
      }
    ).n;
  } finally {
    sqlite.close();
  }
  const report = await runCli(['report', runId, '--format', 'beam', '--runs-db', db], env);
  expect(report.err).toBe('');
  expect(report.code).toBe(0);
  return { report: report.out, errors };
}

/** report --format beam's markdown row: header cells to values. */
function reportRow(out: string): Record<string, string> {
  const lines = out.split('\n').filter((l) => l.startsWith('|'));
  const cells = (line: string): string[] =>
    line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
  const header = cells(lines[0] as string);
  const row = cells(lines[2] as string);
  return Object.fromEntries(header.map((h, i) => [h, row[i] as string]));
}

function expectReport(out: string, expected: Record<string, number>): void {
  const row = reportRow(out);
  expect(Object.keys(row).slice(1)).toEqual(Object.keys(expected).sort());
  for (const [ability, mean] of Object.entries(expected)) {
    expect(row[ability], ability).toBe((mean * 100).toFixed(1));
  }
}

describe('a BEAM run judged by beam-rubric, reported as report_results.py does', () => {
  it('the fixture chats: every question judged, each ability the mean of per-chat means', async () => {
    const chats = readdirSync(FIXTURE).sort();
    const { report, errors } = await runBeam(FIXTURE, [], 'fixture');
    expect(errors).toBe(0);
    const expected = expectedRow(FIXTURE, chats);
    expect(Object.keys(expected)).toHaveLength(10);
    expectReport(report, expected);
    // The judge was asked per rubric item, with BEAM's prompt and no max_tokens (langchain's way).
    const judged = server.requests.filter(
      (r) => (r.body as { model?: string }).model === 'fake-judge',
    );
    expect(judged.length).toBeGreaterThan(0);
    expect(judged.every((r) => !('max_tokens' in (r.body as object)))).toBe(true);
  }, 300_000);

  it.skipIf(!existsSync(join(REAL, '1')))(
    'the real 100K chat 1 (../shared/datasets/beam/100K): the same computation',
    async () => {
      const { report, errors } = await runBeam(REAL, ['100K-1'], 'real');
      expect(errors).toBe(0);
      expectReport(report, expectedRow(REAL, ['1']));
    },
    600_000,
  );
});
