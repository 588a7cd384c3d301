import { WorkbenchError } from '../../../../src-shared/errors';
import type { HelloResult } from '../../../../src-shared/memory-protocol';
import { describeError } from '../../timeout';

/**
 * How `memory-check` judges and words what it saw: the report's types, the speed verdict and the
 * hint that names each root cause and its fix. The probes themselves are in conformance.ts.
 */

export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip';

export interface CheckResult {
  id: string;
  title: string;
  status: CheckStatus;
  detail: string;
}

export interface ConformanceReport {
  where: string;
  hello: HelloResult | null;
  checks: CheckResult[];
  /** Milliseconds until a freshly inserted fact was retrievable; null when it never was. */
  indexingLagMs: number | null;
  passed: boolean;
}

/** Above this p50 a local call is slow: a plain in-process call takes well under 1 ms. */
export const SLOW_LOOPBACK_P50_MS = 10;

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/**
 * A reply the client refused (it did not match the schema, or was too large): every later call of
 * the same method fails the same way.
 */
export function isReplyRefused(error: unknown): boolean {
  // A refused reply names the bad field after the method; a service's own coded error only the method.
  return (
    error instanceof WorkbenchError && error.code === 'UPSTREAM' && (error.path?.length ?? 0) > 1
  );
}

const isTimeout = (error: unknown): boolean =>
  error instanceof WorkbenchError && error.code === 'TIMEOUT';

/** The failure, then what it most likely means and how to fix it. */
export function withHint(error: unknown, method: string, deadlineMs: number): string {
  const text = describeError(error);
  if (isReplyRefused(error))
    return `${text}. Fix: make every ${method} reply match the protocol's schema (npm run -s cli -- memory-check --schema)`;
  if (isTimeout(error))
    return `${text}. Cause: ${method} did not answer within ${deadlineMs} ms, as an experiment would wait. Fix: make ${method} faster, or raise the deadline (--answer-timeout-ms / --insert-timeout-ms) if it really needs that long`;
  if (text.includes(' failed: '))
    return `${text}. Cause: the service returned a coded error to a well-formed ${method}. Fix: the service's own log says why`;
  return `${text}. Cause: the connection failed, not the protocol. Fix: check the service is running and stays up`;
}

/**
 * A local service is slow for reasons with known fixes. Over HTTP: ~40 ms per call is Nagle's
 * algorithm meeting the client's delayed ACK (headers and body written apart), a new connection
 * per call adds more; a single-threaded server answers parallel lanes one at a time. Over stdio
 * there is no socket to blame: the service's own work per call is slow.
 */
export function speedVerdict(
  transport: 'http' | 'stdio',
  sequential: readonly number[],
  burstMs: number | null,
  concurrency: number,
  slowCallMs: number,
): [CheckStatus, string] {
  const p50 = percentile(sequential, 50);
  const problems: string[] = [];
  const cost = `a full LoCoMo run makes ~15,000 calls, so ${((p50 * 15_000) / 3_600_000).toFixed(1)} h in calls alone`;
  if (p50 > slowCallMs && transport === 'http') {
    problems.push(
      `p50 ${p50.toFixed(1)} ms per call on loopback (over ${slowCallMs} ms; ${cost}): usually Nagle's algorithm meeting delayed ACK, or a new connection per call. Set TCP_NODELAY on the socket (Python http.server: disable_nagle_algorithm = True on the handler), keep connections alive (protocol_version = "HTTP/1.1"), or use stdio (--command)`,
    );
  } else if (p50 > slowCallMs) {
    problems.push(
      `p50 ${p50.toFixed(1)} ms per call over stdio (over ${slowCallMs} ms; ${cost}): the service's own work per call is slow, not the pipe. Profile one insert and one retrieve: load models and indexes once at start-up, not per call; embed in batches; flush stdout once per reply`,
    );
  }
  // Lanes served one at a time take about concurrency × one call; side by side, far less. Over
  // stdio one process reads one pipe: one at a time is how it works, not a fault.
  if (transport === 'http' && burstMs !== null && p50 > 1 && burstMs > 0.5 * concurrency * p50) {
    problems.push(
      `${concurrency} concurrent retrieves took ${Math.round(burstMs)} ms against ${p50.toFixed(1)} ms for one, as long as at least half of them one after another: the server answers one request at a time, so --parallel lanes wait for each other. Serve requests concurrently (Python: ThreadingHTTPServer instead of HTTPServer)`,
    );
  }
  if (problems.length > 0) return ['warn', problems.join('; ')];
  return [
    'pass',
    `p50 ${p50.toFixed(1)} ms per call${burstMs !== null ? `; ${concurrency} concurrent retrieves in ${Math.round(burstMs)} ms` : ''}`,
  ];
}

/** The readable report: one line per check, then the verdict. */
export function formatConformance(report: ConformanceReport): string {
  const mark: Record<CheckStatus, string> = {
    pass: 'PASS',
    fail: 'FAIL',
    warn: 'WARN',
    skip: 'SKIP',
  };
  const lines = [
    `memory service ${report.where}${report.hello ? `: ${report.hello.name} ${report.hello.version} (${report.hello.protocol})` : ''}`,
    '',
  ];
  for (const c of report.checks) lines.push(`${mark[c.status]}  ${c.title}\n      ${c.detail}`);
  const failed = report.checks.filter((c) => c.status === 'fail').length;
  lines.push(
    '',
    `indexing lag: ${report.indexingLagMs === null ? 'not measured' : `${report.indexingLagMs} ms`}`,
    report.passed
      ? `conformance: passed (${report.checks.length} checks)`
      : `conformance: FAILED (${failed} of ${report.checks.length} checks failed)`,
    '',
  );
  return lines.join('\n');
}
