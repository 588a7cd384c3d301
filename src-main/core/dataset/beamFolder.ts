import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import type { DatasetProblem, Sample } from '../../../src-shared/dataset/types';
import {
  BeamChatBuilder,
  BeamProblems,
  beamSample,
  loadBeamChats,
  looksLikeBeamChats,
  readBeamQuestions,
} from './beam';
import { jsonArrayElements } from './jsonArrayStream';
import { parseJsonText } from './jsonText';
import type { DatasetLoader, FolderContext, FolderOutput } from './registry';

/**
 * BEAM's repository layout on disk (`chats/<size>/<n>/chat.json` and
 * `<n>/probing_questions/probing_questions.json`): a chat folder, a size folder or the whole tree.
 * A 10M chat is `plan-<k>/chat.json` sub-chats, read in `k` order as one conversation, each
 * streamed a batch at a time (jsonArrayStream.ts), so no file's text is ever held whole; its ids
 * are numbered on across sub-chats as the reference's `combine_10m_chats` does. As the reference
 * (`answer_generation.py`), a chat's `chat_trunecated.json` is read instead of `chat.json` when
 * present. The files are hashed in the order they are read: path, then bytes.
 */

const SIZE = /^\d+(?:\.\d+)?[KM]$/;
const PLAN = /^plan-(\d+)$/;
const QUESTIONS = join('probing_questions', 'probing_questions.json');

/** `100K` -> 100000: sizes in a tree are read smallest first. */
function sizeValue(size: string): number {
  return parseFloat(size) * (size.endsWith('M') ? 1e6 : 1e3);
}

interface ChatLayout {
  chatId: string;
  size: string | null;
  /** The chat's batch files in reading order (one, or a 10M chat's sub-chats). */
  parts: string[];
  /** Sub-chats are streamed; a single chat file is read whole. */
  streamed: boolean;
  questions: string;
  /** The folder, for a missing file's message. */
  dir: string;
}

async function entries(dir: string): Promise<Map<string, boolean>> {
  try {
    const list = await readdir(dir, { withFileTypes: true });
    return new Map(list.map((e) => [e.name, e.isDirectory()]));
  } catch {
    return new Map();
  }
}

const byNumber = (a: string, b: string): number =>
  Number(/\d+/.exec(a)?.[0]) - Number(/\d+/.exec(b)?.[0]);

/** The chat in `dir`, or null when the folder is not one. */
async function chatAt(dir: string, size: string | null): Promise<ChatLayout | null> {
  const names = await entries(dir);
  const plans = [...names].filter(([n, isDir]) => isDir && PLAN.test(n)).map(([n]) => n);
  const single = names.has('chat_trunecated.json')
    ? 'chat_trunecated.json'
    : names.has('chat.json')
      ? 'chat.json'
      : null;
  if (!names.has('probing_questions') && plans.length === 0 && single === null) return null;
  const n = basename(dir);
  return {
    chatId: size === null ? n : `${size}-${n}`,
    size,
    parts:
      plans.length > 0
        ? plans.sort(byNumber).map((p) => join(dir, p, 'chat.json'))
        : single === null
          ? []
          : [join(dir, single)],
    streamed: plans.length > 0,
    questions: join(dir, QUESTIONS),
    dir,
  };
}

async function chatsOfSize(dir: string, size: string | null): Promise<ChatLayout[]> {
  const numbered = [...(await entries(dir))]
    .filter(([n, isDir]) => isDir && /^\d+$/.test(n))
    .map(([n]) => n)
    .sort(byNumber);
  const chats: ChatLayout[] = [];
  for (const n of numbered) {
    const chat = await chatAt(join(dir, n), size);
    if (chat) chats.push(chat);
  }
  return chats;
}

/** The chats under `root` (a chat, a size folder or the tree), or null when it is not BEAM's layout. */
export async function beamChatsIn(root: string): Promise<ChatLayout[] | null> {
  const parent = basename(dirname(root));
  const own = basename(root);
  const chat = await chatAt(root, SIZE.test(parent) ? parent : null);
  if (chat) return [chat];
  const ofSize = await chatsOfSize(root, SIZE.test(own) ? own : null);
  if (ofSize.length > 0) return ofSize;
  const sizes = [...(await entries(root))]
    .filter(([n, isDir]) => isDir && SIZE.test(n))
    .map(([n]) => n)
    .sort((a, b) => sizeValue(a) - sizeValue(b));
  const all: ChatLayout[] = [];
  for (const size of sizes) all.push(...(await chatsOfSize(join(root, size), size)));
  return all.length > 0 ? all : null;
}

/** Feeds a file's name (relative to the root) and then its bytes to the folder's hash. */
function hashName(hash: Hash, root: string, file: string): void {
  hash.update(`${relative(root, file).split('\\').join('/')}\n`);
}

interface Reading {
  root: string;
  hash: Hash;
  bytes: number;
  maxBytes: number;
}

/** A file read whole (size-checked, strict UTF-8, JSON with line and column on errors). */
async function readJson(
  file: string,
  reading: Reading,
  problems: BeamProblems,
): Promise<{ ok: true; value: unknown } | { ok: false }> {
  let bytes: Buffer;
  try {
    const info = await stat(file);
    if (info.size > reading.maxBytes) {
      problems.add(
        'error',
        file,
        null,
        [],
        `${info.size} bytes is larger than the limit of ${reading.maxBytes}`,
      );
      return { ok: false };
    }
    bytes = await readFile(file);
  } catch (error) {
    const missing = (error as { code?: unknown }).code === 'ENOENT';
    problems.add(
      'error',
      file,
      null,
      [],
      missing ? 'no such file' : `cannot read the file: ${String(error)}`,
    );
    return { ok: false };
  }
  hashName(reading.hash, reading.root, file);
  reading.hash.update(bytes);
  reading.bytes += bytes.length;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    problems.add('error', file, null, [], 'not valid UTF-8 text');
    return { ok: false };
  }
  const parsed = parseJsonText(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (!parsed.ok) {
    const { line, column, reason } = parsed.error;
    problems.add(
      'error',
      file,
      null,
      [],
      `not valid JSON at line ${line}, column ${column}: ${reason}`,
    );
    return { ok: false };
  }
  return { ok: true, value: parsed.value };
}

/** A sub-chat streamed a batch at a time into the builder. */
async function streamPart(file: string, builder: BeamChatBuilder, reading: Reading): Promise<void> {
  hashName(reading.hash, reading.root, file);
  try {
    const onChunk = (chunk: Buffer): void => {
      reading.hash.update(chunk);
      reading.bytes += chunk.length;
    };
    for await (const { index, value } of jsonArrayElements(file, 1 << 20, onChunk)) {
      builder.addBatch(value, index, file);
    }
  } catch (error) {
    const missing = (error as { code?: unknown }).code === 'ENOENT';
    const reason = missing
      ? 'no such file'
      : error instanceof Error
        ? error.message
        : String(error);
    builder.problems.add('error', file, null, [], reason);
  }
}

async function readChat(
  layout: ChatLayout,
  chatIndex: number,
  reading: Reading,
): Promise<{ sample: Sample | null; problems: DatasetProblem[] }> {
  const problems = new BeamProblems({
    chatId: layout.chatId,
    chatIndex,
    size: layout.size,
    chatFile: layout.parts[0] ?? join(layout.dir, 'chat.json'),
    questionsFile: layout.questions,
  });
  const builder = new BeamChatBuilder(problems);
  if (layout.parts.length === 0) {
    problems.add(
      'error',
      join(layout.dir, 'chat.json'),
      null,
      [],
      'no such file (nor plan-<k>/chat.json sub-chats)',
    );
  }
  for (const [k, part] of layout.parts.entries()) {
    if (k > 0) builder.startPart();
    if (layout.streamed) {
      await streamPart(part, builder, reading);
      continue;
    }
    const read = await readJson(part, reading, problems);
    if (!read.ok) continue;
    if (!Array.isArray(read.value)) {
      problems.add('error', part, null, [], 'a chat must be a list of batches');
      continue;
    }
    read.value.forEach((batch: unknown, i) => builder.addBatch(batch, i, part));
  }
  const questions = await readJson(layout.questions, reading, problems);
  const qa = questions.ok ? readBeamQuestions(questions.value, builder, layout.questions) : [];
  return { sample: beamSample(builder, qa), problems: problems.list };
}

/** Reads every chat of a BEAM folder; null when the folder is not in BEAM's layout. */
export async function readBeamFolder(
  root: string,
  context: FolderContext,
): Promise<FolderOutput | null> {
  const chats = await beamChatsIn(root);
  if (chats === null) return null;
  const reading: Reading = {
    root,
    hash: createHash('sha256'),
    bytes: 0,
    maxBytes: context.maxBytes,
  };
  const samples: Sample[] = [];
  const problems: DatasetProblem[] = [];
  for (const [i, chat] of chats.entries()) {
    const read = await readChat(chat, i, reading);
    problems.push(...read.problems);
    if (read.sample) samples.push(read.sample);
  }
  return { samples, problems, bytes: reading.bytes, sha256: reading.hash.digest('hex') };
}

/** The folder's sha256 as readBeamFolder computes it, without parsing anything. */
export async function beamFolderSha256(root: string): Promise<string | null> {
  const chats = await beamChatsIn(root);
  if (chats === null) return null;
  const hash = createHash('sha256');
  for (const chat of chats) {
    for (const file of [...chat.parts, chat.questions]) {
      try {
        await stat(file);
      } catch {
        continue;
      }
      hashName(hash, root, file);
      for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
    }
  }
  return hash.digest('hex');
}

export const beamLoader: DatasetLoader = {
  name: 'beam',
  description:
    'BEAM: a chat folder, a size folder or the chats/ tree (<size>/<n>/chat.json, probing_questions/probing_questions.json; 10M: plan-<k>/chat.json)',
  detect: looksLikeBeamChats,
  load: loadBeamChats,
  readFolder: readBeamFolder,
  folderSha256: beamFolderSha256,
};
