import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { MEMORY_REPLY_LIMITS } from '../../src-shared/memory-protocol';
import { citedTurns } from '../../src-main/core/memory/presets/external';
import { startRunBypassingLauncher } from '../../src-main/core/launch/testSeam';
import { RunStore } from '../../src-main/core/runs/store';
import { FAKE_HELLO, startFakeService, type Handler } from '../support/memory-services';

/**
 * Issue 23 item 4: a memory service's reply is network input. Hostile services on 127.0.0.1 run
 * real experiments (worker threads, the runs database); what they can make the workbench store
 * is bounded, and ids that are not turns of the sample never reach the database.
 */

const repo = fileURLToPath(new URL('../../', import.meta.url));
const mini = join(repo, 'tests/fixtures/locomo/mini.json');
const root = mkdtempSync(join(tmpdir(), 'workbench-security-memory-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The fixture's turn ids per sample, read from the file itself. */
const turnIds: Record<string, Set<string>> = Object.fromEntries(
  (
    JSON.parse(readFileSync(mini, 'utf8')) as Array<{
      sample_id: string;
      conversation: Record<string, unknown>;
    }>
  ).map((s) => [
    s.sample_id,
    new Set(
      Object.values(s.conversation)
        .filter(Array.isArray)
        .flat()
        .map((t) => (t as { dia_id: string }).dia_id),
    ),
  ]),
);

/** A service that remembers inserted turns per session and answers retrieve with `items`. */
function hostile(items: (turns: string[], session: string) => unknown[]): Handler {
  const turns = new Map<string, string[]>();
  return (method, params) => {
    const session = params['session'] as string;
    if (method === 'hello') return FAKE_HELLO;
    if (method === 'open') return { session: params['sample_id'] };
    if (method === 'insert') {
      const packet = params['packet'] as { turns: Array<{ dia_id: string }> };
      turns.set(session, [...(turns.get(session) ?? []), ...packet.turns.map((t) => t.dia_id)]);
      return {};
    }
    if (method === 'retrieve') return { items: items(turns.get(session) ?? [], session) };
    return {};
  };
}

async function runAgainst(handler: Handler) {
  const service = await startFakeService(handler);
  const n = root.length + Math.random().toString(36).slice(2, 8);
  const file = join(root, `runs-${n}.db`);
  const store = RunStore.open(file);
  try {
    const handle = await startRunBypassingLauncher(
      { datasetPath: mini, memory: { preset: 'external', config: { url: service.url } } },
      { store, dataDir: join(root, `data-${n}`) },
    );
    const outcome = await handle.done;
    const run = store.getRun(handle.runId);
    const answers = store.answersByTest(handle.runId);
    return { run, answers, outcome, file };
  } finally {
    store.close();
    await service.stop();
  }
}

/** Bytes of the runs database on disk, its WAL included. */
function diskBytes(file: string): number {
  let bytes = statSync(file).size;
  try {
    bytes += statSync(`${file}-wal`).size;
  } catch {
    // No WAL left: the store checkpointed on close.
  }
  return bytes;
}

describe('a memory service cannot fill the disk (issue 23 item 4)', () => {
  it('ids that are not turns of the sample are dropped, counted and noted; every valid id is kept', async () => {
    const sent = new Map<string, number>();
    const { run, answers } = await runAgainst(
      hostile((turns, session) => {
        sent.set(session, (sent.get(session) ?? 0) + 2 * Math.min(turns.length, 3));
        // The unknown ids come first: the workbench used to store an item's first id as its turn.
        return turns.slice(0, 3).map((id) => ({
          text: `memory of ${id}`,
          score: 1,
          dia_ids: ['D99:1', 'x'.repeat(MEMORY_REPLY_LIMITS.diaIdChars), id],
        }));
      }),
    );
    expect(run.answerErrors).toBe(0);
    expect(answers.length).toBeGreaterThan(0);
    for (const a of answers) {
      expect(a.retrieved.length).toBeGreaterThan(0);
      for (const ref of a.retrieved) {
        expect(turnIds[a.sampleId]?.has(ref.diaId as string), `${ref.diaId}`).toBe(true);
        expect(ref.id).toBe(ref.diaId);
      }
    }
    const notes = run.manifest.memory.notes.join('\n');
    for (const [sample, count] of sent) {
      expect(count).toBeGreaterThan(0);
      expect(notes).toContain(
        `external service cited ${count} dia_id(s) that are not turns of sample ${sample} (first: "D99:1"); they were dropped`,
      );
    }
  });

  it('docs/memory-protocol.md states the caps the code enforces', () => {
    const doc = readFileSync(join(repo, 'docs/memory-protocol.md'), 'utf8');
    const limits = doc
      .slice(doc.indexOf('## Limits'), doc.indexOf('## Provenance'))
      .replace(/\s+/g, ' ');
    const { diaIdChars, diaIdsPerItem, textChars, speakerChars } = MEMORY_REPLY_LIMITS;
    expect(limits).toContain(`a \`dia_ids\` entry at most ${diaIdChars} characters`);
    expect(limits).toContain(`at most ${diaIdsPerItem} entries per item`);
    expect(limits).toContain(`at most ${textChars.toLocaleString('en-US')} characters`);
    expect(limits).toContain(`a \`speaker\` at most ${speakerChars}`);
  });

  it('every valid id of an item is kept, in order and once; only the unknown ones go', () => {
    const known = new Set(['D1:1', 'D1:2', 'D2:1']);
    const { items, unknown, firstUnknown } = citedTurns(
      [
        { text: 'a', score: 1, dia_ids: ['D9:9', 'D1:2', 'D1:1', 'D1:2', 'junk'] },
        { text: 'b', score: 1, dia_ids: ['D2:1'] },
      ],
      known,
    );
    expect(items.map((i) => i.dia_ids)).toEqual([['D1:2', 'D1:1'], ['D2:1']]);
    expect(unknown).toBe(2);
    expect(firstUnknown).toBe('D9:9');
  });

  it('a reply with ten huge ids per answer is refused with a coded error naming the field, and stores nothing of them', async () => {
    const huge = 200_000;
    const { run, answers, file } = await runAgainst(
      hostile((turns) =>
        Array.from({ length: 10 }, (_, i) => ({
          text: 'x',
          score: 1,
          dia_ids: [`${turns[0] ?? 'D1:1'}${String(i).repeat(huge)}`],
        })),
      ),
    );
    expect(answers.length).toBeGreaterThan(0);
    expect(run.answerErrors).toBe(answers.length);
    for (const a of answers) {
      expect(a.error).toMatch(
        /^retrieve: UPSTREAM: memory service .+ retrieve replied with an invalid result: items\[0\]\.dia_ids\[0\]: Too big/,
      );
      expect(a.error).toContain(String(MEMORY_REPLY_LIMITS.diaIdChars));
      expect(JSON.stringify(a).length).toBeLessThan(10_000);
    }
    // Each reply was 2 MB; had the ids been kept (id and dia id of ten hits), every answer would
    // hold 4 MB and this small run would pass 40 MB.
    expect(diskBytes(file)).toBeLessThan(2 * 1024 * 1024);
  });

  it('an item citing more ids than the cap is refused, naming the field and the cap', async () => {
    const { run, answers } = await runAgainst(
      hostile((turns) => [
        {
          text: 'everything',
          score: 1,
          dia_ids: Array.from(
            { length: MEMORY_REPLY_LIMITS.diaIdsPerItem + 1 },
            (_, i) => turns[i % turns.length] ?? 'D1:1',
          ),
        },
      ]),
    );
    expect(answers.length).toBeGreaterThan(0);
    expect(run.answerErrors).toBe(answers.length);
    for (const a of answers) {
      expect(a.error).toMatch(/items\[0\]\.dia_ids/);
      expect(a.error).toContain(String(MEMORY_REPLY_LIMITS.diaIdsPerItem));
    }
  });
});
