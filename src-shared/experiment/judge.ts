import { z } from 'zod';
import { judgeProtocolFor, LOCOMO_PROFILE, type BenchmarkProfile } from '../benchmarks';
import { WorkbenchError } from '../errors';
import { llmEndpointShape } from './llm';
import type { ProtocolFace } from './protocolFace';

export type { ProtocolFace } from './protocolFace';

/** The LLM judge a run may ask after answering: its named protocols, custom templates and config. */

export const DEFAULT_JUDGE_MAX_TOKENS = 256;
export const DEFAULT_JUDGE_REPEATS = 1;

export interface JudgeProtocolFace extends ProtocolFace {
  /** Defined at temperature 0 by its paper: a config with another temperature is refused. */
  readonly temperatureZero: boolean;
}

/**
 * Named judge protocols, one entry each (core/answer/judge-protocols.ts has the bytes).
 * `workbench-v1` is the workbench's earlier judge prompt, kept so older runs stay interpretable.
 */
export const JUDGE_PROTOCOL_FACES = {
  mem0: {
    label: 'Mem0 (paper, byte-exact)',
    help: "Mem0's ACCURACY_PROMPT and its parsing, exactly",
    temperatureZero: true,
  },
  strict: {
    label: 'Strict (same fact)',
    help: 'asks for the same fact, not the same topic',
    temperatureZero: false,
  },
  'workbench-v1': {
    label: 'Workbench v1',
    help: "the workbench's earlier judge prompt, for older runs",
    temperatureZero: false,
  },
  longmemeval: {
    label: 'LongMemEval (paper, byte-exact, per question type)',
    help: "LongMemEval's evaluate_qa.py prompts, one per question type and for abstention",
    temperatureZero: true,
  },
  'beam-rubric': {
    label: 'BEAM rubric (paper, byte-exact, per rubric item)',
    help: "BEAM's unified_llm_judge_base_prompt, one call per rubric item, scored as compute_metrics.py",
    temperatureZero: true,
  },
  'beam-rubric-corrected': {
    label: 'BEAM rubric, corrected (question filled in, partial credit)',
    help: "BEAM's rubric judge with the question filled in and 0.5 kept as partial credit (not the official figure)",
    temperatureZero: false,
  },
} as const satisfies Readonly<Record<string, JudgeProtocolFace>>;
export type JudgeProtocolName = keyof typeof JUDGE_PROTOCOL_FACES;
/** The names, in the order selects and help list them. */
export const JUDGE_PROTOCOLS = Object.keys(JUDGE_PROTOCOL_FACES) as [
  JudgeProtocolName,
  ...JudgeProtocolName[],
];

/** Whether a string names a built-in judge protocol. */
export function isJudgeProtocolName(value: unknown): value is JudgeProtocolName {
  return typeof value === 'string' && Object.hasOwn(JUDGE_PROTOCOL_FACES, value);
}

/** The benchmark's own judge protocol (its profile's `defaultJudgeProtocol`) as a built-in name. */
export function ownJudgeProtocol(profile: BenchmarkProfile): JudgeProtocolName {
  const own = profile.defaultJudgeProtocol;
  if (!isJudgeProtocolName(own)) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `benchmark ${profile.id}: judge protocol "${profile.defaultJudgeProtocol}" is not one of ${JUDGE_PROTOCOLS.join(', ')}`,
    );
  }
  return own;
}

/**
 * What the app's run form preselects before it knows the dataset: LoCoMo's own judge. A config
 * that names none gets its dataset's profile's (judgeConfigFor).
 */
export const DEFAULT_JUDGE_PROTOCOL: JudgeProtocolName = ownJudgeProtocol(LOCOMO_PROFILE);
/** Unparseable judge replies are asked again this many times before they count (bounded). */
export const DEFAULT_JUDGE_PARSE_RETRIES = 2;
/** The slots a user-defined judge template must fill. */
export const CUSTOM_JUDGE_SLOTS = ['{{question}}', '{{gold}}', '{{answer}}'] as const;

/** A user-defined judge prompt (from `--judge-protocol-file`), stored whole in the config. */
export const CustomJudgeProtocolSchema = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_" or "-"'),
    template: z
      .string()
      .min(1)
      .max(100_000)
      .refine((t) => CUSTOM_JUDGE_SLOTS.every((slot) => t.includes(slot)), {
        message: `must contain each of ${CUSTOM_JUDGE_SLOTS.join(', ')}`,
      }),
    /** Send `response_format: {type: "json_object"}` (the template must then mention JSON). */
    jsonMode: z.boolean().default(true),
  })
  .strict();
export type CustomJudgeProtocol = z.output<typeof CustomJudgeProtocolSchema>;

/**
 * The LLM judge: a verdict per answer, `repeats` times, on the categories the run's benchmark has
 * it score (`judgeable`: LoCoMo's 1-4, every answer with a gold).
 */
export const JudgeConfigSchema = z
  .object({
    ...llmEndpointShape(DEFAULT_JUDGE_MAX_TOKENS),
    repeats: z.number().int().min(1).max(20).default(DEFAULT_JUDGE_REPEATS),
    protocol: z
      .union([z.enum(JUDGE_PROTOCOLS), CustomJudgeProtocolSchema], {
        // A union's own message would be "Invalid input" (an object is checked field by field).
        error: `must be one of ${JUDGE_PROTOCOLS.join(', ')}, or a custom protocol {name, template}`,
      })
      // Absent: the dataset's benchmark profile names its own (judgeConfigFor), once it is known.
      .optional(),
    parseRetries: z.number().int().min(0).max(10).default(DEFAULT_JUDGE_PARSE_RETRIES),
  })
  .strict()
  // Absent: the benchmark's own judge, and every profile's own (mem0, longmemeval) is defined at 0.
  .superRefine((c, ctx) => {
    const name = c.protocol ?? 'mem0';
    if (!isJudgeProtocolName(name) || !JUDGE_PROTOCOL_FACES[name].temperatureZero) return;
    if (c.temperature !== 0) {
      ctx.addIssue({
        code: 'custom',
        message: `the ${name} judge protocol is defined at temperature 0`,
        path: ['temperature'],
      });
    }
  });
export type JudgeConfigInput = z.input<typeof JudgeConfigSchema>;
export type JudgeConfig = z.output<typeof JudgeConfigSchema>;
/** A judge protocol as a config names it: built-in by name, or a custom template. */
export type JudgeProtocolChoice = JudgeProtocolName | CustomJudgeProtocol;
/** A judge config whose protocol is settled: named, or the benchmark profile's own. */
export type ResolvedJudgeConfig = JudgeConfig & { protocol: JudgeProtocolChoice };

/**
 * The judge config a run of the benchmark uses: its protocol as named, else the profile's own
 * judge; `warning` says when the named one is another benchmark's judge.
 */
export function judgeConfigFor(
  config: JudgeConfig,
  profile: BenchmarkProfile,
): { config: ResolvedJudgeConfig; warning: string | null } {
  const { protocol, warning } = judgeProtocolFor(profile, config.protocol);
  const parsed = JudgeConfigSchema.safeParse({ ...config, protocol });
  if (!parsed.success || parsed.data.protocol === undefined) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `judge: benchmark ${profile.id}'s judge protocol "${String(protocol)}" is not a judge protocol here`,
    );
  }
  return { config: { ...parsed.data, protocol: parsed.data.protocol }, warning };
}
