/**
 * Test support for the structured presets' tests: curated samples, temp directories and a filled
 * service. Not imported by production code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sample, Session, Turn } from '../../../../src-shared/dataset';
import { packetsOf } from '../../dataset/packets';
import { createMemoryService } from '../registry';
import type { MemoryService, MemoryServiceContext } from '../types';

export function session(
  index: number,
  dateTime: string | null,
  lines: ReadonlyArray<readonly [string, string]>,
): Session {
  const turns: Turn[] = lines.map(([speaker, text], i) => ({
    diaId: `D${index}:${i + 1}`,
    speaker,
    text,
    rawText: text,
    sessionIndex: index,
    turnIndex: i,
  }));
  return { index, dateTimeText: null, dateTime, turns };
}

export function sample(sessions: Session[], speakers: [string, string] = ['Ann', 'Bob']): Sample {
  return {
    sampleId: 'curated',
    speakers,
    sessions,
    qa: [],
    aux: { eventSummary: null, observation: null, sessionSummary: null },
  };
}

/** Eight turns, one topic each, over two dated sessions: a question finds exactly one of them. */
/**
 * Ann's move to Paris, her pottery and Bob's puppy: the first session of the curated conversations
 * the preset and context tests rank over (each adds sessions of its own after it).
 */
export const PARIS_SESSION: Session = session(1, '2023-05-08T13:56:00', [
  ['Ann', 'Guess what, I moved to Paris last month for the new job.'],
  ['Bob', 'Wow, congratulations! How is the weather there?'],
  ['Ann', 'Rainy, but I love the cafes.'],
  ['Bob', 'Did you ever go back to the pottery class?'],
  ['Ann', 'Yes! Last Saturday, and I finally finished a blue bowl.'],
  ['Bob', 'I adopted a puppy from the shelter on Friday.'],
]);

export const EIGHT_TOPICS: Sample = sample([
  session(1, '2023-05-08T13:56:00', [
    ['Ann', 'I finished a blue pottery bowl in my ceramics class.'],
    ['Bob', 'I adopted a puppy from the shelter.'],
    ['Ann', 'My manager gave me a promotion at work.'],
    ['Bob', 'I went hiking in the mountains last weekend.'],
  ]),
  session(2, '2023-06-01T09:00:00', [
    ['Ann', 'I started reading a novel about dragons.'],
    ['Bob', 'The stock market report was boring.'],
    ['Ann', 'My sister is getting married in Rome.'],
    ['Bob', 'I repaired the old bicycle in the garage.'],
  ]),
]);

export function tempDirs(prefix: string): { make(): string; cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), `mw-${prefix}-`));
  let n = 0;
  return {
    make: () => join(root, `c${n++}`),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** A service of `preset` with every packet of `s` inserted, in order. */
export async function filled(
  preset: string,
  config: unknown,
  s: Sample,
  dir: string,
  extra: Pick<MemoryServiceContext, 'llm' | 'seed'> = {},
): Promise<MemoryService> {
  const service = await createMemoryService(preset, config, { sample: s, dir, ...extra });
  for (const packet of packetsOf(s)) await service.insert(packet);
  return service;
}

export async function ids(service: MemoryService, question: string, k: number): Promise<string[]> {
  return (await service.retrieve(question, k)).map((h) => h.diaId ?? h.id);
}
