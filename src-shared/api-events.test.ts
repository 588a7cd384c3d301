import { describe, expect, it } from 'vitest';
import { parseApiEvent } from './api';

describe('parseApiEvent', () => {
  it('accepts each kind of event the engine sends', () => {
    const events = [
      { type: 'log', level: 'warn', message: 'slow' },
      { type: 'dataset-opened', datasetId: 'a'.repeat(64) },
      { type: 'dataset-open-failed', error: { code: 'DATASET_INVALID', message: 'bad' } },
      { type: 'playground-progress', playgroundId: 'pg-1', inserted: 2, total: 8, done: false },
      // Progress details are kept as sent.
      {
        type: 'progress',
        event: { type: 'packet', runId: 'r1', at: 1, sampleId: 's1', packetIdx: 3 },
      },
    ];
    for (const event of events) expect(parseApiEvent(event)).toEqual(event);
  });

  it('refuses what the UI would act on wrongly: unknown kinds, missing or mistyped fields', () => {
    for (const raw of [
      undefined,
      'dataset-opened',
      { type: 'dataset-opened' },
      { type: 'dataset-opened', datasetId: '' },
      { type: 'dataset-open-failed', error: 'bad' },
      { type: 'progress', event: { type: 'packet' } },
      { type: 'shutdown' },
    ]) {
      expect(parseApiEvent(raw)).toBeNull();
    }
  });
});
