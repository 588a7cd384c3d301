/**
 * The BEAM rubric judge against the reference's own `evaluate_<ability>` functions
 * (tests/fixtures/golden/beam.json, scripts/golden/generate-beam.py): every request's messages
 * byte for byte and in the reference's order (extract_facts, the equivalence checks, one judge
 * call per rubric item), each reply read as the reference reads it, the question's scores, and
 * the questions where the reference's evaluation raises.
 */
import { describe, expect, it } from 'vitest';
import golden from '../../../tests/fixtures/golden/beam.json';
import { BeamReplyUnread } from '../../../src-shared/scoring/beam-json';
import {
  BEAM_FACTS_PROMPT,
  BEAM_JUDGE_PROMPT,
  BeamJudgeFailure,
  beamJudgePrompt,
  scoreBeamQuestion,
  type BeamJudgeModel,
} from './beam-judge';
import type { ChatMessage } from './llm-client';

interface RecordedCall {
  kind: string;
  messages: ChatMessage[];
  reply: string;
}

/** Replays the reference's calls: each request must be the next recorded one, byte for byte. */
function replay(calls: readonly RecordedCall[]): { model: BeamJudgeModel; made: () => number } {
  let next = 0;
  return {
    model: (messages, kind) => {
      const expected = calls[next++];
      expect(expected, 'a call the reference did not make').toBeDefined();
      expect(kind).toBe(expected?.kind);
      expect(messages).toEqual(expected?.messages);
      return Promise.resolve(expected?.reply ?? '');
    },
    made: () => next,
  };
}

const nanAsNull = (value: unknown): unknown =>
  typeof value === 'number' && Number.isNaN(value) ? null : value;

describe('golden: BEAM rubric judge (beam-rubric)', () => {
  it('holds the reference prompts byte for byte', () => {
    expect(BEAM_JUDGE_PROMPT).toBe(golden.prompts.judge);
    expect(BEAM_FACTS_PROMPT).toBe(golden.prompts.facts);
  });

  it('never shows the judge the question, and replaces slots as str.replace does', () => {
    const prompt = beamJudgePrompt('beam-rubric', 'item $& <llm_response>', 'resp $1', 'Q?');
    expect(prompt).toContain('- QUESTION (what the user asked): <question>');
    expect(prompt).toContain('- RUBRIC CRITERION (what to check): item $& resp $1');
    const corrected = beamJudgePrompt('beam-rubric-corrected', 'item', 'resp', 'Q?');
    expect(corrected).toContain('- QUESTION (what the user asked): Q?');
  });

  for (const [i, q] of golden.questions.entries()) {
    it(`${i}: ${q.ability}, ${q.rubric.length} items${q.raises ? ' (the reference raises)' : ''}`, async () => {
      const { model, made } = replay(q.calls as RecordedCall[]);
      const input = {
        ability: q.ability,
        question: q.question,
        rubric: q.rubric,
        response: q.response,
      };
      if (q.raises) {
        const error = await scoreBeamQuestion('beam-rubric', input, model).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(BeamJudgeFailure);
        expect((error as BeamJudgeFailure).underlying).toBeInstanceOf(BeamReplyUnread);
        expect(((error as BeamJudgeFailure).underlying as BeamReplyUnread).problem).toBe(
          'reference-raises',
        );
        expect((error as BeamJudgeFailure).calls).toBe(q.calls.length);
        return;
      }
      const result = await scoreBeamQuestion('beam-rubric', input, model);
      expect(made()).toBe(q.calls.length);
      expect(result.calls).toBe(q.calls.length);
      const { calls: _calls, ...scores } = result;
      const got = Object.fromEntries(Object.entries(scores).map(([k, v]) => [k, nanAsNull(v)]));
      expect(got).toEqual(q.result);
    });
  }
});
