import {
  DEFAULT_LLM_CONCURRENCY,
  DEFAULT_RUN_CONCURRENCY,
  type ExperimentConfig,
} from '../../../src-shared/experiment';
import { availableParallelism } from 'node:os';
import { CallBudget, cappedPauseMessage, type EndpointLimits } from '../http/callBudget';
import type { RunDataset } from './runDataset';

/**
 * How much of the run's LLM work may be in flight at once, read from its config: the questions a
 * test answers together, the shared request budget and each endpoint's per-minute caps. The
 * runner, the sample loop and distributed sweeps size their budgets from these.
 */

/**
 * The run's requests in flight per endpoint (and questions of a test answered at once):
 * `concurrency`, or DEFAULT_RUN_CONCURRENCY when the answerer is an LLM; undefined: one at a time.
 */
export function runConcurrency(config: ExperimentConfig): number | undefined {
  if (config.concurrency !== undefined) return config.concurrency;
  return answersRemotely(config) ? DEFAULT_RUN_CONCURRENCY : undefined;
}

/** The run's answers wait on an endpoint, not on this machine's cores. */
export function answersRemotely(config: ExperimentConfig): boolean {
  return config.answerer.kind === 'llm';
}

/**
 * Requests in flight per endpoint for the run's shared budget: `runConcurrency`, or the default
 * client concurrency when only a requests-per-minute cap asks for one; undefined: no budget.
 */
export function runBudgetLimit(config: ExperimentConfig): number | undefined {
  const concurrency = runConcurrency(config);
  if (concurrency !== undefined) return concurrency;
  const capped = (e: EndpointCaps | undefined): boolean =>
    e?.requestsPerMinute !== undefined || e?.tokensPerMinute !== undefined;
  return capped(config.answerer.kind === 'llm' ? config.answerer : undefined) ||
    capped(config.memory.llm)
    ? DEFAULT_LLM_CONCURRENCY
    : undefined;
}

type EndpointCaps = { baseUrl: string } & EndpointLimits;

/**
 * Each endpoint's requests- and tokens-per-minute caps by base URL (the lower one when two roles
 * share it).
 */
export function endpointLimitsOf(config: ExperimentConfig): Map<string, EndpointLimits> {
  return endpointLimitsFor([
    config.answerer.kind === 'llm' ? config.answerer : undefined,
    config.memory.llm,
  ]);
}

/** The caps of the given endpoints by base URL; two roles at one URL get the lower of each. */
export function endpointLimitsFor(
  endpoints: ReadonlyArray<EndpointCaps | undefined>,
): Map<string, EndpointLimits> {
  const limits = new Map<string, EndpointLimits>();
  const lower = (a: number | undefined, b: number | undefined): number | undefined =>
    a === undefined ? b : b === undefined ? a : Math.min(a, b);
  for (const e of endpoints) {
    if (!e || (e.requestsPerMinute === undefined && e.tokensPerMinute === undefined)) continue;
    const before = limits.get(e.baseUrl);
    const rpm = lower(before?.requestsPerMinute, e.requestsPerMinute);
    const tpm = lower(before?.tokensPerMinute, e.tokensPerMinute);
    limits.set(e.baseUrl, {
      ...(rpm !== undefined ? { requestsPerMinute: rpm } : {}),
      ...(tpm !== undefined ? { tokensPerMinute: tpm } : {}),
    });
  }
  return limits;
}

/**
 * The run's one request budget (absent when nothing answers remotely). A Retry-After longer than
 * the retry policy's cap pauses its endpoint for the cap, and `warn` says so (the run's warnings).
 */
export function runBudgetOf(
  config: ExperimentConfig,
  warn: (message: string) => void,
): CallBudget | undefined {
  const limit = runBudgetLimit(config);
  if (limit === undefined) return undefined;
  return new CallBudget(limit, endpointLimitsOf(config), Date.now, undefined, {
    onCapped: (endpoint, askedMs, capMs) => warn(cappedPauseMessage(endpoint, askedMs, capMs)),
  });
}

/**
 * Samples run at once: what the config asks, at most one per sample, and at most one per core
 * unless the answers are remote (an LLM run's lanes wait on the endpoint, not on a core).
 */
export function effectiveParallel(requested: number, samples: number, remote = false): number {
  const cores = remote ? requested : availableParallelism();
  return Math.max(1, Math.min(requested, cores, samples));
}

/**
 * Samples handed out at once. A streamed file's samples are in memory (or in Redis) while they
 * run, so an executor that takes every sample at once (distributed) gets as many as the config's
 * `parallel` or this machine's cores there, not the whole file.
 */
export function lanesFor(
  // Structural, not SampleExecutor: executors.ts reaches this file through runSample (no cycle).
  executor: { parallelFor?(requested: number, samples: number): number },
  config: ExperimentConfig,
  samples: number,
  dataset: RunDataset,
): number {
  const lanes = executor.parallelFor
    ? executor.parallelFor(config.parallel, samples)
    : effectiveParallel(config.parallel, samples, answersRemotely(config));
  if (dataset.samples !== null) return lanes;
  return Math.min(lanes, Math.max(config.parallel, availableParallelism()));
}
