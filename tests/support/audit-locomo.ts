import { writeFileSync } from 'node:fs';

const COLOURS = ['red', 'blue', 'green', 'yellow', 'purple', 'orange', 'silver'];
const THINGS = ['fox', 'kettle', 'bicycle', 'lantern', 'violin', 'teapot', 'canoe'];
const MONTHS = ['March', 'May', 'July', 'October'];

/**
 * A small LoCoMo-shaped file for the judge audit: `samples` conversations, each with
 * `questionsPerSample` questions cycling through categories 1-4 and one adversarial question;
 * golds are distinct phrases ("a red fox 017"), temporal ones dates ("7 May 2023"), so every class
 * of audit answer can be built. Made up: no LoCoMo text.
 */
export function writeAuditLocomo(file: string, samples = 4, questionsPerSample = 28): void {
  const data = Array.from({ length: samples }, (_, s) => ({
    sample_id: `audit-${s + 1}`,
    conversation: {
      speaker_a: 'Ann',
      speaker_b: 'Bob',
      session_1_date_time: '1:56 pm on 8 May, 2023',
      session_1: [
        { speaker: 'Ann', dia_id: 'D1:1', text: 'We talked about many things.' },
        { speaker: 'Bob', dia_id: 'D1:2', text: 'Yes, we did.' },
      ],
    },
    qa: [
      ...Array.from({ length: questionsPerSample }, (_, q) => {
        const category = (q % 4) + 1;
        const n = s * questionsPerSample + q;
        const answer =
          category === 2
            ? `${1 + (n % 27)} ${MONTHS[n % MONTHS.length] as string} ${2019 + (n % 5)}`
            : `a ${COLOURS[n % COLOURS.length] as string} ${THINGS[Math.floor(n / COLOURS.length) % THINGS.length] as string} ${String(n).padStart(3, '0')}`;
        return { question: `Question ${n} of ${s + 1}?`, answer, evidence: ['D1:1'], category };
      }),
      { question: 'Tempting?', adversarial_answer: 'no', evidence: [], category: 5 },
    ],
  }));
  writeFileSync(file, JSON.stringify(data));
}
