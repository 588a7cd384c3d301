import { z } from 'zod';
import {
  LONGMEMEVAL_QUESTION_TYPES,
  isAbstentionId,
  longMemEvalCategory,
} from '../../../src-shared/benchmarks/longmemeval';
import type { DatasetProblem, QA, Sample, Session } from '../../../src-shared/dataset/types';
import { WorkbenchError } from '../../../src-shared/errors';
import { errorMap, isRecord, kindOf, toProblems, zodIssues, type Issue } from './problems';
import type { DatasetLoader, LoadContext, LoaderOutput } from './registry';

/**
 * LongMemEval (xiaowu0162/LongMemEval README, "Dataset Format"): `longmemeval_s`, `_m` and
 * `_oracle` are JSON arrays of question instances, each with its own haystack: parallel lists
 * `haystack_session_ids`, `haystack_dates`, `haystack_sessions` (turns `{role, content}`, evidence
 * turns with `has_answer: true`) and `answer_session_ids`. One instance = one sample with one
 * question, so every question gets its own memory instance, created and dropped by the pipeline.
 */

const RawTurnSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  has_answer: z.boolean().optional(),
});

const RawQuestionSchema = z
  .looseObject({
    question_id: z.string().min(1),
    question_type: z.enum(LONGMEMEVAL_QUESTION_TYPES),
    question: z.string().min(1),
    // A few golds are numbers in the released files; answers are compared as text.
    answer: z.union([z.string(), z.number()]),
    question_date: z.string().min(1),
    haystack_session_ids: z.array(z.string().min(1)),
    haystack_dates: z.array(z.string()),
    haystack_sessions: z.array(z.array(RawTurnSchema)),
    answer_session_ids: z.array(z.string()),
  })
  .superRefine((q, ctx) => {
    const n = q.haystack_sessions.length;
    for (const key of ['haystack_session_ids', 'haystack_dates'] as const) {
      if (q[key].length !== n) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `has ${q[key].length} entries but haystack_sessions has ${n}`,
        });
      }
    }
  });

type RawQuestion = z.output<typeof RawQuestionSchema>;

/** `2023/05/20 (Sat) 02:21`, the format of `haystack_dates` and `question_date`. */
const DATE = /^(\d{4})\/(\d{2})\/(\d{2})(?:\s*\([A-Za-z]{3}\))?\s+(\d{1,2}):(\d{2})$/;

/** Zone-less ISO (`2023-05-20T02:21:00`), or null when the text is not in the file's format. */
export function parseLongMemEvalDate(text: string): string | null {
  const m = DATE.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi] = m as unknown as [string, string, string, string, string, string];
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi)));
  // Rejects 2023/02/30 and 25:00 rather than rolling them over.
  if (date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d)) return null;
  if (Number(h) > 23) return null;
  return `${y}-${mo}-${d}T${h!.padStart(2, '0')}:${mi}:00`;
}

interface Attempt {
  sample: Sample | null;
  issues: Issue[];
  warnings: Issue[];
}

function readQuestion(value: unknown, index: number): Attempt {
  const base: Array<string | number> = [index];
  if (!isRecord(value)) {
    return {
      sample: null,
      issues: [{ path: base, message: `a question must be an object, found ${kindOf(value)}` }],
      warnings: [],
    };
  }
  const parsed = RawQuestionSchema.safeParse(value, { error: errorMap });
  if (!parsed.success) {
    return { sample: null, issues: zodIssues(parsed.error, base), warnings: [] };
  }
  const warnings: Issue[] = [];
  const raw: RawQuestion = parsed.data;

  // The oracle file lists sessions unsorted; a memory system must see them in time order.
  // Sessions whose date does not parse keep their place after the dated ones (stable sort).
  const order = raw.haystack_sessions.map((_, i) => ({
    i,
    dateTime: parseLongMemEvalDate(raw.haystack_dates[i] ?? ''),
  }));
  order.forEach(({ i, dateTime }) => {
    if (dateTime === null) {
      warnings.push({
        path: [...base, 'haystack_dates', i],
        message: `cannot parse session date "${raw.haystack_dates[i]}" (expected like "2023/05/20 (Sat) 02:21")`,
      });
    }
  });
  order.sort((a, b) =>
    a.dateTime === null || b.dateTime === null
      ? Number(a.dateTime === null) - Number(b.dateTime === null)
      : a.dateTime < b.dateTime
        ? -1
        : a.dateTime > b.dateTime
          ? 1
          : 0,
  );

  const evidence: string[] = [];
  const userTurns: string[] = [];
  const sessionIndexOf = new Map<string, number>();
  const sessions: Session[] = order.map(({ i, dateTime }, position) => {
    const sessionIndex = position + 1;
    const sessionId = raw.haystack_session_ids[i] as string;
    if (!sessionIndexOf.has(sessionId)) sessionIndexOf.set(sessionId, sessionIndex);
    const turns = (raw.haystack_sessions[i] ?? []).map((turn, t) => {
      const diaId = `D${sessionIndex}:${t + 1}`;
      if (turn.has_answer === true) evidence.push(diaId);
      if (turn.role === 'user') userTurns.push(diaId);
      return {
        diaId,
        speaker: turn.role,
        text: turn.content,
        rawText: turn.content,
        sessionIndex,
        turnIndex: t,
      };
    });
    return {
      index: sessionIndex,
      dateTimeText: raw.haystack_dates[i] ?? null,
      dateTime,
      turns,
      sessionId,
    };
  });

  const evidenceSessions: number[] = [];
  raw.answer_session_ids.forEach((id, k) => {
    const at = sessionIndexOf.get(id);
    if (at === undefined) {
      warnings.push({
        path: [...base, 'answer_session_ids', k],
        message: `answer session "${id}" is not in haystack_session_ids`,
      });
    } else if (!evidenceSessions.includes(at)) evidenceSessions.push(at);
  });
  evidenceSessions.sort((a, b) => a - b);

  const questionDate = parseLongMemEvalDate(raw.question_date);
  if (questionDate === null) {
    warnings.push({
      path: [...base, 'question_date'],
      message: `cannot parse question date "${raw.question_date}" (expected like "2023/05/30 (Tue) 23:40")`,
    });
  }
  const abstention = isAbstentionId(raw.question_id);
  const qa: QA = {
    index: 0,
    question: raw.question,
    answer: typeof raw.answer === 'number' ? String(raw.answer) : raw.answer,
    adversarialAnswer: null,
    category: longMemEvalCategory(raw.question_type, abstention),
    evidenceRaw: [...evidence],
    evidence,
    evidenceProblems: [],
    questionDate,
    questionDateText: raw.question_date,
    questionId: raw.question_id,
    evidenceSessions,
    retrievalCorpus: userTurns,
  };
  return {
    sample: {
      sampleId: raw.question_id,
      speakers: ['user', 'assistant'],
      sessions,
      qa: [qa],
      aux: { eventSummary: null, observation: null, sessionSummary: null },
      askAfter: 'haystack',
    },
    issues: [],
    warnings,
  };
}

function questionLabel(value: unknown, index: number): { id: string | null; label: string } {
  const id =
    isRecord(value) && typeof value['question_id'] === 'string' ? value['question_id'] : null;
  return { id, label: id === null ? `question #${index}` : `question "${id}" (#${index})` };
}

/** Validates one question instance into a sample (the streaming reader calls this per element). */
export function readLongMemEvalQuestion(
  value: unknown,
  index: number,
  context: LoadContext,
): { sample: Sample | null; problems: DatasetProblem[] } {
  const { id, label } = questionLabel(value, index);
  const attempt = readQuestion(value, index);
  const problems = toProblems(attempt.issues, 'error', context, index, id, label);
  if (attempt.sample) {
    problems.push(...toProblems(attempt.warnings, 'warning', context, index, id, label));
  }
  return { sample: attempt.sample, problems };
}

/** True for a value shaped like a LongMemEval question instance. */
export function looksLikeLongMemEvalQuestion(value: unknown): boolean {
  return isRecord(value) && 'question_id' in value && Array.isArray(value['haystack_sessions']);
}

/**
 * Reads a file's questions one at a time, in file order, keeping the problems and refusing a
 * repeated question_id: the whole-file loader and the streamed index (longmemevalFile.ts) share it.
 */
export class LongMemEvalQuestionReader {
  readonly problems: DatasetProblem[] = [];
  readonly #ids = new Map<string, number>();
  readonly #context: LoadContext;

  constructor(context: LoadContext) {
    this.#context = context;
  }

  /** The question as a sample, or null when it is invalid (its problems are kept). */
  read(raw: unknown, index: number): Sample | null {
    const read = readLongMemEvalQuestion(raw, index, this.#context);
    if (read.sample) {
      const previous = this.#ids.get(read.sample.sampleId);
      if (previous !== undefined) {
        const { id, label } = questionLabel(raw, index);
        this.problems.push(
          ...toProblems(
            [
              {
                path: [index, 'question_id'],
                message: `duplicate question_id (also question #${previous})`,
              },
            ],
            'error',
            this.#context,
            index,
            id,
            label,
          ),
        );
        return null;
      }
      this.#ids.set(read.sample.sampleId, index);
    }
    this.problems.push(...read.problems);
    return read.sample;
  }
}

export const longMemEvalLoader: DatasetLoader = {
  name: 'longmemeval',
  description:
    'LongMemEval S, M or oracle (a JSON array of questions, each with its own haystack_sessions)',

  detect(value: unknown): boolean {
    return Array.isArray(value) && value.length > 0 && looksLikeLongMemEvalQuestion(value[0]);
  },

  load(value: unknown, context: LoadContext): LoaderOutput {
    if (!Array.isArray(value) || value.length === 0) {
      throw new WorkbenchError(
        'DATASET_INVALID',
        `${context.source}: not a LongMemEval file: the top level must be a non-empty JSON array of questions, found ${Array.isArray(value) ? '[]' : kindOf(value)}`,
        { path: [], where: context.source },
      );
    }
    const samples: Sample[] = [];
    const reader = new LongMemEvalQuestionReader(context);
    value.forEach((raw: unknown, index) => {
      const sample = reader.read(raw, index);
      if (sample) samples.push(sample);
    });
    return { samples, problems: reader.problems };
  },
};
