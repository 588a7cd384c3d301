/**
 * Writes a synthetic file in LongMemEval's official shape at M scale (random words, fixed seed):
 *
 *   npx tsx scripts/generate-longmemeval-m.ts <out.json> [--questions 500] [--sessions 500]
 *                                             [--turns 12] [--words 60] [--seed 1]
 *
 * The defaults approximate longmemeval_m.json (500 questions x ~500 sessions, ~2.7 GB). It is
 * written question by question, so generating it needs little memory too.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';

const TYPES = [
  'single-session-user',
  'single-session-assistant',
  'single-session-preference',
  'multi-session',
  'knowledge-update',
  'temporal-reasoning',
] as const;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VOCAB =
  'time year people way day man thing woman life child world school state family student group country problem hand part place case week company system program question work government number night point home water room mother area money story fact month lot right study book eye job word business issue side kind head house service friend father power hour game line end member law car city community name president team minute idea kid body information back parent face others level office door health person art war history party result change morning reason research girl guy moment air teacher force education'.split(
    ' ',
  );

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      questions: { type: 'string', default: '500' },
      sessions: { type: 'string', default: '500' },
      turns: { type: 'string', default: '12' },
      words: { type: 'string', default: '130' },
      seed: { type: 'string', default: '1' },
    },
  });
  const out = positionals[0];
  if (!out) throw new Error('usage: generate-longmemeval-m.ts <out.json> [--questions n] ...');
  const [questions, sessions, turns, words] = [
    values.questions,
    values.sessions,
    values.turns,
    values.words,
  ].map(Number) as [number, number, number, number];
  const rand = mulberry32(Number(values.seed));
  const pick = (n: number) => Math.floor(rand() * n);
  const text = (n: number) => Array.from({ length: n }, () => VOCAB[pick(VOCAB.length)]).join(' ');
  const date = (day: number) => {
    const d = new Date(Date.UTC(2023, 0, 1) + day * 3_600_000 * 7);
    const p = (x: number) => String(x).padStart(2, '0');
    const wd = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()];
    return `${d.getUTCFullYear()}/${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())} (${wd}) ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}`;
  };
  const stream = createWriteStream(out);
  const write = async (s: string) => {
    if (!stream.write(s)) await once(stream, 'drain');
  };
  await write('[');
  for (let q = 0; q < questions; q++) {
    const id = `synth${String(q).padStart(4, '0')}${q % 17 === 0 ? '_abs' : ''}`;
    const answerAt = pick(sessions);
    const ids: string[] = [];
    const dates: string[] = [];
    const haystack: unknown[] = [];
    for (let s = 0; s < sessions; s++) {
      const isAnswer = s === answerAt;
      ids.push(isAnswer ? `answer_${q}_${s}` : `sharegpt_${q}_${s}`);
      dates.push(date(s));
      haystack.push(
        Array.from({ length: turns }, (_, t) => ({
          role: t % 2 === 0 ? 'user' : 'assistant',
          content: text(words),
          ...(isAnswer ? { has_answer: t === 0 } : {}),
        })),
      );
    }
    const item = {
      question_id: id,
      question_type: TYPES[q % TYPES.length],
      question: `${text(8)}?`,
      answer: text(4),
      question_date: date(sessions + 10),
      haystack_dates: dates,
      haystack_session_ids: ids,
      haystack_sessions: haystack,
      answer_session_ids: [ids[answerAt]],
    };
    await write(`${q > 0 ? ',\n' : ''}${JSON.stringify(item)}`);
  }
  await write(']\n');
  stream.end();
  await once(stream, 'finish');
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
