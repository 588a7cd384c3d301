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
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../support/fake-openai-server';

/**
 * The manifest's request parameters are the wire's: runs against the fake OpenAI-compatible
 * server, which logs every request body, with every answer protocol and every judge protocol of
 * the registries, a memory LLM and an OpenAI embedder. For each role, the parameter sets the
 * manifest records (everything in a body but its messages or input) are exactly the sets the
 * server received: max_tokens per protocol step, temperature, seed or its absence,
 * response_format, model.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const lme = join(repo, 'tests/fixtures/longmemeval/longmemeval_s.json');
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
  server = await startFakeOpenAIServer({ chat: () => '{"label": "CORRECT"} yes' });
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

async function run(
  config: ExperimentConfigInput,
  name: string,
  roles: LlmCallRole[],
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

  it.each(cases)(
    'answer protocol $answerProtocol, judge protocol $judgeProtocol, a memory LLM',
    async ({ answerProtocol, judgeProtocol }) => {
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
          answerer: { kind: 'llm', ...llm(MODEL_OF.answer as string), answerProtocol },
          judge: { ...llm(MODEL_OF.judge as string), protocol: judgeProtocol },
        },
        `${answerProtocol}-${judgeProtocol}`,
        // A rubric judge (BEAM's) asks nothing of a dataset without rubrics: not required here.
        ['answer', 'memory'],
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
