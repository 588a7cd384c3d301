/**
 * A LoCoMo sample repeated n times as one long conversation: copy r's sessions follow copy r-1's,
 * renumbered (session_1 of copy 2 of a 19-session sample is session_20), dia_ids and evidence
 * renumbered with them, questions repeated. Used to measure how retrieval grows with a
 * conversation's length (`npm run bench -- growth`); the files it writes are for `cli retrieve`.
 *
 *   npx tsx benchmarks/repeat-sample.ts --sample conv-26 --times 16 --out /tmp/conv-26x16.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DEFAULT_DATA } from './common';

const rawSampleSchema = z.looseObject({
  sample_id: z.string(),
  conversation: z.record(z.string(), z.unknown()),
  qa: z.array(z.looseObject({ evidence: z.array(z.string()).optional() })),
});
type RawSample = z.output<typeof rawSampleSchema>;

const SESSION_KEY = /^session_(\d+)$/;

/** The raw sample (LoCoMo file shape) repeated `times` times; summaries are left out. */
export function repeatSample(raw: RawSample, times: number): RawSample {
  const sessions = Object.keys(raw.conversation)
    .map((key) => SESSION_KEY.exec(key)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
  const count = Math.max(0, ...sessions);
  const conversation: Record<string, unknown> = {
    speaker_a: raw.conversation['speaker_a'],
    speaker_b: raw.conversation['speaker_b'],
  };
  const shift = (text: string, r: number) =>
    text.replace(/D(\d+):/g, (_, s: string) => `D${Number(s) + r * count}:`);
  for (let r = 0; r < times; r++) {
    for (const s of sessions) {
      const turns = raw.conversation[`session_${s}`];
      conversation[`session_${s + r * count}_date_time`] =
        raw.conversation[`session_${s}_date_time`];
      conversation[`session_${s + r * count}`] = Array.isArray(turns)
        ? turns.map((turn: Record<string, unknown>) => ({
            ...turn,
            dia_id: shift(String(turn['dia_id']), r),
          }))
        : turns;
    }
  }
  const qa = Array.from({ length: times }, (_, r) =>
    raw.qa.map((q) => ({ ...q, evidence: (q.evidence ?? []).map((e) => shift(e, r)) })),
  ).flat();
  return { sample_id: `${raw.sample_id}x${times}`, conversation, qa };
}

/** Reads one sample of a LoCoMo file. */
export function readRawSample(file: string, sampleId: string): RawSample {
  const all = z.array(rawSampleSchema).parse(JSON.parse(readFileSync(file, 'utf8')));
  const found = all.find((s) => s.sample_id === sampleId);
  if (!found) throw new Error(`repeat-sample: no sample '${sampleId}' in ${file}`);
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', default: DEFAULT_DATA },
      sample: { type: 'string', default: 'conv-26' },
      times: { type: 'string', default: '16' },
      out: { type: 'string' },
    },
  });
  const times = Number(values.times);
  if (!Number.isInteger(times) || times < 1) throw new Error('repeat-sample: --times must be >= 1');
  if (values.out === undefined) throw new Error('repeat-sample: --out <file> is required');
  writeFileSync(
    values.out,
    JSON.stringify([repeatSample(readRawSample(values.data, values.sample), times)]),
  );
}
