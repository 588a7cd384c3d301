import { z } from 'zod';
import { LOCOMO_PROFILE, isAdversarial } from '../../../src-shared/benchmarks';
import type { DatasetProblem, QA, Sample, Session, Turn } from '../../../src-shared/dataset/types';
import { WorkbenchError, formatPath } from '../../../src-shared/errors';
import { parseSessionDateTime } from './dates';
import { normaliseEvidence } from './evidence';
import { errorMap, isRecord, kindOf, toProblems, zodIssues, type Issue } from './problems';
import type { DatasetLoader, LoadContext, LoaderOutput } from './registry';

/**
 * LoCoMo (Maharana et al., 2024): a JSON array of samples, each a two-person conversation split
 * into `session_<n>` lists with `session_<n>_date_time` strings, plus a qa list. The zod schemas
 * below describe the raw file; everything after them works on validated data only.
 */

const RawTurnSchema = z.looseObject({
  speaker: z.string().min(1),
  dia_id: z.string().min(1),
  text: z.string(),
  img_url: z.array(z.string()).optional(),
  blip_caption: z.string().optional(),
  query: z.string().optional(),
});

const RawSessionSchema = z.array(RawTurnSchema).min(1, 'session is empty (no turns)');

const AnswerSchema = z.union([z.string(), z.number()]).nullable().optional();

const RawQASchema = z
  .looseObject({
    question: z.string().min(1),
    answer: AnswerSchema,
    adversarial_answer: AnswerSchema,
    evidence: z.array(z.string()),
    category: z.number().int().min(1).max(5),
  })
  .superRefine((qa, ctx) => {
    // Only adversarial questions may lack a gold answer: their correct reply is "not mentioned".
    if (
      !isAdversarial(LOCOMO_PROFILE, qa.category) &&
      (qa.answer === undefined || qa.answer === null)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['answer'],
        message: `category ${qa.category} question has no answer`,
      });
    }
  });

const RawSampleSchema = z.looseObject({
  sample_id: z.string().min(1),
  conversation: z.looseObject({
    speaker_a: z.string().min(1),
    speaker_b: z.string().min(1),
  }),
  qa: z.array(RawQASchema),
  event_summary: z.unknown().optional(),
  observation: z.unknown().optional(),
  session_summary: z.unknown().optional(),
});

type RawTurn = z.output<typeof RawTurnSchema>;
type RawQA = z.output<typeof RawQASchema>;
type RawSample = z.output<typeof RawSampleSchema>;

const SESSION_KEY = /^session_(\d+)$/;
const DATE_KEY = /^session_(\d+)_date_time$/;
function answerText(value: string | number | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  // Answers like 2022 are numbers in the file; scoring compares text, so store text.
  return typeof value === 'number' ? String(value) : value;
}

function toTurn(raw: RawTurn, sessionIndex: number, turnIndex: number): Turn {
  const turn: Turn = {
    diaId: raw.dia_id,
    speaker: raw.speaker,
    text: raw.blip_caption !== undefined ? `[Image: ${raw.blip_caption}] ${raw.text}` : raw.text,
    rawText: raw.text,
    sessionIndex,
    turnIndex,
  };
  if (raw.img_url !== undefined) turn.imageUrls = [...raw.img_url];
  if (raw.query !== undefined) turn.imageQuery = raw.query;
  if (raw.blip_caption !== undefined) turn.blipCaption = raw.blip_caption;
  return turn;
}

function toQA(raw: RawQA, index: number, turnIds: ReadonlySet<string>): QA {
  const { evidence, problems } = normaliseEvidence(raw.evidence, turnIds);
  if (!LOCOMO_PROFILE.categories.some((c) => c.id === raw.category)) {
    // The schema bounds category to 1..5 integers, so this cannot happen for validated input.
    throw new WorkbenchError('INTERNAL', `category ${raw.category} passed validation`);
  }
  return {
    index,
    question: raw.question,
    answer: answerText(raw.answer),
    adversarialAnswer: answerText(raw.adversarial_answer),
    category: raw.category,
    evidenceRaw: [...raw.evidence],
    evidence,
    evidenceProblems: problems,
  };
}

interface SampleAttempt {
  sample: Sample | null;
  issues: Issue[];
  warnings: Issue[];
}

function readSample(value: unknown, index: number): SampleAttempt {
  const base: Array<string | number> = [index];
  if (!isRecord(value)) {
    return {
      sample: null,
      issues: [{ path: base, message: `a sample must be an object, found ${kindOf(value)}` }],
      warnings: [],
    };
  }
  const issues: Issue[] = [];
  const warnings: Issue[] = [];
  const parsed = RawSampleSchema.safeParse(value, { error: errorMap });
  if (!parsed.success) issues.push(...zodIssues(parsed.error, base));

  // Sessions are open-ended keys, so they are validated one by one to keep exact paths.
  const conversation = value['conversation'];
  const sessionsByIndex = new Map<number, { key: string; turns: RawTurn[] }>();
  const dates = new Map<number, string>();
  if (isRecord(conversation)) {
    for (const [key, raw] of Object.entries(conversation)) {
      const path = [...base, 'conversation', key];
      const dateMatch = DATE_KEY.exec(key);
      if (dateMatch) {
        if (typeof raw === 'string') dates.set(Number(dateMatch[1]), raw);
        else issues.push({ path, message: `expected a string, found ${kindOf(raw)}` });
        continue;
      }
      const sessionMatch = SESSION_KEY.exec(key);
      if (!sessionMatch) continue;
      const sessionIndex = Number(sessionMatch[1]);
      const other = sessionsByIndex.get(sessionIndex);
      if (other) {
        issues.push({
          path,
          message: `session number ${sessionIndex} also used by "${other.key}"`,
        });
        continue;
      }
      const session = RawSessionSchema.safeParse(raw, { error: errorMap });
      if (!session.success) {
        issues.push(...zodIssues(session.error, path));
        continue;
      }
      sessionsByIndex.set(sessionIndex, { key, turns: session.data });
    }
    if (sessionsByIndex.size === 0 && issues.length === 0) {
      issues.push({
        path: [...base, 'conversation'],
        message: 'conversation has no sessions (no session_<n> lists)',
      });
    }
  }

  const ordered = [...sessionsByIndex.entries()].sort((a, b) => a[0] - b[0]);
  const firstSeen = new Map<string, string>();
  for (const [, { key, turns }] of ordered) {
    turns.forEach((turn, i) => {
      const here = formatPath(['conversation', key, i]);
      const first = firstSeen.get(turn.dia_id);
      if (first !== undefined) {
        issues.push({
          path: [...base, 'conversation', key, i, 'dia_id'],
          message: `duplicate dia_id "${turn.dia_id}" (first at ${first})`,
        });
      } else {
        firstSeen.set(turn.dia_id, here);
      }
    });
  }

  if (issues.length > 0 || !parsed.success) return { sample: null, issues, warnings };
  const raw: RawSample = parsed.data;
  const speakers: [string, string] = [raw.conversation.speaker_a, raw.conversation.speaker_b];

  const sessions: Session[] = ordered.map(([sessionIndex, { key, turns }]) => {
    // Date-only keys without a session list exist in the real file (conv-26 has dates up to
    // 35 but sessions up to 19); they are simply unused, so only this direction is checked.
    const dateTimeText = dates.get(sessionIndex) ?? null;
    const dateTime = dateTimeText === null ? null : parseSessionDateTime(dateTimeText);
    if (dateTimeText === null) {
      warnings.push({
        path: [...base, 'conversation', `${key}_date_time`],
        message: 'session has no date_time; temporal questions lose their anchor',
      });
    } else if (dateTime === null) {
      warnings.push({
        path: [...base, 'conversation', `${key}_date_time`],
        message: `cannot parse session date "${dateTimeText}" (expected like "1:56 pm on 8 May, 2023")`,
      });
    }
    turns.forEach((turn, i) => {
      if (!speakers.includes(turn.speaker)) {
        warnings.push({
          path: [...base, 'conversation', key, i, 'speaker'],
          message: `speaker "${turn.speaker}" is neither speaker_a nor speaker_b`,
        });
      }
    });
    return {
      index: sessionIndex,
      dateTimeText,
      dateTime,
      turns: turns.map((turn, i) => toTurn(turn, sessionIndex, i)),
    };
  });

  const turnIds = new Set(firstSeen.keys());
  const sample: Sample = {
    sampleId: raw.sample_id,
    speakers,
    sessions,
    qa: raw.qa.map((qa, i) => toQA(qa, i, turnIds)),
    aux: {
      eventSummary: raw.event_summary ?? null,
      observation: raw.observation ?? null,
      sessionSummary: raw.session_summary ?? null,
    },
  };
  return { sample, issues, warnings };
}

function sampleLabel(value: unknown, index: number): { id: string | null; label: string } {
  const id = isRecord(value) && typeof value['sample_id'] === 'string' ? value['sample_id'] : null;
  return { id, label: id === null ? `sample #${index}` : `sample "${id}" (#${index})` };
}

export const locomoLoader: DatasetLoader = {
  name: 'locomo',
  description: 'LoCoMo long-conversation QA (a JSON array of samples with session_<n> lists)',

  detect(value: unknown): boolean {
    if (!Array.isArray(value) || value.length === 0) return false;
    const first: unknown = value[0];
    return isRecord(first) && isRecord(first['conversation']) && Array.isArray(first['qa']);
  },

  load(value: unknown, context: LoadContext): LoaderOutput {
    if (!Array.isArray(value)) {
      throw new WorkbenchError(
        'DATASET_INVALID',
        `${context.source}: not a LoCoMo file: the top level must be a JSON array of samples, found ${kindOf(value)}`,
        { path: [], where: context.source },
      );
    }
    if (value.length === 0) {
      throw new WorkbenchError(
        'DATASET_INVALID',
        `${context.source}: the file holds no samples ([])`,
        {
          path: [],
          where: context.source,
        },
      );
    }
    const samples: Sample[] = [];
    const problems: DatasetProblem[] = [];
    const ids = new Map<string, number>();
    value.forEach((raw: unknown, index) => {
      const { id, label } = sampleLabel(raw, index);
      const attempt = readSample(raw, index);
      const issues = [...attempt.issues];
      if (attempt.sample) {
        const previous = ids.get(attempt.sample.sampleId);
        if (previous !== undefined) {
          issues.push({
            path: [index, 'sample_id'],
            message: `duplicate sample_id (also sample #${previous})`,
          });
        }
      }
      problems.push(...toProblems(issues, 'error', context, index, id, label));
      if (issues.length === 0 && attempt.sample) {
        ids.set(attempt.sample.sampleId, index);
        samples.push(attempt.sample);
        problems.push(...toProblems(attempt.warnings, 'warning', context, index, id, label));
      }
    });
    return { samples, problems };
  },
};
