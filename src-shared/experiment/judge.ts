import { z } from 'zod';
import { judgeProtocolFor, LOCOMO_PROFILE, type BenchmarkProfile } from '../benchmarks';
import { WorkbenchError } from '../errors';
import { llmEndpointShape } from './llm';

/** The LLM judge a run may ask after answering: its named protocols, custom templates and config. */

export const DEFAULT_JUDGE_MAX_TOKENS = 256;
export const DEFAULT_JUDGE_REPEATS = 1;

/**
 * Named judge protocols (core/answer/judge-protocols.ts has the bytes): `mem0` is Mem0's
 * ACCURACY_PROMPT and parsing exactly; `strict` asks for the same fact, not the same topic;
 * `workbench-v1` is the workbench's earlier judge prompt, kept so older runs stay interpretable;
 * `beam-rubric` is BEAM's rubric judge (one call per rubric item), `beam-rubric-corrected` its
 * variant with the question filled in and partial credit kept (core/answer/beam-judge.ts).
 */
export const JUDGE_PROTOCOLS = [
  'mem0',
  'strict',
  'workbench-v1',
  'longmemeval',
  'beam-rubric',
  'beam-rubric-corrected',
] as const;
export type JudgeProtocolName = (typeof JUDGE_PROTOCOLS)[number];

/** The benchmark's own judge protocol (its profile's `defaultJudgeProtocol`) as a built-in name. */
export function ownJudgeProtocol(profile: BenchmarkProfile): JudgeProtocolName {
  const own = JUDGE_PROTOCOLS.find((p) => p === profile.defaultJudgeProtocol);
  if (!own) {
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

/** The LLM judge: CORRECT/WRONG per answer, `repeats` times, categories 1-4. */
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
  // Absent counts as mem0 here: every profile's own judge (mem0, longmemeval) is defined at 0.
  .refine((c) => (c.protocol ?? 'mem0') !== 'mem0' || c.temperature === 0, {
    message: 'the mem0 judge protocol is defined at temperature 0',
    path: ['temperature'],
  })
  .refine((c) => c.protocol !== 'longmemeval' || c.temperature === 0, {
    message: 'the longmemeval judge protocol is defined at temperature 0',
    path: ['temperature'],
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
