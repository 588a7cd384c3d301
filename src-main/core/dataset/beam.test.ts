import { beamFixtureTree } from '../../../tests/support/beam-fixture';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BEAM_ABILITIES, beamCategory } from '../../../src-shared/benchmarks/beam';
import type { Sample } from '../../../src-shared/dataset/types';
import { WorkbenchError } from '../../../src-shared/errors';
import { parseBeamTimeAnchor } from './beam';
import { datasetFileSha256, loadDatasetFile, loadDatasetValue } from './load';
import { packetsOf } from './packets';
import { questionVisibility } from './visibility';

const FIXTURES = beamFixtureTree();
const scratch = mkdtempSync(join(tmpdir(), 'workbench-beam-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the fixture tree to break. */
function copyTree(name: string): string {
  const root = join(scratch, name);
  cpSync(FIXTURES, root, { recursive: true });
  return root;
}

function editJson(file: string, edit: (value: never) => void): void {
  const value = JSON.parse(readFileSync(file, 'utf8')) as never;
  edit(value);
  writeFileSync(file, JSON.stringify(value));
}

function qaOf(sample: Sample, ability: string): Sample['qa'][number] {
  const qa = sample.qa.find((q) => q.ability === ability);
  if (!qa) throw new Error(`no ${ability} question`);
  return qa;
}

describe('BEAM folders', () => {
  it('reads the whole tree: one sample per chat, sizes in order, sizes as groups', async () => {
    const result = await loadDatasetFile(FIXTURES);
    expect(result.info.format).toBe('beam');
    expect(result.problems).toEqual([]);
    expect(result.samples.map((s) => [s.sampleId, s.group])).toEqual([
      ['100K-1', '100K'],
      ['100K-2', '100K'],
      ['10M-1', '10M'],
    ]);
    expect(result.info.sha256).toBe(await datasetFileSha256(FIXTURES));
  });

  it('makes each message a turn with its id, role, batch and the batch time anchor as date', async () => {
    const [chat] = (await loadDatasetFile(join(FIXTURES, '100K', '1'))).samples;
    expect(chat?.sampleId).toBe('100K-1');
    expect(chat?.sessions.map((s) => [s.index, s.dateTimeText, s.dateTime])).toEqual([
      [1, 'March-15-2024', '2024-03-15T00:00:00'],
      [2, 'April-05-2024', '2024-04-05T00:00:00'],
    ]);
    const [first, second] = chat!.sessions[1]!.turns;
    expect(first).toMatchObject({ diaId: 'D2:6', speaker: 'user', sessionIndex: 2, turnIndex: 0 });
    expect(second).toMatchObject({ diaId: 'D2:7', speaker: 'assistant', turnIndex: 1 });
    expect(first?.text).toContain('garden batch 2 step 1');
  });

  it('numbers the abilities alphabetically and keeps each question rubric and ability', async () => {
    const [chat] = (await loadDatasetFile(join(FIXTURES, '100K'))).samples;
    expect(chat!.qa.map((q) => q.ability)).toEqual([...BEAM_ABILITIES]);
    expect(chat!.qa.map((q) => q.category)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const ordering = qaOf(chat!, 'event_ordering');
    expect(ordering).toMatchObject({
      questionId: 'event_ordering/0',
      answer: 'cache, budget, deadline',
      rubric: ['cache', 'budget', 'deadline'],
      // A nested list in source_chat_ids is flattened.
      evidence: ['D1:0', 'D1:2', 'D1:4'],
    });
    // Dict-shaped source_chat_ids; the gold of each ability from its own key.
    expect(qaOf(chat!, 'temporal_reasoning').evidence).toEqual(['D1:0', 'D2:6']);
    expect(qaOf(chat!, 'abstention').answer).toMatch(/^Based on the provided chat/);
    expect(qaOf(chat!, 'instruction_following').answer).toBe('Response uses a table.');
    expect(qaOf(chat!, 'summarization').answer).toMatch(/^Cache, budget/);
  });

  it('reads conversation_references where a question has no source_chat_ids', async () => {
    const root = copyTree('refs');
    editJson(
      join(root, '100K', '1', 'probing_questions', 'probing_questions.json'),
      (q: Record<string, Array<Record<string, unknown>>>) => {
        delete q['multi_session_reasoning']![0]!['source_chat_ids'];
      },
    );
    const [chat] = (await loadDatasetFile(join(root, '100K', '1'))).samples;
    // `chat_id: 0`, `chat_id: 6`; text-only references (knowledge_update) cite nothing.
    expect(qaOf(chat!, 'multi_session_reasoning').evidence).toEqual(['D1:0', 'D2:6']);
    expect(qaOf(chat!, 'knowledge_update').evidence).toEqual([]);
  });

  it('reads a 10M chat as one conversation of its plan-<k> sub-chats, ids numbered on', async () => {
    const [chat] = (await loadDatasetFile(join(FIXTURES, '10M', '1'))).samples;
    expect(chat?.sampleId).toBe('10M-1');
    expect(chat?.sessions.map((s) => s.dateTime)).toEqual([
      '2025-01-02T00:00:00',
      '2025-01-23T00:00:00',
      '2025-02-13T00:00:00',
      '2025-03-06T00:00:00',
    ]);
    // plan-1's message 0 follows plan-0's last (11), as combine_10m_chats numbers them.
    expect(chat?.sessions[2]?.turns[0]?.diaId).toBe('D3:12');
    expect(chat?.sessions[3]?.turns.at(-1)?.diaId).toBe('D4:23');
    expect(qaOf(chat!, 'information_extraction').evidence).toEqual(['D4:20']);
  });

  it('makes a question visible after the last message it cites, one citing nothing at the end', async () => {
    const [chat] = (await loadDatasetFile(join(FIXTURES, '100K', '1'))).samples;
    const packets = packetsOf(chat!);
    const visible = questionVisibility(chat!, packets, { includeNoEvidence: true });
    const packetOf = (diaId: string): number =>
      packets.findIndex((p) => p.dialogs.some((t) => t.diaId === diaId));
    expect(visible[beamCategory('summarization') - 1]).toBe(packetOf('D2:10'));
    expect(visible[beamCategory('information_extraction') - 1]).toBe(packetOf('D2:8'));
    expect(visible[beamCategory('abstention') - 1]).toBe(packets.length - 1);
    expect(visible[beamCategory('preference_following') - 1]).toBe(packets.length - 1);
  });

  it('parses the anchors the files use and refuses impossible dates', () => {
    expect(parseBeamTimeAnchor('March-15-2024')).toBe('2024-03-15T00:00:00');
    expect(parseBeamTimeAnchor('March 15, 2024')).toBe('2024-03-15T00:00:00');
    expect(parseBeamTimeAnchor('2024-08-01')).toBe('2024-08-01T00:00:00');
    expect(parseBeamTimeAnchor('February-30-2024')).toBeNull();
    expect(parseBeamTimeAnchor('Someday-1-2024')).toBeNull();
  });
});

describe('broken BEAM files', () => {
  async function loadBroken(name: string, edit: (root: string) => void) {
    const root = copyTree(name);
    edit(root);
    return { root, result: await loadDatasetFile(join(root, '100K')) };
  }

  it('names the chat, the batch and the path of a missing batch, and skips only that chat', async () => {
    const { result } = await loadBroken('missing-batch', (root) =>
      editJson(join(root, '100K', '2', 'chat.json'), (batches: Array<{ batch_number: number }>) => {
        batches[1]!.batch_number = 3;
      }),
    );
    expect(result.samples.map((s) => s.sampleId)).toEqual(['100K-1']);
    const [problem] = result.problems;
    expect(problem).toMatchObject({
      severity: 'error',
      sampleId: '100K-2',
      path: [1, 'batch_number'],
    });
    expect(problem?.message).toMatch(
      /100K\/2\/chat\.json: chat "100K-2", batch 3: \[1\]\.batch_number: batch 2 is missing/,
    );
  });

  it('refuses a question citing a message the chat does not have', async () => {
    const { result } = await loadBroken('unknown-id', (root) =>
      editJson(
        join(root, '100K', '1', 'probing_questions', 'probing_questions.json'),
        (q: Record<string, Array<Record<string, unknown>>>) => {
          q['knowledge_update']![0]!['source_chat_ids'] = {
            original_info: [3],
            updated_info: [999],
          };
        },
      ),
    );
    expect(result.samples.map((s) => s.sampleId)).toEqual(['100K-2']);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({
      sampleId: '100K-1',
      path: ['knowledge_update', 0, 'source_chat_ids', 'updated_info', 0],
    });
    expect(result.problems[0]?.message).toMatch(
      /probing_questions\.json: chat "100K-1", knowledge_update question 0: knowledge_update\[0\]\.source_chat_ids\.updated_info\[0\]: cites message 999, which the chat does not have/,
    );
  });

  it('refuses a rubric that is not a list, and throws with strict', async () => {
    const { root, result } = await loadBroken('rubric', (r) =>
      editJson(
        join(r, '100K', '2', 'probing_questions', 'probing_questions.json'),
        (q: Record<string, Array<Record<string, unknown>>>) => {
          q['summarization']![0]!['rubric'] = 'LLM response should contain: everything';
        },
      ),
    );
    expect(result.samples.map((s) => s.sampleId)).toEqual(['100K-1']);
    expect(result.problems[0]).toMatchObject({
      sampleId: '100K-2',
      path: ['summarization', 0, 'rubric'],
    });
    expect(result.problems[0]?.message).toMatch(/summarization\[0\]\.rubric: .*array/);
    await expect(loadDatasetFile(join(root, '100K'), { strict: true })).rejects.toThrow(
      /chat "100K-2", summarization question 0/,
    );
  });

  it('says which file is missing or not JSON, and loads the other chats', async () => {
    const root = copyTree('files');
    rmSync(join(root, '100K', '1', 'chat.json'));
    writeFileSync(join(root, '100K', '2', 'chat.json'), '[{"batch_number": 1,');
    const result = await loadDatasetFile(root);
    expect(result.samples.map((s) => s.sampleId)).toEqual(['10M-1']);
    // One problem per broken chat: its questions' citations are not reported on top.
    expect(result.problems.map((p) => [p.sampleId, p.message.slice(root.length)])).toEqual([
      [
        '100K-1',
        '/100K/1/chat.json: chat "100K-1": no such file (nor plan-<k>/chat.json sub-chats)',
      ],
      [
        '100K-2',
        '/100K/2/chat.json: chat "100K-2": not valid JSON at line 1, column 21: expected a property name in double quotes, found end of input',
      ],
    ]);
    expect(result.info.sha256).toBe(await datasetFileSha256(root));
  });

  it('refuses a folder in no dataset layout', async () => {
    const empty = join(scratch, 'empty');
    cpSync(join(FIXTURES, '100K', '1', 'probing_questions'), join(empty, 'x'), { recursive: true });
    const error = await loadDatasetFile(empty).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkbenchError);
    expect((error as WorkbenchError).message).toMatch(/no layout a dataset format reads .*beam/);
  });
});

describe('BEAM in memory', () => {
  it('loads { beam_chats } through the registry like a folder', async () => {
    const chat = JSON.parse(
      readFileSync(join(FIXTURES, '100K', '1', 'chat.json'), 'utf8'),
    ) as unknown;
    const questions = JSON.parse(
      readFileSync(
        join(FIXTURES, '100K', '1', 'probing_questions', 'probing_questions.json'),
        'utf8',
      ),
    ) as unknown;
    const fromValue = loadDatasetValue(
      { beam_chats: [{ id: '100K-1', size: '100K', chat, probing_questions: questions }] },
      'memory',
    );
    const fromFolder = await loadDatasetFile(join(FIXTURES, '100K', '1'));
    expect(fromValue.info.format).toBe('beam');
    expect(fromValue.samples).toEqual(fromFolder.samples);
  });
});

describe('a 10M chat, streamed', () => {
  /** A generated 10M chat: plan-0 of many batches, far larger than the whole-file limit given. */
  function generated10M(): { root: string; planBytes: number } {
    const root = join(scratch, 'generated', '10M', '7');
    cpSync(join(FIXTURES, '10M', '1'), root, { recursive: true });
    const batches = Array.from({ length: 300 }, (_, b) => ({
      batch_number: b + 1,
      time_anchor: null,
      turns: [
        [
          {
            role: 'user',
            id: 2 * b,
            time_anchor: 'May-01-2025',
            content: `question ${b} `.repeat(20),
          },
          { role: 'assistant', id: 2 * b + 1, content: `answer ${b} `.repeat(20) },
        ],
      ],
    }));
    const text = JSON.stringify(batches);
    writeFileSync(join(root, 'plan-0', 'chat.json'), text);
    return { root, planBytes: text.length };
  }

  it('reads sub-chats a batch at a time, so none is held whole (the whole-file limit does not apply)', async () => {
    const { root, planBytes } = generated10M();
    const questionsBytes = readFileSync(
      join(root, 'probing_questions', 'probing_questions.json'),
    ).length;
    const maxBytes = questionsBytes + 1;
    expect(planBytes).toBeGreaterThan(10 * maxBytes);
    const { samples, problems } = await loadDatasetFile(root, { maxBytes });
    expect(problems).toEqual([]);
    const [chat] = samples;
    expect(chat?.sessions).toHaveLength(302);
    // plan-1 numbers on after plan-0's last id (599).
    expect(chat?.sessions[300]?.turns[0]?.diaId).toBe('D301:600');
    // A single-file chat of the same size is read whole, so the limit refuses it.
    const single = join(scratch, 'generated-single', '100K', '1');
    cpSync(join(FIXTURES, '100K', '1'), single, { recursive: true });
    cpSync(join(root, 'plan-0', 'chat.json'), join(single, 'chat.json'));
    const refused = await loadDatasetFile(single, { maxBytes }).catch((e: unknown) => e);
    expect(String(refused)).toMatch(/chat\.json: chat "100K-1": .*larger than the limit/);
  });
});
