import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MINI = fileURLToPath(new URL('../fixtures/locomo/mini.json', import.meta.url));

/**
 * A valid LoCoMo-shaped file of about `targetBytes`: the mini fixture's samples again and again
 * under new ids, each with `padTurns` more turns in its first session (so a large file is a few
 * hundred samples, as a real one is tens, not hundreds of thousands). Returns the sample count.
 */
export function writeBigLocomo(file: string, targetBytes: number, padTurns = 1500): number {
  const mini = JSON.parse(readFileSync(MINI, 'utf8')) as Array<Record<string, unknown>>;
  const padding = Array.from({ length: padTurns }, (_, i) => ({
    speaker: i % 2 === 0 ? 'Ann' : 'Bob',
    dia_id: `D1:${i + 10}`,
    text: `Padding turn ${i}: a sentence long enough to look like a real turn of a long talk.`,
  }));
  const parts: string[] = [];
  let bytes = 2;
  for (let copy = 0; bytes < targetBytes; copy++) {
    for (const sample of mini) {
      const conversation = sample['conversation'] as Record<string, unknown>;
      const session1 = conversation['session_1'] as unknown[];
      const text = JSON.stringify({
        ...sample,
        sample_id: `${String(sample['sample_id'])}-copy${copy}`,
        conversation: { ...conversation, session_1: [...session1, ...padding] },
      });
      parts.push(text);
      bytes += text.length + 1;
    }
  }
  writeFileSync(file, `[${parts.join(',')}]`);
  return parts.length;
}
