import {
  DEFAULT_ANSWER_TIMEOUT_MS,
  DEFAULT_INSERT_TIMEOUT_MS,
} from '../../../../src-shared/experiment';
import { WorkbenchError } from '../../../../src-shared/errors';
import type { HelloResult, MemoryItem } from '../../../../src-shared/memory-protocol';
import { describeError, withTimeout } from '../../timeout';
import {
  isReplyRefused,
  percentile,
  SLOW_LOOPBACK_P50_MS,
  speedVerdict,
  withHint,
  type CheckResult,
  type CheckStatus,
  type ConformanceReport,
} from './conformance-verdicts';
import {
  lagPacket,
  SESSION_1,
  SESSION_2,
  SMALL_TOP_K,
  SPEAKERS,
  syntheticPackets,
  WEATHER_TURNS,
} from './conformance-conversation';
import {
  DEFAULT_CONTROL_TIMEOUT_MS,
  MemoryProtocolClient,
  openTransport,
  type ServiceEndpoint,
} from './client';

/**
 * The conformance suite (`cli memory-check`): a small synthetic conversation fed to a memory
 * service, then the questions the field argues about when systems are compared. Does it honour
 * top_k, keep both speakers' turns, date memories by the conversation's clock rather than the wall
 * clock, cite dia_ids that exist, survive concurrent retrieves, keep within the run's deadlines,
 * and how soon is an inserted fact retrievable?
 */

export type { CheckResult, CheckStatus, ConformanceReport } from './conformance-verdicts';
export { formatConformance, SLOW_LOOPBACK_P50_MS } from './conformance-verdicts';

export interface ConformanceOptions {
  insertTimeoutMs?: number;
  answerTimeoutMs?: number;
  /** How long the indexing-lag probe waits for a fact to become retrievable. */
  lagLimitMs?: number;
  /** Retrieves fired at once in the concurrency check. */
  concurrency?: number;
  /** A loopback HTTP service slower than this per call (p50) gets a warning with the likely cause. */
  slowCallMs?: number;
  now?: () => number;
}

const sourced = (items: readonly MemoryItem[], diaId: string): MemoryItem | undefined =>
  items.find((item) => item.dia_ids.includes(diaId));

/** How long the lag check waits for an inserted fact to be retrievable (`--lag-limit-ms`). */
export const DEFAULT_LAG_LIMIT_MS = 10_000;
/** Identical retrieves compared, and how many items each ranks (a ranking, not one hit). */
const ASK_AGAIN = 3;
const STABLE_TOP_K = 8;

/** The first failure later checks depend on: they are skipped with it, not failed again. */

interface RootCause {
  check: string;
  reason: string;
}

export async function runConformance(
  endpoint: ServiceEndpoint,
  options: ConformanceOptions = {},
): Promise<ConformanceReport> {
  const insertMs = options.insertTimeoutMs ?? DEFAULT_INSERT_TIMEOUT_MS;
  const answerMs = options.answerTimeoutMs ?? DEFAULT_ANSWER_TIMEOUT_MS;
  const lagLimitMs = options.lagLimitMs ?? DEFAULT_LAG_LIMIT_MS;
  const concurrency = options.concurrency ?? 16;
  const slowCallMs = options.slowCallMs ?? SLOW_LOOPBACK_P50_MS;
  const now = options.now ?? (() => performance.now());
  const checks: CheckResult[] = [];
  const report = (id: string, title: string, status: CheckStatus, detail: string): void => {
    checks.push({ id, title, status, detail });
  };
  const client = new MemoryProtocolClient(openTransport(endpoint));
  const result: ConformanceReport = {
    where: client.where,
    hello: null,
    checks,
    indexingLagMs: null,
    passed: false,
  };
  /** Checks that failed on a timeout: the deadlines check names them instead of failing again. */
  const timedOutIn = new Set<string>();
  const insertLatencies: number[] = [];
  const retrieveLatencies: number[] = [];
  /** Calls made one at a time (what a lane waits per call), apart from the concurrent burst. */
  const sequentialLatencies: number[] = [];
  /**
   * The first failure the later checks depend on (inserts that failed, a retrieve that failed when
   * asked alone): the checks that read retrieved items are skipped with it, so one cause is one FAIL.
   */
  // Cast: it is set inside closures, which TypeScript's narrowing of a `let` does not see.
  let brokenRetrieve = null as RootCause | null;
  /** Concurrent retrieves failed: the speed check cannot judge the burst it never saw. */
  let brokenBurst = null as RootCause | null;
  const retrieveMethod = (): string =>
    result.hello?.capabilities.retrieve ? 'retrieve' : 'answer';
  let currentCheck = '';
  const seenDiaIds = new Set<string>();
  const inserted = new Set<string>();
  try {
    // ---- hello and open: without them nothing else can run ----
    let hello: HelloResult;
    try {
      hello = (await client.hello(DEFAULT_CONTROL_TIMEOUT_MS)).hello;
      result.hello = hello;
      report(
        'hello',
        'hello names the protocol, the service and its capabilities',
        'pass',
        `${hello.name} ${hello.version}: retrieve ${hello.capabilities.retrieve}, answer ${hello.capabilities.answer}, reset ${hello.capabilities.reset}`,
      );
    } catch (error) {
      report(
        'hello',
        'hello names the protocol, the service and its capabilities',
        'fail',
        describeError(error),
      );
      return result;
    }
    let session: string;
    try {
      session = (
        await withTimeout('open', DEFAULT_CONTROL_TIMEOUT_MS, (s) =>
          client.call('open', { sample_id: 'conformance', speakers: SPEAKERS, config: {} }, s),
        )
      ).session;
      report('open', 'open starts a conversation', 'pass', `session ${session}`);
    } catch (error) {
      report('open', 'open starts a conversation', 'fail', describeError(error));
      return result;
    }

    // ---- insert the conversation under the run's insert deadline ----
    const packets = syntheticPackets();
    let insertFailure: string | null = null;
    for (const packet of packets) {
      const t0 = now();
      try {
        await withTimeout(`insert of packet ${packet.packet_idx}`, insertMs, (s) =>
          client.call('insert', { session, packet }, s),
        );
        insertLatencies.push(now() - t0);
        sequentialLatencies.push(now() - t0);
        for (const t of packet.turns) inserted.add(t.dia_id);
      } catch (error) {
        if (error instanceof WorkbenchError && error.code === 'TIMEOUT') timedOutIn.add('insert');
        insertFailure ??= withHint(error, 'insert', insertMs);
      }
    }
    if (insertFailure !== null) brokenRetrieve = { check: 'insert', reason: insertFailure };
    report(
      'insert',
      `every insert succeeds within the insert deadline (${insertMs} ms)`,
      insertFailure === null ? 'pass' : 'fail',
      insertFailure ??
        `${packets.length} packets, p50 ${percentile(insertLatencies, 50).toFixed(1)} ms, max ${Math.max(...insertLatencies).toFixed(1)} ms`,
    );

    const retrieve = async (
      question: string,
      topK: number,
      alone = true,
    ): Promise<MemoryItem[]> => {
      const t0 = now();
      const items = await retrieveOnce(question, topK).catch((error: unknown) => {
        // Asked alone, a failed retrieve fails every later one the same way; a refused reply too
        // in a burst. Other failures in a burst are the concurrency check's own finding.
        if (alone || isReplyRefused(error))
          brokenRetrieve ??= { check: currentCheck, reason: describeError(error) };
        throw error;
      });
      retrieveLatencies.push(now() - t0);
      if (alone) sequentialLatencies.push(now() - t0);
      for (const item of items) for (const id of item.dia_ids) seenDiaIds.add(id);
      return items;
    };
    const retrieveOnce = async (question: string, topK: number): Promise<MemoryItem[]> =>
      hello.capabilities.retrieve
        ? (
            await withTimeout(`retrieve "${question}"`, answerMs, (s) =>
              client.call(
                'retrieve',
                { session, question, top_k: topK, question_date: SESSION_2.at },
                s,
              ),
            )
          ).items
        : ((
            await withTimeout(`answer "${question}"`, answerMs, (s) =>
              client.call(
                'answer',
                { session, question, top_k: topK, question_date: SESSION_2.at, category: 4 },
                s,
              ),
            )
          ).items ?? []);
    const guarded = async (
      id: string,
      title: string,
      body: () => Promise<[CheckStatus, string]>,
      readsRetrieved = true,
      method = retrieveMethod(),
      deadlineMs = answerMs,
    ): Promise<void> => {
      currentCheck = id;
      const broken = brokenRetrieve;
      if (broken !== null && readsRetrieved) {
        report(id, title, 'skip', `not checked: ${broken.check} failed first (${broken.reason})`);
        return;
      }
      try {
        const [status, detail] = await body();
        report(id, title, status, detail);
      } catch (error) {
        if (error instanceof WorkbenchError && error.code === 'TIMEOUT') timedOutIn.add(id);
        report(id, title, 'fail', withHint(error, method, deadlineMs));
      }
    };
    /** Sleeps between polls of a service that indexes in the background. */
    const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
    const insertsDoneAt = now();

    // ---- top_k ----
    await guarded('top-k', 'never returns more items than top_k', async () => {
      const counts: string[] = [];
      for (const k of [SMALL_TOP_K, 1]) {
        // A service indexing in the background returns fewer items at first: an overflow only
        // shows once the matching turns are in, so ask again until k come back or the lag is over.
        let items = await retrieve('How was the weather?', k);
        while (items.length < k && now() - insertsDoneAt <= lagLimitMs) {
          await pause(50);
          items = await retrieve('How was the weather?', k);
        }
        counts.push(`top_k ${k}: ${items.length}`);
        if (items.length > k)
          return [
            'fail',
            `asked for ${k}, got ${items.length} (${WEATHER_TURNS} turns match): the run's context budget and every @k metric assume at most top_k. Fix: cut the ranked list to top_k before replying`,
          ];
      }
      return ['pass', counts.join(', ')];
    });

    // ---- both speakers ----
    let parrotItem: MemoryItem | undefined;
    // A service may index in the background: like the lag probe, it has lagLimitMs to catch up.
    await guarded('speakers', "keeps both speakers' turns", async () => {
      for (;;) {
        const alice = await retrieve('What is the name of the parrot Alice adopted?', 5);
        const bob = await retrieve("Which instrument does Bob's sister Marguerite play?", 5);
        parrotItem = sourced(alice, 'D1:1');
        const missing: string[] = [];
        if (!parrotItem) missing.push("Alice's D1:1 (the parrot)");
        if (!sourced(bob, 'D1:2')) missing.push("Bob's D1:2 (the violin)");
        const waited = now() - insertsDoneAt;
        if (missing.length === 0) {
          return [
            'pass',
            `Alice's D1:1 and Bob's D1:2 both retrieved${waited > 100 ? ` (${Math.round(waited)} ms after the last insert, within the ${lagLimitMs} ms indexing lag allowed)` : ''}`,
          ];
        }
        if (waited > lagLimitMs)
          return [
            'fail',
            `not retrieved ${Math.round(waited)} ms after the last insert: ${missing.join(', ')}`,
          ];
        await pause(50);
      }
    });

    // ---- best first ----
    await guarded('best-first', 'returns items best first', async () => {
      // Each question has exactly one turn that answers it; a ranker puts it first.
      const probes = [
        { question: 'What is the name of the parrot Alice adopted?', diaId: 'D1:1' },
        { question: "Which instrument does Bob's sister Marguerite play?", diaId: 'D1:2' },
      ];
      const misses: string[] = [];
      for (const probe of probes) {
        const items = await retrieve(probe.question, 5);
        const rising = items.findIndex((item, i) => i > 0 && item.score > items[i - 1]!.score);
        if (rising > 0)
          return [
            'fail',
            `items[${rising}] scores ${items[rising]!.score} after items[${rising - 1}]'s ${items[rising - 1]!.score}: the answerer reads the first items and an equal-context budget keeps them, so return them best first`,
          ];
        const rank = items.findIndex((item) => item.dia_ids.includes(probe.diaId));
        if (rank > 0) misses.push(`${probe.diaId} at rank ${rank + 1} of ${items.length}`);
      }
      if (misses.length === probes.length)
        return [
          'fail',
          `the one turn that answers each question is not first (${misses.join(', ')}): results look unordered`,
        ];
      if (misses.length > 0) return ['warn', `not first: ${misses.join(', ')}`];
      return ['pass', 'scores never rise, and the answering turn comes first'];
    });

    // ---- the same question, the same ranking ----
    let rankingUnstable = false;
    await guarded(
      'stable-ranking',
      'ranks the same way when asked the same question again',
      async () => {
        // The weather turns all match and tie for a sparse retriever: the best-first probes match one
        // turn each and cannot see a tie broken at random, a ranking over several items can.
        const asked = ASK_AGAIN;
        const rankings: string[] = [];
        for (let i = 0; i < asked; i++)
          rankings.push(
            (await retrieve('How was the weather?', STABLE_TOP_K))
              .map((item) => item.dia_ids.join('+'))
              .join(', '),
          );
        const distinct = new Set(rankings);
        if (distinct.size === 1)
          return ['pass', `${asked} times the same ${STABLE_TOP_K} items in the same order`];
        rankingUnstable = true;
        const [first, other] = [...distinct];
        return [
          'fail',
          `${asked} identical retrieves gave ${distinct.size} different rankings ([${first}] then [${other}]): equal scores are ordered at random (or the ranker samples), so no run can be repeated and @k metrics move between runs. Fix: break ties by a fixed key (insertion order or dia_id) and seed any sampling`,
        ];
      },
    );

    // ---- session dates, not the wall clock ----
    await guarded(
      'dates',
      "dates memories by the session's date-time, not the wall clock",
      async () => {
        if (!parrotItem) return ['skip', 'D1:1 was not retrieved, so its date cannot be checked'];
        const year = String(new Date().getFullYear());
        const date = parrotItem.date_time ?? null;
        if (date !== null) {
          if (date.startsWith('2019-03-14')) return ['pass', `D1:1 dated ${date}`];
          return [
            'fail',
            `D1:1 dated ${date}, inserted as ${SESSION_1.at}${date.startsWith(year) ? ' (the wall clock?)' : ''}`,
          ];
        }
        if (parrotItem.text.includes('2019'))
          return ['pass', 'D1:1 carries its 2019 date in its text'];
        if (parrotItem.text.includes(year))
          return ['fail', `D1:1's text names ${year}, not 2019: the wall clock?`];
        return [
          'warn',
          'D1:1 comes back without a date (no date_time, no date in the text): temporal questions cannot be answered from it',
        ];
      },
    );

    // ---- concurrency ----
    let burstMs: number | null = null;
    await guarded('concurrency', `survives ${concurrency} concurrent retrieves`, async () => {
      const questions = Array.from({ length: concurrency }, (_, i) =>
        i % 2 === 0 ? 'What is the parrot called?' : 'Where does Marguerite play the violin?',
      );
      const sequential = [
        await retrieve(questions[0] as string, 5),
        await retrieve(questions[1] as string, 5),
      ];
      const alone = percentile(sequentialLatencies, 50);
      const burst = async (): Promise<MemoryItem[][] | [CheckStatus, string]> => {
        const settled = await Promise.allSettled(questions.map((q) => retrieve(q, 5, false)));
        const failed = settled.filter((r) => r.status === 'rejected');
        if (failed.length === 0)
          return settled.map((r) => (r as PromiseFulfilledResult<MemoryItem[]>).value);
        const reason: unknown = failed[0]?.reason;
        const timedOut = reason instanceof WorkbenchError && reason.code === 'TIMEOUT';
        if (timedOut) timedOutIn.add('concurrency');
        brokenBurst = { check: 'concurrency', reason: describeError(reason) };
        return [
          'fail',
          `${failed.length} of ${concurrency} concurrent retrieves failed (${describeError(reason)}) while one at a time they answered in ${alone.toFixed(1)} ms (p50)${
            timedOut && endpoint.url !== undefined
              ? `: the server serves one connection at a time and keeps the first one alive, so the other lanes wait until their deadline. Fix: serve connections concurrently (Python: ThreadingHTTPServer instead of HTTPServer), or close each connection after its reply (HTTP/1.0)`
              : `: the service cannot serve --parallel lanes. Fix: serve requests concurrently, or run with --parallel 1`
          }`,
        ];
      };
      // Twice: the first burst opens the connections (a small listen backlog drops some SYNs,
      // retried after 1 s); the second, on kept-alive connections, shows how requests are served.
      const warmed = await burst();
      if (!Array.isArray(warmed[0])) return warmed as [CheckStatus, string];
      const burstStart = now();
      const parallel = await burst();
      if (!Array.isArray(parallel[0])) return parallel as [CheckStatus, string];
      burstMs = now() - burstStart;
      const key = (items: MemoryItem[]): string => items.map((i) => i.dia_ids.join('+')).join(',');
      if (rankingUnstable)
        return [
          'skip',
          `${concurrency} at once answered; not compared with one at a time: stable-ranking failed first (the same question asked alone already ranks differently)`,
        ];
      const differing = (parallel as MemoryItem[][]).filter(
        (items, i) => key(items) !== key(sequential[i % 2] as MemoryItem[]),
      );
      if (differing.length > 0)
        return [
          'fail',
          `${differing.length} of ${concurrency} concurrent answers differ from the same question asked alone`,
        ];
      return ['pass', `${concurrency} at once, same results as one at a time`];
    });

    // ---- indexing lag ----
    await guarded(
      'indexing-lag',
      `an inserted fact is retrievable within ${lagLimitMs} ms`,
      async () => {
        const packet = lagPacket(packets.length, packets.length + 1);
        const t0 = now();
        await withTimeout('insert of the lag probe', insertMs, (s) =>
          client.call('insert', { session, packet }, s),
        );
        insertLatencies.push(now() - t0);
        sequentialLatencies.push(now() - t0);
        inserted.add('D2:1');
        for (;;) {
          const items = await retrieve('What is the password for the boathouse?', 5);
          const lag = now() - t0;
          if (sourced(items, 'D2:1')) {
            result.indexingLagMs = Math.round(lag * 10) / 10;
            return ['pass', `retrievable ${result.indexingLagMs} ms after the insert began`];
          }
          if (lag > lagLimitMs)
            return ['fail', `D2:1 still not retrieved after ${Math.round(lag)} ms`];
          await pause(50);
        }
      },
    );

    // ---- dia_ids that exist ----
    const unknown = [...seenDiaIds].filter((id) => !inserted.has(id));
    const broken = brokenRetrieve;
    const notChecked = (id: string, title: string): boolean => {
      if (broken === null) return false;
      report(id, title, 'skip', `not checked: ${broken.check} failed first (${broken.reason})`);
      return true;
    };
    if (!notChecked('dia-ids', 'cites only dia_ids that were inserted'))
      report(
        'dia-ids',
        'cites only dia_ids that were inserted',
        unknown.length === 0 ? (seenDiaIds.size > 0 ? 'pass' : 'warn') : 'fail',
        unknown.length > 0
          ? `unknown dia_ids: ${unknown.slice(0, 10).join(', ')}`
          : seenDiaIds.size > 0
            ? `${seenDiaIds.size} distinct dia_ids cited, all inserted`
            : 'no item cited a dia_id: evidence recall will be 0',
      );

    // ---- deadlines, over everything above ----
    // Every timeout already failed the check it happened in: named here, not failed again.
    const deadlinesTitle = `answers within the deadlines (insert ${insertMs} ms, retrieve ${answerMs} ms)`;
    if (timedOutIn.size > 0 || !notChecked('deadlines', deadlinesTitle))
      report(
        'deadlines',
        deadlinesTitle,
        timedOutIn.size > 0 ? 'skip' : retrieveLatencies.length > 0 ? 'pass' : 'fail',
        `${timedOutIn.size > 0 ? `not judged again: calls timed out in ${[...timedOutIn].join(', ')} (FAIL above); ` : ''}insert max ${Math.max(0, ...insertLatencies).toFixed(1)} ms; retrieve p50 ${percentile(retrieveLatencies, 50).toFixed(1)} ms, max ${Math.max(0, ...retrieveLatencies).toFixed(1)} ms over ${retrieveLatencies.length} calls`,
      );

    // ---- speed: what a full run pays per call ----
    const speedTitle = 'answers a local call quickly and serves parallel lanes side by side';
    const burstBroken = brokenBurst;
    if (endpoint.allowRemote !== true && !notChecked('speed', speedTitle)) {
      if (burstBroken !== null)
        report('speed', speedTitle, 'skip', `not checked: concurrency failed first`);
      else
        report(
          'speed',
          speedTitle,
          ...speedVerdict(
            endpoint.url !== undefined ? 'http' : 'stdio',
            sequentialLatencies,
            burstMs,
            concurrency,
            slowCallMs,
          ),
        );
    }

    // ---- optional capabilities ----
    if (hello.capabilities.answer) {
      await guarded('answer', 'answer returns an answer', async () => {
        const answered = await withTimeout('answer', answerMs, (s) =>
          client.call(
            'answer',
            {
              session,
              question: 'What is the parrot called?',
              top_k: 5,
              question_date: SESSION_2.at,
              category: 4,
            },
            s,
          ),
        );
        return ['pass', `"${answered.answer.slice(0, 80)}"`];
      });
    } else report('answer', 'answer returns an answer', 'skip', 'capabilities.answer is false');

    await guarded(
      'unknown-session',
      'an unknown session gets a coded error',
      async () => {
        const probe = { session: 'no-such-session', question: 'anything', top_k: 1 };
        try {
          await withTimeout<unknown>('retrieve on an unknown session', answerMs, (s) =>
            hello.capabilities.retrieve
              ? client.call('retrieve', { ...probe, question_date: null }, s)
              : client.call('answer', { ...probe, question_date: null, category: 4 }, s),
          );
          return ['fail', 'the call succeeded'];
        } catch (error) {
          // A coded service error reads "<method> failed: <CODE>: …"; a dropped connection does not.
          const text = describeError(error);
          const code = / failed: ([A-Z_]+):/.exec(text)?.[1];
          if (code === 'UNKNOWN_SESSION') return ['pass', text];
          return [
            'fail',
            code !== undefined
              ? `${text}. Cause: a session that was never opened got ${code}, not UNKNOWN_SESSION, so a run cannot tell a lost session (a restarted service) from a broken one. Fix: reply {"error": {"code": "UNKNOWN_SESSION", …}} to any call naming a session the service does not hold`
              : withHint(error, retrieveMethod(), answerMs),
          ];
        }
      },
      false,
    );

    if (hello.capabilities.reset) {
      await guarded('reset', 'reset empties the conversation', async () => {
        await withTimeout('reset', DEFAULT_CONTROL_TIMEOUT_MS, (s) =>
          client.call('reset', { session }, s),
        );
        const items = await retrieve('What is the parrot called?', 5);
        return items.length === 0
          ? ['pass', 'nothing retrieved after reset']
          : ['fail', `${items.length} items still retrieved after reset`];
      });
    } else report('reset', 'reset empties the conversation', 'skip', 'capabilities.reset is false');

    await guarded(
      'close',
      'close ends the conversation',
      async () => {
        await withTimeout('close', DEFAULT_CONTROL_TIMEOUT_MS, (s) =>
          client.call('close', { session }, s),
        );
        return ['pass', 'closed'];
      },
      false,
    );
  } finally {
    await client.close();
    result.passed = checks.length > 0 && checks.every((c) => c.status !== 'fail');
  }
  return result;
}
