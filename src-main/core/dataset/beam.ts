import { z } from 'zod';
import { BEAM_ABILITIES, beamCategory, isBeamAbility } from '../../../src-shared/benchmarks/beam';
import type { DatasetProblem, QA, Sample, Session, Turn } from '../../../src-shared/dataset/types';
import { WorkbenchError, formatPath } from '../../../src-shared/errors';
import { errorMap, isRecord, kindOf } from './problems';
import type { LoadContext, LoaderOutput } from './registry';

/**
 * BEAM (mohammadtavakoli78/BEAM at b2a3ee8): one chat = one sample. A chat's `chat.json` is a list
 * of batches `{batch_number, turns: [[message, ...], ...], time_anchor}`; every message
 * `{role, id, content}` becomes a turn of the batch's session, `D<batch>:<id>` (the id is BEAM's
 * own, numbered across the whole chat, so a question's `source_chat_ids` name turns directly).
 * The batch's time anchor (the file puts it on the batch's first message and leaves the batch's own
 * `time_anchor` null) is the session's date. `probing_questions.json` holds the ten abilities'
 * questions; a question's evidence is the messages it cites, so it becomes visible after the last.
 * Folders (a chat, a size, the tree, a 10M chat's `plan-<k>` sub-chats) are found by beamFolder.ts.
 */

const MessageSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  // Strings of digits in the released files ("0"), numbers after the reference's 10M combining.
  id: z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/, 'expected digits')]),
  content: z.string(),
  time_anchor: z.string().nullable().optional(),
});

const BatchSchema = z.looseObject({
  batch_number: z.number().int().positive(),
  turns: z.array(z.array(z.unknown())),
  time_anchor: z.string().nullable().optional(),
});

const CitedIdsSchema = z.union([
  z.array(z.union([z.number().int(), z.array(z.number().int())])),
  z.record(z.string(), z.union([z.number().int(), z.array(z.number().int())])),
]);

const QuestionSchema = z.looseObject({
  question: z.string().min(1),
  rubric: z.array(z.string()),
  source_chat_ids: CitedIdsSchema.optional(),
  conversation_references: z.unknown().optional(),
});

/** The ideal response's key differs by ability; the first present is the question's gold. */
const GOLD_KEYS = [
  'answer',
  'ideal_answer',
  'ideal_response',
  'ideal_summary',
  'expected_compliance',
] as const;

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** `March-15-2024` (the released anchors), `March 15, 2024` or `2024-03-15` as zone-less ISO. */
export function parseBeamTimeAnchor(text: string): string | null {
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text.trim());
  const named = /^([A-Za-z]+)[\s-]+(\d{1,2}),?[\s-]+(\d{4})$/.exec(text.trim());
  let y: number, m: number, d: number;
  if (iso) [y, m, d] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  else if (named) {
    m = MONTHS.indexOf(named[1]!.toLowerCase()) + 1;
    [y, d] = [Number(named[3]), Number(named[2])];
    if (m === 0) return null;
  } else return null;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  const pad = (v: number): string => String(v).padStart(2, '0');
  return `${y}-${pad(m)}-${pad(d)}T00:00:00`;
}

/** A turn's id: the batch and BEAM's message id, in the `D<session>:<n>` form prompts order by. */
export function beamTurnId(batch: number, messageId: number): string {
  return `D${batch}:${messageId}`;
}

/** Names one chat in every problem: its id, and the file a path starts in. */
export interface BeamChatSource {
  /** The sample id, `100K-3` (size and folder number). */
  chatId: string;
  /** Its place among the chats loaded. */
  chatIndex: number;
  /** The size folder (`100K`), when the layout says it. */
  size: string | null;
  /** Labels for messages: the chat file(s) and the questions file. */
  chatFile: string;
  questionsFile: string;
}

export class BeamProblems {
  readonly list: DatasetProblem[] = [];
  constructor(readonly chat: BeamChatSource) {}

  add(
    severity: DatasetProblem['severity'],
    file: string,
    where: string | null,
    path: Array<string | number>,
    message: string,
  ): void {
    const at = path.length > 0 ? `${formatPath(path)}: ` : '';
    this.list.push({
      severity,
      code: 'DATASET_INVALID',
      message: `${file}: chat "${this.chat.chatId}"${where ? `, ${where}` : ''}: ${at}${message}`,
      path,
      sampleIndex: this.chat.chatIndex,
      sampleId: this.chat.chatId,
    });
  }

  get failed(): boolean {
    return this.list.some((p) => p.severity === 'error');
  }
}

/**
 * Builds one chat's sessions a batch at a time, so a 10M chat's sub-chats can be streamed in: ids
 * are shifted by `idOffset` (the reference's `combine_10m_chats` numbers each plan's messages on
 * after the previous plan's last id) and sessions are numbered across the whole chat.
 */
export class BeamChatBuilder {
  readonly sessions: Session[] = [];
  /** BEAM message id -> its turn id. */
  readonly turnOf = new Map<number, string>();
  idOffset = 0;
  lastId = -1;
  #expectedBatch = 1;

  constructor(readonly problems: BeamProblems) {}

  /** Where a new sub-chat starts: its batches count from 1 again and its ids follow the last. */
  startPart(): void {
    this.#expectedBatch = 1;
    this.idOffset = this.lastId + 1;
  }

  addBatch(raw: unknown, position: number, file: string): void {
    const base: Array<string | number> = [position];
    const parsed = BatchSchema.safeParse(raw, { error: errorMap });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        this.problems.add(
          'error',
          file,
          `batch #${position}`,
          [...base, ...keys(issue.path)],
          issue.message,
        );
      }
      return;
    }
    const batch = parsed.data;
    if (batch.batch_number !== this.#expectedBatch) {
      this.problems.add(
        'error',
        file,
        `batch ${batch.batch_number}`,
        [...base, 'batch_number'],
        batch.batch_number > this.#expectedBatch
          ? `batch ${this.#expectedBatch} is missing (batch ${batch.batch_number} follows batch ${this.#expectedBatch - 1})`
          : `batch ${batch.batch_number} is out of order (expected batch ${this.#expectedBatch})`,
      );
    }
    this.#expectedBatch = batch.batch_number + 1;
    const sessionIndex = this.sessions.length + 1;
    const turns: Turn[] = [];
    let anchor = batch.time_anchor ?? null;
    batch.turns.forEach((turn, t) => {
      turn.forEach((rawMessage, m) => {
        const path = [...base, 'turns', t, m];
        const message = MessageSchema.safeParse(rawMessage, { error: errorMap });
        if (!message.success) {
          for (const issue of message.error.issues) {
            this.problems.add(
              'error',
              file,
              `batch ${batch.batch_number}`,
              [...path, ...keys(issue.path)],
              issue.message,
            );
          }
          return;
        }
        const id = Number(message.data.id) + this.idOffset;
        if (this.turnOf.has(id)) {
          this.problems.add(
            'error',
            file,
            `batch ${batch.batch_number}`,
            [...path, 'id'],
            `message id ${id} is repeated`,
          );
          return;
        }
        anchor ??= message.data.time_anchor ?? null;
        const diaId = beamTurnId(sessionIndex, id);
        this.turnOf.set(id, diaId);
        if (id > this.lastId) this.lastId = id;
        turns.push({
          diaId,
          speaker: message.data.role,
          text: message.data.content,
          rawText: message.data.content,
          sessionIndex,
          turnIndex: turns.length,
        });
      });
    });
    if (batch.turns.every((turn) => turn.length === 0)) {
      this.problems.add(
        'error',
        file,
        `batch ${batch.batch_number}`,
        [...base, 'turns'],
        'the batch has no messages',
      );
    }
    const dateTime = anchor === null ? null : parseBeamTimeAnchor(anchor);
    if (anchor !== null && dateTime === null) {
      this.problems.add(
        'warning',
        file,
        `batch ${batch.batch_number}`,
        [...base, 'time_anchor'],
        `cannot parse the time anchor "${anchor}" (expected like "March-15-2024")`,
      );
    }
    this.sessions.push({ index: sessionIndex, dateTimeText: anchor, dateTime, turns });
  }
}

function keys(path: ReadonlyArray<PropertyKey>): Array<string | number> {
  return path.map((p) => (typeof p === 'symbol' ? String(p) : p));
}

/** The message ids a question cites, with the JSON path of each (relative to the question). */
function citedIds(
  q: z.output<typeof QuestionSchema>,
): Array<{ id: number; path: Array<string | number> }> {
  const out: Array<{ id: number; path: Array<string | number> }> = [];
  const push = (value: number | number[], path: Array<string | number>): void => {
    if (Array.isArray(value)) value.forEach((id, j) => out.push({ id, path: [...path, j] }));
    else out.push({ id: value, path });
  };
  const source = q.source_chat_ids;
  if (Array.isArray(source)) source.forEach((v, i) => push(v, ['source_chat_ids', i]));
  else if (source) for (const [key, v] of Object.entries(source)) push(v, ['source_chat_ids', key]);
  if (out.length > 0) return out;
  // Where that is all a question has: `chat_id: 58`, `Session 11886, 11892`, `4212, 4214` or 58.
  const refs = q.conversation_references;
  if (!Array.isArray(refs)) return out;
  refs.forEach((ref: unknown, i) => {
    const path = ['conversation_references', i];
    if (typeof ref === 'number' && Number.isInteger(ref)) out.push({ id: ref, path });
    if (typeof ref !== 'string') return;
    const m = /^\s*(?:chat_id:|session)?\s*(\d+(?:\s*,\s*\d+)*)\s*(?::|$)/i.exec(ref);
    if (m) for (const id of m[1]!.split(',')) out.push({ id: Number(id.trim()), path });
  });
  return out;
}

/** The questions of one chat in ability order (category 1-10), then file order. */
export function readBeamQuestions(raw: unknown, builder: BeamChatBuilder, file: string): QA[] {
  const { problems } = builder;
  if (!isRecord(raw)) {
    problems.add(
      'error',
      file,
      null,
      [],
      `the probing questions must be an object keyed by ability, found ${kindOf(raw)}`,
    );
    return [];
  }
  for (const key of Object.keys(raw)) {
    if (!isBeamAbility(key)) {
      problems.add(
        'warning',
        file,
        null,
        [key],
        `"${key}" is not one of BEAM's abilities (${BEAM_ABILITIES.join(', ')}); its questions are skipped`,
      );
    }
  }
  // A chat that could not be read cites nothing that resolves; saying so per question is noise.
  const checkIds = !problems.failed;
  const qa: QA[] = [];
  for (const ability of BEAM_ABILITIES) {
    const list = raw[ability];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      problems.add(
        'error',
        file,
        ability,
        [ability],
        `expected a list of questions, found ${kindOf(list)}`,
      );
      continue;
    }
    list.forEach((value: unknown, i) => {
      const where = `${ability} question ${i}`;
      const parsed = QuestionSchema.safeParse(value, { error: errorMap });
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          problems.add('error', file, where, [ability, i, ...keys(issue.path)], issue.message);
        }
        return;
      }
      const q = parsed.data;
      const evidence: string[] = [];
      const evidenceRaw: string[] = [];
      for (const { id, path } of citedIds(q)) {
        evidenceRaw.push(String(id));
        const turn = builder.turnOf.get(id);
        if (turn === undefined) {
          if (!checkIds) continue;
          problems.add(
            'error',
            file,
            where,
            [ability, i, ...path],
            `cites message ${id}, which the chat does not have`,
          );
        } else if (!evidence.includes(turn)) evidence.push(turn);
      }
      const goldKey = GOLD_KEYS.find((k) => typeof q[k] === 'string');
      qa.push({
        index: qa.length,
        question: q.question,
        answer: goldKey ? (q[goldKey] as string) : null,
        adversarialAnswer: null,
        category: beamCategory(ability),
        evidenceRaw,
        evidence,
        evidenceProblems: [],
        questionId: `${ability}/${i}`,
        ability,
        rubric: q.rubric,
      });
    });
  }
  return qa;
}

/** One chat's sample, or null when it has errors (they are in `problems`). */
export function beamSample(builder: BeamChatBuilder, qa: QA[]): Sample | null {
  if (builder.problems.failed) return null;
  return {
    sampleId: builder.problems.chat.chatId,
    speakers: ['user', 'assistant'],
    sessions: builder.sessions,
    qa,
    aux: { eventSummary: null, observation: null, sessionSummary: null },
    ...(builder.problems.chat.size !== null ? { group: builder.problems.chat.size } : {}),
  };
}

/** A chat read whole: its batches and its questions, as parsed values. */
export interface BeamChatValue {
  chat: BeamChatSource;
  batches: unknown;
  questions: unknown;
}

export function readBeamChat(value: BeamChatValue): {
  sample: Sample | null;
  problems: DatasetProblem[];
} {
  const problems = new BeamProblems(value.chat);
  const builder = new BeamChatBuilder(problems);
  if (!Array.isArray(value.batches)) {
    problems.add(
      'error',
      value.chat.chatFile,
      null,
      [],
      `a chat must be a list of batches, found ${kindOf(value.batches)}`,
    );
    return { sample: null, problems: problems.list };
  }
  value.batches.forEach((batch: unknown, i) => builder.addBatch(batch, i, value.chat.chatFile));
  const qa = readBeamQuestions(value.questions, builder, value.chat.questionsFile);
  return { sample: beamSample(builder, qa), problems: problems.list };
}

/**
 * The registry's loader works on parsed values: `{ beam_chats: [{ id, size?, chat, probing_questions }] }`,
 * the shape a BEAM folder is read into (beamFolder.ts reads the repository's layout and streams a
 * 10M chat; this is what in-memory input uses).
 */
const BundleSchema = z.object({
  beam_chats: z.array(
    z.looseObject({
      id: z.string().min(1),
      size: z.string().nullable().optional(),
      chat: z.unknown(),
      probing_questions: z.unknown(),
    }),
  ),
});

/** True for the in-memory shape: `{ beam_chats: [...] }`. */
export function looksLikeBeamChats(value: unknown): boolean {
  return isRecord(value) && Array.isArray(value['beam_chats']);
}

/** Reads the in-memory shape (the registry's `load`; folders go through beamFolder.ts). */
export function loadBeamChats(value: unknown, context: LoadContext): LoaderOutput {
  const parsed = BundleSchema.safeParse(value);
  if (!parsed.success) {
    throw new WorkbenchError(
      'DATASET_INVALID',
      `${context.source}: not a BEAM chat list: pass a BEAM folder (<size>/<n>/chat.json), or { "beam_chats": [{ "id", "chat", "probing_questions" }] }`,
      { path: [], where: context.source },
    );
  }
  const samples: Sample[] = [];
  const problems: DatasetProblem[] = [];
  parsed.data.beam_chats.forEach((entry, chatIndex) => {
    const read = readBeamChat({
      chat: {
        chatId: entry.id,
        chatIndex,
        size: entry.size ?? null,
        chatFile: `${context.source}: beam_chats[${chatIndex}].chat`,
        questionsFile: `${context.source}: beam_chats[${chatIndex}].probing_questions`,
      },
      batches: entry.chat,
      questions: entry.probing_questions,
    });
    problems.push(...read.problems);
    if (read.sample) samples.push(read.sample);
  });
  return { samples, problems };
}
