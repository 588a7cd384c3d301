import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ANSWER_PROTOCOLS,
  JUDGE_PROTOCOLS,
  type ExperimentConfigInput,
} from '../../src-shared/experiment';
import { LLM_CALL_ROLES, type LlmCallRole } from '../../src-shared/runs';
import { workerExecutor } from '../../src-main/core/pipeline/executors';
import { startRunBypassingLauncher } from '../../src-main/core/launch/testSeam';
import { RunStore } from '../../src-main/core/runs/store';
import { answerProtocol } from '../../src-main/core/answer/protocols';
import { judgeProtocolOf } from '../../src-main/core/answer/judge-protocols';
import type { ReferenceRequest } from '../../src-main/core/answer/referenceRequest';
import { beamFixtureTree } from '../support/beam-fixture';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * The manifest's request parameters are the wire's: runs against the fake OpenAI-compatible
 * server, which logs every request body, with every answer protocol and every judge protocol of
 * the registries, a memory LLM and an OpenAI embedder. For each role, the parameter sets the
 * manifest records (everything in a body but its messages or input) are exactly the sets the
 * server received: max_tokens per protocol step, temperature, seed or its absence,
 * response_format, model. A protocol that mirrors a reference sends, per step, exactly the
 * parameters its registry entry declares its reference sends (`reference`), and no seed.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const lme = join(repo, 'tests/fixtures/longmemeval/longmemeval_s.json');
const beam = join(beamFixtureTree(), '100K');
const root = mkdtempSync(join(tmpdir(), 'workbench-wire-params-'));

/** Each role asks its own model, so the log says which role sent a request. */
const MODEL_OF: Partial<Record<LlmCallRole, string>> = {
  answer: 'wire-answer',
  judge: 'wire-judge',
  memory: 'wire-memory',
  embedder: 'wire-embed',
};

let server: FakeOpenAIServer;
beforeAll(async () => {
  // Readable by every judge: Mem0's label, LongMemEval's "yes", BEAM's rubric score.
  server = await startFakeOpenAIServer({ chat: () => '{"label": "CORRECT", "score": 1} yes' });
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

/** The server's log per role: each distinct body without its content, as canonical JSON. */
function loggedParams(): Map<LlmCallRole, Set<string>> {
  const out = new Map<LlmCallRole, Set<string>>();
  for (const request of server.requests) {
    const { messages: _m, input: _i, ...params } = request.body as Record<string, unknown>;
    const role = LLM_CALL_ROLES.find((r) => MODEL_OF[r] === params['model']);
    if (!role) throw new Error(`a request from no role: ${request.rawBody.slice(0, 200)}`);
    const sorted = Object.fromEntries(Object.entries(params).sort(([a], [b]) => (a < b ? -1 : 1)));
    out.set(role, (out.get(role) ?? new Set()).add(JSON.stringify(sorted)));
  }
  return out;
}

function recordedParams(store: RunStore, runId: string): Map<LlmCallRole, Set<string>> {
  const out = new Map<LlmCallRole, Set<string>>();
  for (const shape of store.getRun(runId).manifest.requestParams ?? []) {
    const sorted = Object.fromEntries(
      Object.entries(shape.params).sort(([a], [b]) => (a < b ? -1 : 1)),
    );
    out.set(shape.role, (out.get(shape.role) ?? new Set()).add(JSON.stringify(sorted)));
  }
  return out;
}

const asSorted = (m: Map<LlmCallRole, Set<string>>): Record<string, string[]> =>
  Object.fromEntries([...m].map(([role, set]) => [role, [...set].sort()]));

/** One sample keeps each run short; which roles it must have sent requests for. */
const SAMPLE = '6a1eabeb';

/** A role's logged shapes, each as `step params` with the model left out. */
function stepsOf(role: LlmCallRole): Set<string> {
  const out = new Set<string>();
  for (const { body } of server.requests) {
    const { messages: _m, input: _i, model, ...params } = body as Record<string, unknown>;
    if (model !== MODEL_OF[role]) continue;
    out.add(canonical(params));
  }
  return out;
}

const canonical = (params: object): string =>
  JSON.stringify(Object.fromEntries(Object.entries(params).sort(([a], [b]) => (a < b ? -1 : 1))));

/** What a role must have sent for a reference: exactly its parameters, per step (no seed). */
function expectReference(role: LlmCallRole, references: readonly ReferenceRequest[], name: string) {
  expect(
    [...stepsOf(role)].sort(),
    `${name}: ${role} as ${references.map((r) => r.citation).join('; ')}`,
  ).toEqual([...new Set(references.map((r) => canonical(r.params)))].sort());
}

async function run(
  config: ExperimentConfigInput,
  name: string,
  roles: LlmCallRole[],
  references: Partial<Record<LlmCallRole, readonly ReferenceRequest[]>> = {},
): Promise<void> {
  const store = RunStore.open(join(root, `${name}.db`));
  server.requests.length = 0;
  try {
    const handle = await startRunBypassingLauncher(config, {
      store,
      dataDir: join(root, name),
      executor: workerExecutor(),
    });
    const outcome = await handle.done;
    expect(outcome.error, name).toBeNull();
    const logged = loggedParams();
    for (const role of roles) expect(logged.has(role), `${name}: ${role} heard`).toBe(true);
    expect(asSorted(recordedParams(store, handle.runId))).toEqual(asSorted(logged));
    for (const [role, refs] of Object.entries(references) as Array<
      [LlmCallRole, ReferenceRequest[]]
    >)
      expectReference(role, refs, name);
  } finally {
    store.close();
  }
}

const llm = (model: string) => ({ baseUrl: server.url, model, baseDelayMs: 1 });

describe("the manifest's request parameters against the fake server's log", () => {
  // Every answer protocol once; the judge protocols in turn beside them, so each is run too.
  const cases = ANSWER_PROTOCOLS.map((answerProtocol, i) => ({
    answerProtocol,
    judgeProtocol: JUDGE_PROTOCOLS[i % JUDGE_PROTOCOLS.length],
  }));
  it('covers every judge protocol', () => {
    expect(new Set(cases.map((c) => c.judgeProtocol))).toEqual(new Set(JUDGE_PROTOCOLS));
  });

  /** The references a protocol pair declares, per role: its answer's and notes', its judge's. */
  function referencesOf(
    answer: (typeof ANSWER_PROTOCOLS)[number],
    judge: (typeof JUDGE_PROTOCOLS)[number],
  ): Partial<Record<LlmCallRole, ReferenceRequest[]>> {
    const protocol = answerProtocol(answer);
    const answerRefs = [protocol.reference, protocol.notes?.reference].filter(
      (r): r is ReferenceRequest => r !== undefined,
    );
    const judgeRef = judgeProtocolOf(judge).reference;
    return {
      ...(protocol.reference ? { answer: answerRefs } : {}),
      ...(judgeRef ? { judge: [judgeRef] } : {}),
    };
  }

  it('checks every protocol that mirrors a reference against it', () => {
    // The Mem0, LoCoMo and LongMemEval protocols say what their references send.
    for (const name of ANSWER_PROTOCOLS.filter((n) => /^(mem0|locomo|longmemeval)/.test(n)))
      expect(answerProtocol(name).reference?.citation, name).toMatch(
        /^[\w-]+\/[\w-]+@[0-9a-f]{7,}:/,
      );
    for (const name of ['mem0', 'longmemeval'] as const)
      expect(judgeProtocolOf(name).reference?.citation, name).toMatch(
        /^[\w-]+\/[\w-]+@[0-9a-f]{7,}:/,
      );
  });

  it.each(cases)(
    'answer protocol $answerProtocol, judge protocol $judgeProtocol, a memory LLM',
    async ({ answerProtocol: answer, judgeProtocol }) => {
      await run(
        {
          datasetPath: lme,
          samples: [SAMPLE],
          // Every turn leaving the first tier is summarised: the memory LLM is asked.
          memory: {
            preset: 'tiers',
            llm: llm(MODEL_OF.memory as string),
            config: { workingCapacity: 2, summaryBatch: 1 },
          },
          answerer: { kind: 'llm', ...llm(MODEL_OF.answer as string), answerProtocol: answer },
          judge: { ...llm(MODEL_OF.judge as string), protocol: judgeProtocol },
        },
        `${answer}-${judgeProtocol}`,
        // A rubric judge (BEAM's) asks nothing of a dataset without rubrics: run on BEAM below.
        [
          'answer',
          'memory',
          ...(judgeProtocolOf(judgeProtocol).rubric === undefined ? (['judge'] as const) : []),
        ],
        referencesOf(answer, judgeProtocol),
      );
    },
    60_000,
  );

  // On LongMemEval data a rubric judge has nothing to judge; on BEAM's it asks per rubric item.
  it.each(JUDGE_PROTOCOLS.filter((p) => judgeProtocolOf(p).rubric !== undefined))(
    'judge protocol %s on a BEAM chat',
    async (judgeProtocol) => {
      await run(
        {
          datasetPath: beam,
          samples: ['100K-1'],
          answerer: { kind: 'llm', ...llm(MODEL_OF.answer as string), answerProtocol: 'beam' },
          judge: { ...llm(MODEL_OF.judge as string), protocol: judgeProtocol },
        },
        `beam-${judgeProtocol}`,
        ['answer', 'judge'],
      );
    },
    60_000,
  );

  it('an OpenAI embedder', async () => {
    await run(
      {
        datasetPath: lme,
        samples: [SAMPLE],
        memory: {
          preset: 'vector',
          config: { embedder: { kind: 'openai', baseUrl: server.url, model: MODEL_OF.embedder } },
        },
        answerer: { kind: 'llm', ...llm(MODEL_OF.answer as string) },
      },
      'embedder',
      ['answer', 'embedder'],
    );
  }, 60_000);
});
