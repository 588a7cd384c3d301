import { describe, expect, it } from 'vitest';
import {
  ANSWER_PROTOCOL_FACES,
  ANSWER_PROTOCOLS,
  JUDGE_PROTOCOL_FACES,
  JUDGE_PROTOCOLS,
  JudgeConfigSchema,
} from '../../../src-shared/experiment';
import { judgeProtocolOf } from './judge-protocols';
import { answerProtocol } from './protocols';

/**
 * The protocols' two halves agree: each face (src-shared/experiment, what the run form, the
 * Models view and the CLI show) has the engine of its name here (prompt bytes, parsing), and
 * says what a surface needs. Walks whatever is registered; lists no protocol.
 */
describe('answer protocol faces and engines', () => {
  it.each(ANSWER_PROTOCOLS)('%s has its engine, a label and a help line', (name) => {
    expect(answerProtocol(name).name).toBe(name);
    expect(answerProtocol(name).record.style).toBe(name);
    expect(ANSWER_PROTOCOL_FACES[name].label.trim()).not.toBe('');
    expect(ANSWER_PROTOCOL_FACES[name].help.trim()).not.toBe('');
  });

  it('labels each protocol apart', () => {
    const labels = ANSWER_PROTOCOLS.map((n) => ANSWER_PROTOCOL_FACES[n].label);
    expect(new Set(labels).size).toBe(labels.length);
  });
});

describe('judge protocol faces and engines', () => {
  it.each(JUDGE_PROTOCOLS)('%s has its engine, a label, a help line and its rule', (name) => {
    expect(judgeProtocolOf(name).name).toBe(name);
    const face = JUDGE_PROTOCOL_FACES[name];
    expect(face.label.trim()).not.toBe('');
    expect(face.help.trim()).not.toBe('');
    // Its temperature rule is the face's own: a config at 0.5 is refused exactly when it says so.
    const parsed = JudgeConfigSchema.safeParse({
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'm',
      protocol: name,
      temperature: 0.5,
    });
    expect(parsed.success).toBe(!face.temperatureZero);
  });

  it('labels each protocol apart', () => {
    const labels = JUDGE_PROTOCOLS.map((n) => JUDGE_PROTOCOL_FACES[n].label);
    expect(new Set(labels).size).toBe(labels.length);
  });
});
