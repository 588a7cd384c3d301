import type { z } from 'zod';
import { WorkbenchError, zodError } from '../../../src-shared/errors';
import type { ApiKeys } from '../keys';
import type { CallerTrust } from '../trust';
import type { MemoryService, MemoryServiceContext } from './types';

/**
 * Memory presets by name, each one `MemoryPresetDefinition`. A factory validates its own config
 * (zod, with defaults) and returns a service that owns one HybridCollection in `ctx.dir`.
 */
export type MemoryServiceFactory = (
  config: unknown,
  ctx: MemoryServiceContext,
) => Promise<MemoryService>;

/**
 * Who configured the run (core/trust.ts): decides what a preset's config may ask for. The local
 * user may start processes; a browser page or a Redis job may not, unless a worker's operator
 * allows it, and is confined to the folders its operator gave.
 */
export interface MemoryCaller extends CallerTrust {
  /** The run's resolved API keys (core/keys.ts): a service token, say. */
  apiKeys?: ApiKeys;
}

/** What a run manifest records about a preset's service beyond its name (external services). */
export interface MemoryServiceRecord {
  where: string;
  hello: unknown;
  sha256: string;
}

/**
 * Runs on the main thread before a run exists: refuses a config the caller may not use and
 * returns what the manifest records about the service (null: nothing beyond the preset name).
 */
export type MemoryPresetPrepare = (
  config: unknown,
  caller: MemoryCaller,
) => Promise<MemoryServiceRecord | null>;

/** Refuses, with a coded error, a config this caller may not use; touches nothing. */
export type MemoryPresetCheck = (config: unknown, caller: CallerTrust) => void;

/**
 * Everything the workbench knows of one memory preset, in one object: each preset's module exports
 * its definition and `presets/index.ts` lists them (a test walks the list for completeness).
 */
export interface MemoryPresetDefinition {
  /** `memory.preset` in a run's config. */
  name: string;
  /** Validates its own config (zod, with defaults) and returns a service owning `ctx.dir`. */
  create: MemoryServiceFactory;
  /**
   * The preset's config (`memory.config`) schema. Checked before a run row exists, so a bad
   * config is refused at the door instead of failing every sample of a run that can never finish.
   */
  configSchema: z.ZodType;
  /** What the preset does with the run's memory LLM (`memory.llm`), if it uses one. */
  llmStage?: string;
  /**
   * The preset cannot run without the run's memory LLM (`memory.llm`): the error a run without
   * one is refused with, before it exists.
   */
  requiresLlm?: () => WorkbenchError;
  /** Its config takes an `embedder` (`EmbedderChoice`) for its vector index. */
  embedder?: boolean;
  /** What the caller may ask of the preset: run before `prepare`, and by `cli worker` per job. */
  check?: MemoryPresetCheck;
  prepare?: MemoryPresetPrepare;
  /** What a healthy run of the preset looks like, checked as each sample closes. */
  health?: MemoryHealthExpectation;
}

/**
 * A healthy run stores memories from the turns it is given: a sample that stored none fails with
 * MEMORY_EMPTY (pipeline/memoryHealth.ts). The memory LLM's replies are watched for every preset.
 */
export interface MemoryHealthExpectation {
  /** The `stats()` key that counts the memories the service stored. */
  storedStat: string;
  /** What they are called in messages ("Mem0 memories"). */
  stored: string;
}

/** The preset's health expectation; undefined for an unknown preset or one that declares none. */
export function memoryPresetHealth(name: string): MemoryHealthExpectation | undefined {
  return definitions.get(name)?.health;
}

/** The registered presets by name, in registration order (the order the UI lists them). */
const definitions = new Map<string, MemoryPresetDefinition>();

/** Registers a preset, replacing one of the same name (a test's own, say). */
export function registerMemoryPreset(definition: MemoryPresetDefinition): void {
  definitions.set(definition.name, definition);
}

/** Every registered preset's definition, in registration order. */
export function memoryPresetDefinitions(): MemoryPresetDefinition[] {
  return [...definitions.values()];
}

/** Whether the preset refuses to run without a memory LLM. */
export function memoryPresetRequiresLlm(name: string): boolean {
  return definitions.get(name)?.requiresLlm !== undefined;
}

/** Refuses a run of a preset that needs a memory LLM when the config gives none. */
export function assertMemoryLlm(name: string, llm: unknown): void {
  const refusal = definitions.get(name)?.requiresLlm;
  if (refusal && (llm === undefined || llm === null)) throw refusal();
}

/** Whether the preset's config takes an `embedder`. */
export function memoryPresetTakesEmbedder(name: string): boolean {
  return definitions.get(name)?.embedder === true;
}

function unknownPreset(preset: string): WorkbenchError {
  return new WorkbenchError(
    'INVALID_INPUT',
    `memory: unknown preset "${preset}" (presets: ${memoryPresetNames().join(', ') || 'none'})`,
    { path: ['memory', 'preset'] },
  );
}

function definitionOf(preset: string): MemoryPresetDefinition {
  const definition = definitions.get(preset);
  if (!definition) throw unknownPreset(preset);
  return definition;
}

/**
 * Checks a preset name and its config against the preset's schema; the error's path starts at the
 * experiment config (`memory.config.topK`), so every caller (CLI, service, UI) can point at it.
 */
export function validateMemoryConfig(preset: string, config: unknown, what: string): void {
  const result = definitionOf(preset).configSchema.safeParse(config ?? {});
  if (!result.success) throw zodError(result.error, what, ['memory', 'config']);
}

/**
 * Every problem of a preset config under the preset's schema, each with its path from the
 * experiment config (`memory.config.candidates`): the Experiments form's inline check.
 */
export function memoryConfigProblems(
  preset: string,
  config: unknown,
): Array<{ path: string; message: string }> {
  const result = definitionOf(preset).configSchema.safeParse(config ?? {});
  if (result.success) return [];
  return result.error.issues.map((issue) => ({
    path: ['memory', 'config', ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
}

/**
 * Refuses a config its caller may not use (a command from a browser page or a Redis job, a socket
 * outside the caller's folders) without connecting to anything. Unknown presets pass: the
 * preset's schema check names them.
 */
export function checkMemoryCaller(name: string, config: unknown, caller: CallerTrust): void {
  definitions.get(name)?.check?.(config, caller);
}

/** The preset's pre-run check and provenance; null for presets without one (or unknown ones). */
export async function prepareMemoryPreset(
  name: string,
  config: unknown,
  caller: MemoryCaller,
): Promise<MemoryServiceRecord | null> {
  checkMemoryCaller(name, config, caller);
  const prepare = definitions.get(name)?.prepare;
  return prepare ? prepare(config, caller) : null;
}

export function memoryPresetNames(): string[] {
  return [...definitions.keys()];
}

/** The preset's LLM stage, or null when it has none (a memory LLM would go unused). */
export function memoryPresetLlmStage(name: string): string | null {
  return definitions.get(name)?.llmStage ?? null;
}

export async function createMemoryService(
  preset: string,
  config: unknown,
  ctx: MemoryServiceContext,
): Promise<MemoryService> {
  return definitionOf(preset).create(config, ctx);
}
