import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchmarkProfile } from '../../../src-shared/benchmarks';
import { JudgeConfigSchema, judgeConfigFor } from '../../../src-shared/experiment';
import {
  AUDIT_ANSWER_CLASSES,
  AUDIT_ANSWER_CLASS_IDS,
  acceptanceTable,
  judgeIdentityOf,
  type AuditAnswerClass,
  type AuditItem,
} from '../../../src-shared/judgeAudit';
import { writeAuditLocomo } from '../../../tests/support/audit-locomo';
import {
  startFakeOpenAIServer,
  type FakeChatRequest,
  type FakeOpenAIServer,
} from '../../../tests/support/fake-openai-server';
import { loadDatasetFile } from '../dataset/load';
import {
  auditJudges,
  auditVerdicts,
  ensureAuditSet,
  judgeAuditSet,
  measuredJudgeError,
  readAuditSet,
  type AuditSet,
} from './judgeAudit';
import { RunStore } from './store';

const dir = mkdtempSync(join(tmpdir(), 'workbench-judge-audit-'));
const datasetFile = join(dir, 'audit-locomo.json');
const profile = benchmarkProfile('locomo');

/** The fraction of each class the fake judge accepts. */
const RATES: Record<AuditAnswerClass, number> = {
  gold: 0.9,
  'other-gold': 0.1,
  vague: 0.3,
  hedge: 0.5,
  verbose: 0.7,
  'wrong-date': 0.2,
};

/** A uniform number in [0, 1) from an answer's text: the fake judge's coin, fixed per answer. */
function coin(question: string, answer: string): number {
  return (
    createHash('sha256').update(`${question}\u0000${answer}`).digest().readUInt32BE(0) / 2 ** 32
  );
}

const acceptedByRule = (item: AuditItem): boolean =>
  coin(item.question, item.answer) < RATES[item.answerClass];

/**
 * A judge on 127.0.0.1 that reads the Mem0 prompt's question and generated answer, looks up the
 * answer's class in the stored set and accepts it when its coin falls under the class's rate.
 */
async function fakeJudge(set: AuditSet): Promise<FakeOpenAIServer> {
  const classOf = new Map(set.items.map((i) => [`${i.question}\u0000${i.answer}`, i.answerClass]));
  const lastLine = (content: string, prefix: string): string =>
    [...content.matchAll(new RegExp(`^${prefix}: (.*)$`, 'gm'))].at(-1)?.[1] ?? '';
  return startFakeOpenAIServer({
    chat: (chat: FakeChatRequest) => {
      const content = chat.messages.at(-1)?.content ?? '';
      const question = lastLine(content, 'Question');
      const answer = lastLine(content, 'Generated answer');
      const answerClass = classOf.get(`${question}\u0000${answer}`);
      if (answerClass === undefined) return JSON.stringify({ label: 'WRONG' });
      const accept = coin(question, answer) < RATES[answerClass];
      return JSON.stringify({ label: accept ? 'CORRECT' : 'WRONG' });
    },
  });
}

function judgeConfig(server: FakeOpenAIServer, model: string) {
  return judgeConfigFor(JudgeConfigSchema.parse({ baseUrl: server.url, model }), profile).config;
}

let store: RunStore;
let set: AuditSet;
let server: FakeOpenAIServer;
let other: FakeOpenAIServer;

beforeAll(async () => {
  writeAuditLocomo(datasetFile, 3);
  const dataset = await loadDatasetFile(datasetFile);
  store = RunStore.open(join(dir, 'runs.db'));
  set = ensureAuditSet(
    store,
    {
      samples: dataset.samples,
      source: datasetFile,
      sha256: dataset.info.sha256 as string,
      profile,
    },
    { seed: 7, perCategory: 1000 },
  ).set;
  server = await fakeJudge(set);
  other = await fakeJudge(set);
});

afterAll(async () => {
  store.close();
  await server.close();
  await other.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('judge audit set', () => {
  it('builds every class from the dataset, each with its known truth, and stores it once', async () => {
    const classes = new Set(set.items.map((i) => i.answerClass));
    expect([...classes].sort()).toEqual([...AUDIT_ANSWER_CLASS_IDS].sort());
    for (const item of set.items) {
      expect(item.expected).toBe(AUDIT_ANSWER_CLASSES[item.answerClass].expected);
      if (item.answerClass === 'gold') expect(item.answer).toBe(item.gold);
      else expect(item.answer).not.toBe(item.gold);
    }
    // Category 5 has no gold the judge scores: never in the set.
    expect(set.items.some((i) => i.category === 5)).toBe(false);
    expect(readAuditSet(store, set.id)).toEqual(set);
    const dataset = await loadDatasetFile(datasetFile);
    const again = ensureAuditSet(
      store,
      { samples: dataset.samples, source: 'elsewhere', sha256: set.datasetSha256, profile },
      { seed: 7, perCategory: 1000 },
    );
    expect(again.created).toBe(false);
    expect(again.set).toEqual(set);
  });
});

describe('judging an audit set with a fake judge that accepts a known fraction per class', () => {
  it('recovers each class’s acceptance: the exact count the judge accepted, near its rate', async () => {
    const pass = await judgeAuditSet(store, set, judgeConfig(server, 'judge-a'), profile);
    expect(pass.errors).toBe(0);
    expect(pass.judged).toBe(set.items.length);
    expect(pass.calls).toBe(set.items.length);
    const identity = judgeIdentityOf({ protocol: 'mem0', model: 'judge-a', baseUrl: server.url });
    expect(pass.judge).toEqual(identity);
    const table = acceptanceTable(set.items, auditVerdicts(store, set.id, identity));
    for (const answerClass of AUDIT_ANSWER_CLASS_IDS) {
      const items = set.items.filter((i) => i.answerClass === answerClass);
      const row = table.byClass.find((r) => r.answerClass === answerClass);
      expect(row?.n).toBe(items.length);
      expect(row?.successes).toBe(items.filter(acceptedByRule).length);
      // Enough answers per class for the rate to land near the judge's (deterministic coins).
      expect(items.length).toBeGreaterThanOrEqual(20);
      expect(Math.abs((row?.estimate ?? -1) - RATES[answerClass])).toBeLessThan(0.15);
    }
    const wrong = set.items.filter((i) => i.expected === 'wrong');
    const error = measuredJudgeError(store, identity);
    expect(error?.setId).toBe(set.id);
    expect(error?.falseAcceptance.n).toBe(wrong.length);
    expect(error?.falseAcceptance.successes).toBe(wrong.filter(acceptedByRule).length);
    expect(error?.trueAcceptance.successes).toBe(
      set.items.filter((i) => i.answerClass === 'gold').filter(acceptedByRule).length,
    );
  });

  it('asks again for nothing: a second pass of the same judge is answered by the judge cache', async () => {
    const before = server.requests.length;
    const pass = await judgeAuditSet(store, set, judgeConfig(server, 'judge-a'), profile);
    expect(server.requests.length).toBe(before);
    expect(pass.cacheHits).toBe(set.items.length);
  });

  it('keys verdicts by protocol, model and endpoint origin: another server is another judge', async () => {
    // Same protocol and model name at another origin; this server rejects everything.
    const rejecting = await startFakeOpenAIServer({
      chat: () => JSON.stringify({ label: 'WRONG' }),
    });
    try {
      await judgeAuditSet(store, set, judgeConfig(rejecting, 'judge-a'), profile);
      // Asked, not answered from the first server's cached verdicts.
      expect(rejecting.requests.length).toBe(set.items.length);
      const origin = new URL(rejecting.url).origin;
      const judges = auditJudges(store, set.id);
      expect(judges.map((j) => [j.model, j.endpoint])).toEqual([
        ['judge-a', new URL(server.url).origin],
        ['judge-a', origin],
      ]);
      const rejected = measuredJudgeError(store, judges[1]!);
      expect(rejected?.falseAcceptance.successes).toBe(0);
      expect(rejected?.trueAcceptance.successes).toBe(0);
      // The first server's verdicts are untouched.
      const first = measuredJudgeError(store, judges[0]!);
      expect(first?.trueAcceptance.successes).toBeGreaterThan(0);
    } finally {
      await rejecting.close();
    }
  });

  it('keeps another model’s verdicts apart, and has no measure for a judge never audited', async () => {
    await judgeAuditSet(store, set, judgeConfig(other, 'judge-b'), profile);
    expect(auditJudges(store, set.id).map((j) => j.model)).toEqual([
      'judge-a',
      'judge-a',
      'judge-b',
    ]);
    expect(
      measuredJudgeError(store, { protocol: 'mem0', model: 'never', endpoint: 'http://x' }),
    ).toBeNull();
  });

  it('stops at a dead endpoint; answers left without a verdict are missing, never accepted or rejected', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((r) => probe.close(() => r()));
    const config = judgeConfigFor(
      JudgeConfigSchema.parse({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        model: 'gone',
        maxRetries: 0,
      }),
      profile,
    ).config;
    const pass = await judgeAuditSet(store, set, config, profile);
    expect(pass.stopped).not.toBeNull();
    expect(pass.judged + pass.notJudged).toBe(set.items.length);
    expect(pass.errors).toBe(pass.judged);
    const identity = judgeIdentityOf({ protocol: 'mem0', model: 'gone', baseUrl: config.baseUrl });
    const table = acceptanceTable(set.items, auditVerdicts(store, set.id, identity));
    expect(table.missing).toBe(pass.errors);
    expect(table.falseAcceptance.n + table.trueAcceptance.n).toBe(0);
  });
});
