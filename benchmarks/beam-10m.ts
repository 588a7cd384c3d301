import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO } from './common';

/**
 * Builds a BEAM 10M-layout chat from the shared 100K and 500K chats, to measure the 10M path
 * without the 10M files: `<out>/10M/1/plan-<k>/chat.json` sub-chats (each a shared chat as it is,
 * cycled until the conversation reaches the target, in tokens estimated as characters / 4) and one
 * `probing_questions.json` whose cited ids are numbered on across sub-chats, as the reference's
 * `combine_10m_chats` numbers the messages. Written to the directory given, never to the repo.
 *
 *   npx tsx benchmarks/beam-10m.ts <out-dir> [target tokens, default 10000000]
 */

export const DEFAULT_BEAM_ROOT = resolve(REPO, '../shared/datasets/beam');
const SIZES = ['100K', '500K'];

interface Message {
  id: string | number;
  content: string;
}
interface Batch {
  turns: Message[][];
}
type Questions = Record<string, Array<Record<string, unknown>>>;

export interface Built {
  /** The 10M chat folder (`<out>/10M/1`). */
  chat: string;
  plans: number;
  messages: number;
  tokens: number;
  questions: number;
}

function shifted(value: unknown, offset: number): unknown {
  if (typeof value === 'number') return value + offset;
  if (Array.isArray(value)) return value.map((v) => shifted(v, offset));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shifted(v, offset)]));
  }
  return value;
}

/** The shared chats in reading order: 100K 1-20, then 500K 1-5. */
function sourceChats(root: string): string[] {
  return SIZES.flatMap((size) =>
    readdirSync(join(root, size))
      .filter((n) => /^\d+$/.test(n))
      .sort((a, b) => Number(a) - Number(b))
      .map((n) => join(root, size, n)),
  );
}

export function buildBeam10M(
  out: string,
  targetTokens = 10_000_000,
  root = DEFAULT_BEAM_ROOT,
): Built {
  const chat = join(out, '10M', '1');
  const sources = sourceChats(root);
  if (sources.length === 0) throw new Error(`beam-10m: no BEAM chats under ${root}`);
  const questions: Questions = {};
  let tokens = 0;
  let messages = 0;
  let plans = 0;
  let offset = 0;
  while (tokens < targetTokens) {
    const source = sources[plans % sources.length] as string;
    const batches = JSON.parse(readFileSync(join(source, 'chat.json'), 'utf8')) as Batch[];
    let lastId = -1;
    for (const batch of batches) {
      for (const turn of batch.turns) {
        for (const m of turn) {
          tokens += m.content.length / 4;
          messages += 1;
          lastId = Math.max(lastId, Number(m.id));
        }
      }
    }
    mkdirSync(join(chat, `plan-${plans}`), { recursive: true });
    writeFileSync(join(chat, `plan-${plans}`, 'chat.json'), JSON.stringify(batches));
    const own = JSON.parse(
      readFileSync(join(source, 'probing_questions', 'probing_questions.json'), 'utf8'),
    ) as Questions;
    for (const [ability, list] of Object.entries(own)) {
      questions[ability] ??= [];
      for (const q of list) {
        questions[ability].push({
          ...q,
          ...(q['source_chat_ids'] !== undefined
            ? { source_chat_ids: shifted(q['source_chat_ids'], offset) }
            : {}),
        });
      }
    }
    offset += lastId + 1;
    plans += 1;
  }
  mkdirSync(join(chat, 'probing_questions'), { recursive: true });
  writeFileSync(
    join(chat, 'probing_questions', 'probing_questions.json'),
    JSON.stringify(questions),
  );
  const count = Object.values(questions).reduce((n, list) => n + list.length, 0);
  return { chat, plans, messages, tokens: Math.round(tokens), questions: count };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename ?? '')) {
  const [out, target] = process.argv.slice(2);
  if (!out) {
    process.stderr.write('usage: npx tsx benchmarks/beam-10m.ts <out-dir> [target tokens]\n');
    process.exitCode = 2;
  } else {
    const built = buildBeam10M(resolve(out), target ? Number(target) : undefined);
    process.stdout.write(`${JSON.stringify(built)}\n`);
  }
}
