import { describe, expect, it } from 'vitest';
import {
  runConformance,
  type CheckResult,
  type ConformanceReport,
} from '../../src-main/core/memory/external/conformance';
import { bm25Service } from '../support/bm25-service';
import { PYTHON, startHttpService } from '../support/memory-services';
import { REPO } from '../support/cli';

/**
 * The faults `memory-check` used to miss (issue 35), each in a service broken on purpose: every one
 * is exactly one FAIL (or, for a slow service, one WARN) whose detail names the cause and the fix,
 * and the checks that depend on it are skipped with that cause instead of failing again.
 */

const failures = (report: ConformanceReport): CheckResult[] =>
  report.checks.filter((c) => c.status === 'fail');
const check = (report: ConformanceReport, id: string): CheckResult | undefined =>
  report.checks.find((c) => c.id === id);

describe('memory-check: one fault, one root-cause FAIL with its fix', () => {
  it('a ranking that orders ties at random fails stable-ranking, and only it', async () => {
    const service = await bm25Service({ shuffleTies: true });
    try {
      const report = await runConformance({ url: service.url }, { lagLimitMs: 2000 });
      expect(failures(report).map((c) => c.id)).toEqual(['stable-ranking']);
      expect(check(report, 'stable-ranking')?.detail).toMatch(
        /^3 identical retrieves gave [23] different rankings \(\[D1:\d+/,
      );
      expect(check(report, 'stable-ranking')?.detail).toContain(
        'Fix: break ties by a fixed key (insertion order or dia_id)',
      );
      // The one-turn probes cannot see it: they still pass.
      expect(check(report, 'best-first')?.status).toBe('pass');
    } finally {
      await service.stop();
    }
  });

  it('a top_k overflow behind indexing lag: top-k waits for the index and fails', async () => {
    const service = await bm25Service({ indexAfterMs: 400, overflowBy: 5 });
    try {
      const report = await runConformance({ url: service.url }, { lagLimitMs: 3000 });
      expect(failures(report).map((c) => c.id)).toEqual(['top-k']);
      expect(check(report, 'top-k')?.detail).toMatch(
        /^asked for 3, got 8 \(12 turns match\).*Fix: cut the ranked list to top_k/,
      );
    } finally {
      await service.stop();
    }
  });

  it('SERVICE_ERROR for a session never opened fails unknown-session, naming UNKNOWN_SESSION', async () => {
    const service = await bm25Service({ unknownSessionCode: 'SERVICE_ERROR' });
    try {
      const report = await runConformance({ url: service.url }, { lagLimitMs: 2000 });
      expect(failures(report).map((c) => c.id)).toEqual(['unknown-session']);
      expect(check(report, 'unknown-session')?.detail).toContain(
        'got SERVICE_ERROR, not UNKNOWN_SESSION',
      );
      expect(check(report, 'unknown-session')?.detail).toContain(
        'Fix: reply {"error": {"code": "UNKNOWN_SESSION", …}}',
      );
    } finally {
      await service.stop();
    }
  });

  it('a retrieve that always errors is one FAIL; the checks that read retrieved items are skipped with it', async () => {
    const service = await bm25Service({ retrieveErrorCode: 'SERVICE_ERROR' });
    try {
      const report = await runConformance({ url: service.url }, { lagLimitMs: 2000 });
      expect(failures(report).map((c) => c.id)).toEqual(['top-k']);
      expect(check(report, 'top-k')?.detail).toMatch(
        /retrieve failed: SERVICE_ERROR: index unavailable\. Cause: the service returned a coded error/,
      );
      for (const id of ['speakers', 'best-first', 'stable-ranking', 'dates', 'concurrency'])
        expect(check(report, id)?.detail, id).toMatch(/^not checked: top-k failed first/);
      for (const id of ['indexing-lag', 'dia-ids', 'deadlines', 'speed'])
        expect(check(report, id)?.status, id).toBe('skip');
      expect(check(report, 'unknown-session')?.status).toBe('pass');
    } finally {
      await service.stop();
    }
  });

  const plainServer = `${REPO}tests/fixtures/memory-services/plain_http_server.py`;

  it('a single-threaded keep-alive HTTP server: one concurrency FAIL naming the cause, no speed PASS', async () => {
    const service = await startHttpService([PYTHON, plainServer], ['--serial', '--keep-alive']);
    try {
      // The lanes the one thread never reaches wait out this deadline.
      const report = await runConformance({ url: service.url }, { answerTimeoutMs: 1500 });
      expect(failures(report).map((c) => c.id)).toEqual(['concurrency']);
      const detail = check(report, 'concurrency')?.detail ?? '';
      expect(detail).toMatch(/^\d+ of 16 concurrent retrieves failed \(TIMEOUT: /);
      expect(detail).toContain('serves one connection at a time and keeps the first one alive');
      expect(detail).toContain('ThreadingHTTPServer instead of HTTPServer');
      expect(check(report, 'speed')?.status).toBe('skip');
      expect(check(report, 'deadlines')?.detail).toMatch(
        /^not judged again: calls timed out in concurrency/,
      );
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('a slow service over stdio: passes, with a speed warning naming the cause and the fix', async () => {
    const slow = `${PYTHON} ${REPO}tests/fixtures/memory-services/slow_stdio_service.py --delay-ms 30`;
    const report = await runConformance({ command: slow });
    expect(failures(report)).toEqual([]);
    const speed = check(report, 'speed');
    expect(speed?.status).toBe('warn');
    expect(speed?.detail).toMatch(/^p50 \d+\.\d ms per call over stdio \(over 10 ms/);
    expect(speed?.detail).toContain('load models and indexes once at start-up');
  }, 60_000);
});
