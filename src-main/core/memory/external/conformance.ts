import {
  DEFAULT_ANSWER_TIMEOUT_MS,
  DEFAULT_INSERT_TIMEOUT_MS,
} from '../../../../src-shared/experiment';
import { WorkbenchError } from '../../../../src-shared/errors';
import type { HelloResult, MemoryItem, WirePacket } from '../../../../src-shared/memory-protocol';
import { describeError, withTimeout } from '../../timeout';
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

const SPEAKERS: [string, string] = ['Alice', 'Bob'];
/** Deliberately long ago: a service that stamps memories with the wall clock shows it. */
const SESSION_1 = { at: '2019-03-14T10:00:00', text: '10:00 am on 14 March, 2019' };
const SESSION_2 = { at: '2019-04-02T18:30:00', text: '6:30 pm on 2 April, 2019' };
/** More turns than the top_k asked for mention the weather. */
const WEATHER_TURNS = 12;
const SMALL_TOP_K = 3;

function syntheticPackets(): WirePacket[] {
  const turns: Array<{ speaker: string; text: string }> = [
    { speaker: 'Alice', text: 'I adopted a parrot named Zephyrine last week.' },
    { speaker: 'Bob', text: 'My sister Marguerite plays the violin in an orchestra in Vienna.' },
  ];
  for (let i = 0; i < WEATHER_TURNS; i++) {
    turns.push({
      speaker: SPEAKERS[i % 2] as string,
      text: `The weather was rainy again on day ${i + 1}, weather like that keeps us indoors.`,
    });
  }
  const packets: WirePacket[] = [];
  for (let i = 0; i < turns.length; i += 2) {
    packets.push({
      session_index: 1,
      date_time: SESSION_1.at,
      date_time_text: SESSION_1.text,
      packet_idx: packets.length,
      total_packets: turns.length / 2 + 1,
      turns: turns.slice(i, i + 2).map((t, j) => ({ ...t, dia_id: `D1:${i + j + 1}` })),
    });
  }
  return packets;
}

/** Session 2: inserted last, for the indexing-lag probe. */
function lagPacket(index: number, total: number): WirePacket {
  return {
    session_index: 2,
    date_time: SESSION_2.at,
    date_time_text: SESSION_2.text,
    packet_idx: index,
    total_packets: total,
    turns: [
      { dia_id: 'D2:1', speaker: 'Bob', text: 'The password for the boathouse is quixotrombone.' },
    ],
  };
}

const sourced = (items: readonly MemoryItem[], diaId: string): MemoryItem | undefined =>
  items.find((item) => item.dia_ids.includes(diaId));

/** Above this p50 a loopback call is slow: a plain in-process call takes well under 1 ms. */
export const SLOW_LOOPBACK_P50_MS = 10;
/** How long the lag check waits for an inserted fact to be retrievable (`--lag-limit-ms`). */
export const DEFAULT_LAG_LIMIT_MS = 10_000;

/**
 * A reply the client refused (it did not match the schema, or was too large): every later call of
 * the same method fails the same way, so the checks after the first report it once, not again.
 */
interface RootCause {
  check: string;
  reason: string;
}

function isReplyRefused(error: unknown): boolean {
  // A refused reply names the bad field after the method; a service's own coded error only the method.
  return (
    error instanceof WorkbenchError && error.code === 'UPSTREAM' && (error.path?.length ?? 0) > 1
  );
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
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
  let timeouts = 0;
  const insertLatencies: number[] = [];
  const retrieveLatencies: number[] = [];
  /** Calls made one at a time (what a lane waits per call), apart from the concurrent burst. */
  const sequentialLatencies: number[] = [];
  /** The first check whose retrieve got a refused reply: the root cause later checks point to. */
  // Cast: it is set inside closures, which TypeScript's narrowing of a `let` does not see.
  let brokenRetrieve = null as RootCause | null;
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
        if (error instanceof WorkbenchError && error.code === 'TIMEOUT') timeouts++;
        insertFailure ??= describeError(error);
      }
    }
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
        if (isReplyRefused(error))
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
        if (error instanceof WorkbenchError && error.code === 'TIMEOUT') timeouts++;
        report(id, title, 'fail', describeError(error));
      }
    };
    /** Sleeps between polls of a service that indexes in the background. */
    const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
    const insertsDoneAt = now();

    // ---- top_k ----
    await guarded('top-k', 'never returns more items than top_k', async () => {
      const counts: string[] = [];
      for (const k of [SMALL_TOP_K, 1]) {
        const items = await retrieve('How was the weather?', k);
        counts.push(`top_k ${k}: ${items.length}`);
        if (items.length > k)
          return ['fail', `asked for ${k}, got ${items.length} (${WEATHER_TURNS} turns match)`];
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
      // Twice: the first burst opens the connections (a small listen backlog drops some SYNs,
      // retried after 1 s); the second, on kept-alive connections, shows how requests are served.
      await Promise.all(questions.map((q) => retrieve(q, 5, false)));
      const burstStart = now();
      const parallel = await Promise.all(questions.map((q) => retrieve(q, 5, false)));
      burstMs = now() - burstStart;
      const key = (items: MemoryItem[]): string => items.map((i) => i.dia_ids.join('+')).join(',');
      const differing = parallel.filter(
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
    const deadlinesTitle = `answers within the deadlines (insert ${insertMs} ms, retrieve ${answerMs} ms)`;
    if (timeouts > 0 || !notChecked('deadlines', deadlinesTitle))
      report(
        'deadlines',
        deadlinesTitle,
        timeouts === 0 && retrieveLatencies.length > 0 ? 'pass' : 'fail',
        `${timeouts > 0 ? `${timeouts} call(s) timed out; ` : ''}insert max ${Math.max(0, ...insertLatencies).toFixed(1)} ms; retrieve p50 ${percentile(retrieveLatencies, 50).toFixed(1)} ms, max ${Math.max(0, ...retrieveLatencies).toFixed(1)} ms over ${retrieveLatencies.length} calls`,
      );

    // ---- speed: what a full run pays per call ----
    if (endpoint.url !== undefined && endpoint.allowRemote !== true && broken === null) {
      report(
        'speed',
        'answers a loopback call quickly and serves parallel lanes side by side',
        ...speedVerdict(sequentialLatencies, burstMs, concurrency, slowCallMs),
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
          return text.includes(' failed: ') ? ['pass', text] : ['fail', text];
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

/**
 * A loopback service is slow for reasons with known fixes: ~40 ms per call is Nagle's algorithm
 * meeting the client's delayed ACK (headers and body written apart), a new connection per call
 * adds more; a single-threaded server answers parallel lanes one at a time.
 */
function speedVerdict(
  sequential: readonly number[],
  burstMs: number | null,
  concurrency: number,
  slowCallMs: number,
): [CheckStatus, string] {
  const p50 = percentile([...sequential], 50);
  const problems: string[] = [];
  if (p50 > slowCallMs) {
    problems.push(
      `p50 ${p50.toFixed(1)} ms per call on loopback (over ${slowCallMs} ms; a full LoCoMo run makes ~15,000 calls): usually Nagle's algorithm meeting delayed ACK, or a new connection per call. Set TCP_NODELAY on the socket (Python http.server: disable_nagle_algorithm = True on the handler), keep connections alive (protocol_version = "HTTP/1.1"), or use stdio (--command)`,
    );
  }
  // Lanes served one at a time take about concurrency × one call; side by side, far less.
  if (burstMs !== null && p50 > 1 && burstMs > 0.5 * concurrency * p50) {
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
