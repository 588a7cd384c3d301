import { describe, expect, it } from 'vitest';
import {
  runConformance,
  type ConformanceReport,
} from '../../src-main/core/memory/external/conformance';
import { bm25Service } from '../support/bm25-service';
import { PYTHON, startHttpService } from '../support/memory-services';
import { REPO } from '../support/cli';

/**
 * `memory-check` against services that are weak in the ways the issue names, each one broken on
 * purpose: results in no order, a reply that breaks the schema once and for all, indexing in the
 * background within the allowed lag, and a plain Python http.server that is slow for known reasons.
 */

const statusOf = (report: ConformanceReport): Record<string, string> =>
  Object.fromEntries(report.checks.map((c) => [c.id, c.status]));

describe('memory-check catches a weak service', () => {
  it('results in no order: the best-first check fails', async () => {
    // Worst first, scores and all: what a service returning a set in arbitrary order looks like.
    const service = await bm25Service({ order: (items) => [...items].reverse() });
    try {
      const report = await runConformance({ url: service.url }, { lagLimitMs: 2000 });
      const best = report.checks.find((c) => c.id === 'best-first');
      expect(best?.status).toBe('fail');
      expect(best?.detail).toMatch(
        /items\[\d\] scores [\d.]+ after items\[\d\]'s [\d.]+: the answerer reads the first items/,
      );
      expect(report.passed).toBe(false);
    } finally {
      await service.stop();
    }
  });

  it('a reply that breaks the schema is one FAIL, the checks after it skipped with its cause', async () => {
    const service = await bm25Service({
      order: (items) => items.map((i) => ({ ...i, dia_ids: i.dia_ids.join(',') })),
    });
    try {
      const report = await runConformance({ url: service.url }, { lagLimitMs: 2000 });
      const failed = report.checks.filter((c) => c.status === 'fail');
      expect(failed.map((c) => c.id)).toEqual(['top-k']);
      expect(failed[0]?.detail).toContain(
        'retrieve replied with an invalid result: items[0].dia_ids',
      );
      const status = statusOf(report);
      for (const id of [
        'speakers',
        'best-first',
        'dates',
        'concurrency',
        'indexing-lag',
        'dia-ids',
        'deadlines',
      ])
        expect(status[id], id).toBe('skip');
      expect(report.checks.find((c) => c.id === 'speakers')?.detail).toMatch(
        /^not checked: top-k failed first \(UPSTREAM: .*retrieve replied with an invalid result/,
      );
      // Checks that read no retrieved items still run.
      expect(status['unknown-session']).toBe('pass');
      expect(status['close']).toBe('pass');
    } finally {
      await service.stop();
    }
  });

  it('a service that indexes in the background within the allowed lag keeps both speakers', async () => {
    const service = await bm25Service({ indexAfterMs: 400 });
    try {
      const report = await runConformance({ url: service.url }, { lagLimitMs: 3000 });
      const speakers = report.checks.find((c) => c.id === 'speakers');
      expect(speakers?.status).toBe('pass');
      expect(speakers?.detail).toMatch(
        /ms after the last insert, within the 3000 ms indexing lag allowed/,
      );
      expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
      expect(report.indexingLagMs).toBeGreaterThanOrEqual(400);
    } finally {
      await service.stop();
    }
  });

  const plainServer = `${REPO}tests/fixtures/memory-services/plain_http_server.py`;

  it('a plain Python http.server with Nagle on: passes, with a warning naming the cause and the fix', async () => {
    const service = await startHttpService([PYTHON, plainServer]);
    try {
      const report = await runConformance({ url: service.url });
      expect(report.passed).toBe(true);
      const speed = report.checks.find((c) => c.id === 'speed');
      expect(speed?.status).toBe('warn');
      expect(speed?.detail).toMatch(/^p50 \d+\.\d ms per call on loopback \(over 10 ms/);
      expect(speed?.detail).toContain("Nagle's algorithm meeting delayed ACK");
      expect(speed?.detail).toContain('disable_nagle_algorithm = True');
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('a single-threaded http.server: a warning that parallel lanes wait for each other', async () => {
    const service = await startHttpService([PYTHON, plainServer], ['--serial']);
    try {
      const report = await runConformance({ url: service.url });
      expect(report.passed).toBe(true);
      const speed = report.checks.find((c) => c.id === 'speed');
      expect(speed?.status).toBe('warn');
      expect(speed?.detail).toMatch(
        /16 concurrent retrieves took \d+ ms against [\d.]+ ms for one/,
      );
      expect(speed?.detail).toContain('ThreadingHTTPServer instead of HTTPServer');
    } finally {
      await service.stop();
    }
  }, 60_000);
});
