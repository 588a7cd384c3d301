import type { JudgeScore } from '../../../src-shared/experiment';
import type { PromptRecord } from '../../../src-shared/runs';
import { BeamReplyUnread, readBeamReply, scoreOf } from '../../../src-shared/scoring/beam-json';
import {
  BEAM_EVENT_ORDERING,
  alignWithLlm,
  beamReportValue,
  eventOrderingScore,
  rubricMean,
  type EventOrderingScore,
} from '../../../src-shared/scoring/beam';
import type { ChatMessage, LlmClient } from './llm-client';
import { promptRecordOf } from './prompts';

/**
 * BEAM's rubric judge, as mohammadtavakoli78/BEAM `src/evaluation/compute_metrics.py` (b2a3ee8)
 * runs it with `run_evaluation.py`'s judge (`gpt-4.1-mini` through langchain's ChatOpenAI at
 * temperature 0: one user message, no response_format, no seed, no max_tokens):
 *
 * - `beam-rubric` (official): one call per rubric item with `unified_llm_judge_base_prompt`, of
 *   which only `<rubric_item>` and `<llm_response>` are replaced (the judge never sees the
 *   question; `<question>` stays in the prompt as written); each item's `score` through `int()`
 *   (0.5 counts 0) except for event ordering, which keeps `float()`; the question's score the
 *   mean over its items. Event ordering first makes the `extract_facts` call (its result is
 *   discarded: the reference then uses `llm_response.split("\n")`), aligns each line to the
 *   rubric by the equivalence check (one call per line and unused item until one matches), and
 *   scores precision/recall/F1 and Kendall tau-b (src-shared/scoring/beam.ts).
 * - `beam-rubric-corrected`: the same calls with the question filled in and partial credit kept
 *   (`float()`) for every ability. Not the paper's figure.
 *
 * Prompts byte for byte (golden-tested, scripts/golden/generate-beam.py).
 */

/** `unified_llm_judge_base_prompt`, exactly. */
export const BEAM_JUDGE_PROMPT = [
  '',
  "You are an expert evaluator tasked with judging whether the LLM's response demonstrates compliance with the specified RUBRIC CRITERION.",
  '',
  '## EVALUATION INPUTS',
  '- QUESTION (what the user asked): <question>',
  '- RUBRIC CRITERION (what to check): <rubric_item>',
  '- RESPONSE TO EVALUATE: <llm_response>',
  '',
  '## EVALUATION RUBRIC:',
  'The rubric defines a specific requirement, constraint, or expected behavior that the LLM response should demonstrate. ',
  '',
  '**IMPORTANT**: Pay careful attention to whether the rubric specifies:',
  '- **Positive requirements** (things the response SHOULD include/do)',
  '- **Negative constraints** (things the response SHOULD NOT include/do, often indicated by "no", "not", "avoid", "absent")',
  '',
  '## RESPONSIVENESS REQUIREMENT (anchored to the QUESTION)',
  'A compliant response must be **on-topic with respect to the QUESTION** and attempt to answer it.',
  '- If the response does not address the QUESTION, score **0.0** and stop.',
  '- For negative constraints, both must hold: (a) the response is responsive to the QUESTION, and (b) the prohibited element is absent.',
  '',
  '## SEMANTIC TOLERANCE RULES:',
  'Judge by meaning, not exact wording.',
  '- Accept **paraphrases** and **synonyms** that preserve intent.',
  '- **Case/punctuation/whitespace** differences must be ignored.',
  '- **Numbers/currencies/dates** may appear in equivalent forms (e.g., “$68,000”, “68k”, “68,000 USD”, or “sixty-eight thousand dollars”). Treat them as equal when numerically equivalent.',
  '- If the rubric expects a number or duration, prefer **normalized comparison** (extract and compare values) over string matching.',
  '',
  '## STYLE NEUTRALITY (prevents style contamination):',
  'Ignore tone, politeness, length, and flourish unless the rubric explicitly requires a format/structure (e.g., “itemized list”, “no citations”, “one sentence”).',
  '- Do **not** penalize hedging, voice, or verbosity if content satisfies the rubric.',
  '- Only evaluate format when the rubric **explicitly** mandates it.',
  '',
  '## SCORING SCALE:',
  '- **1.0 (Complete Compliance)**: Fully complies with the rubric criterion.',
  '  - Positive: required element present, accurate, properly executed (allowing semantic equivalents).',
  '  - Negative: prohibited element **absent** AND response is **responsive**.',
  '  ',
  '- **0.5 (Partial Compliance)**: Partially complies.',
  '  - Positive: element present but minor inaccuracies/incomplete execution.',
  '  - Negative: generally responsive and mostly avoids the prohibited element but with minor/edge violations.',
  '  ',
  '- **0.0 (No Compliance)**: Fails to comply.',
  '  - Positive: required element missing or incorrect.',
  '  - Negative: prohibited element present **or** response is non-responsive/evasive even if the element is absent.',
  '',
  '## EVALUATION INSTRUCTIONS:',
  '1. **Understand the Requirement**: Determine if the rubric is asking for something to be present (positive) or absent (negative/constraint).',
  '',
  '2. **Parse Compound Statements**: If the rubric contains multiple elements connected by "and" or commas, evaluate whether:',
  '   - **All elements** must be present for full compliance (1.0)',
  '   - **Some elements** present indicates partial compliance (0.5)',
  '   - **No elements** present indicates no compliance (0.0)',
  '   ',
  '3. **Check Compliance**: ',
  '   - For positive requirements: Look for the presence and quality of the required element',
  '   - For negative constraints: Look for the absence of the prohibited element',
  '',
  '4. **Assign Score**: Based on compliance with the specific rubric criterion according to the scoring scale above.',
  '',
  '5. **Provide Reasoning**: Explain whether the rubric criterion was satisfied and justify the score.',
  '',
  '## OUTPUT FORMAT:',
  'Return your evaluation in JSON format with two fields:',
  '',
  '{',
  '   "score": [your score: 1.0, 0.5, or 0.0],',
  '   "reason": "[detailed explanation of whether the rubric criterion was satisfied and why this justified the assigned score]"',
  '}',
  '',
  'NOTE: ONLY output the json object, without any explanation before or after that',
  '',
].join('\n');

/** `break_paragraph_to_facts_detailed_prompt`, exactly. */
export const BEAM_FACTS_PROMPT = [
  '',
  'You are tasked with breaking down a paragraph or sentence into individual semantic fact units. Each fact unit should represent one distinct, atomic piece of information that can be independently verified or evaluated.',
  '',
  'DEFINITION OF SEMANTIC FACT UNIT:',
  '- A single, complete piece of information',
  '- Cannot be broken down further without losing meaning',
  '- Contains one main claim or statement',
  '- Is independently verifiable',
  '- Has clear subject-predicate relationship',
  '',
  'EXTRACTION RULES:',
  '1. Split compound sentences at conjunctions (and, but, or, so, etc.)',
  '2. Separate temporal information into distinct facts',
  '3. Break down lists into individual items',
  '4. Isolate causal relationships (because, since, therefore)',
  '5. Separate descriptive attributes from main statements',
  '6. Extract numerical data as separate facts when relevant',
  '7. Maintain context necessary for understanding each fact',
  '',
  'QUESTION-BASED EXTRACTION NECESSITY:',
  '- Identify what the question is asking for (who, what, when, where, why, how, how much, etc.)',
  '- Extract semantic units that directly answer the question first',
  '- Include supporting details and context as separate fact units',
  '- Ensure extracted facts are meaningful in relation to the question asked',
  '',
  'EXAMPLES:',
  '',
  'INPUT: "John visited the store on Monday and bought three apples for $5, but he forgot to get milk because the dairy section was closed."',
  '',
  'OUTPUT:',
  '1. "John visited the store on Monday"',
  '2. "John bought three apples"',
  '3. "The apples cost $5"',
  '4. "John forgot to get milk"',
  '5. "The dairy section was closed"',
  '6. "John forgot milk because the dairy section was closed"',
  '',
  'INSTRUCTIONS:',
  '- Extract ALL semantic fact units from the given text',
  '- Number each fact unit sequentially',
  '- Maintain factual accuracy - do not add or infer information',
  '- Preserve important context within each fact unit',
  '- Ensure each fact can stand alone as a meaningful statement',
  '- DO NOT add any explanation before or after the text',
  '',
  'QUESTION:',
  '<question>',
  '',
  'ANSWER TO EXTRACT FACTS FROM:',
  '<input_text>',
  '',
  'OUTPUT FORMAT:',
  '1. [First semantic fact unit]',
  '2. [Second semantic fact unit]',
  '3. [Third semantic fact unit]',
  '...',
  '',
  'Begin extraction:',
  '',
].join('\n');

/** `llm_equivalence`'s system message, exactly (its indentation is the source file's). */
export const BEAM_EQUIVALENCE_SYSTEM =
  '\n            You are a binary classifier.\n            If the TWO snippets describe the SAME event/fact, reply **YES**\n            Otherwise reply **NO**. No extra words.\n            DO NOT provide any exaplanation.\n        ';

/** `llm_equivalence`'s user message (an f-string whose `\n` is a newline before a newline). */
export function beamEquivalenceUser(first: string, second: string): string {
  return `First snippet: ${first} \n\n                       Second snippet: ${second}\n                    `;
}

/** Python `str.replace(old, new)`: every occurrence, the replacement taken literally. */
function pyReplace(text: string, old: string, value: string): string {
  return text.split(old).join(value);
}

export const BEAM_JUDGE_PROTOCOLS = ['beam-rubric', 'beam-rubric-corrected'] as const;
export type BeamJudgeProtocolName = (typeof BEAM_JUDGE_PROTOCOLS)[number];

/** The judge prompt for one rubric item. Only the corrected variant fills `<question>`. */
export function beamJudgePrompt(
  protocol: BeamJudgeProtocolName,
  rubricItem: string,
  response: string,
  question: string,
): string {
  let prompt = BEAM_JUDGE_PROMPT;
  if (protocol === 'beam-rubric-corrected') prompt = pyReplace(prompt, '<question>', question);
  prompt = pyReplace(prompt, '<rubric_item>', rubricItem);
  return pyReplace(prompt, '<llm_response>', response);
}

/** `extract_facts`'s prompt: `<question>` then `<input_text>` replaced. */
export function beamFactsPrompt(response: string, question: string): string {
  return pyReplace(pyReplace(BEAM_FACTS_PROMPT, '<question>', question), '<input_text>', response);
}

/** The manifest's record of a BEAM judge protocol (its sha256 keys cached verdicts). */
export function beamJudgeRecord(protocol: BeamJudgeProtocolName): PromptRecord {
  return promptRecordOf(protocol, {
    judge: BEAM_JUDGE_PROMPT,
    facts: BEAM_FACTS_PROMPT,
    equivalenceSystem: BEAM_EQUIVALENCE_SYSTEM,
    equivalenceUser: beamEquivalenceUser('{first}', '{second}'),
    slots:
      protocol === 'beam-rubric'
        ? '<rubric_item>, <llm_response>; int() per item except event_ordering'
        : '<question>, <rubric_item>, <llm_response>; float() per item',
  });
}

/** The reference's judge: `gpt_llm` in src/llm.py (ChatOpenAI, temperature 0). */
export const BEAM_JUDGE_MODEL = 'gpt-4.1-mini';
export const BEAM_JUDGE_TEMPERATURE = 0;

/** Which call a BEAM judge request is, for the ledger. */
export type BeamCallKind = 'judge' | 'extract-facts' | 'equivalence';

/**
 * The judge model as the scorer sees it: messages in, the reply's content out. Requests carry the
 * reference's parameters: the endpoint's model and temperature, no seed, no response_format.
 */
export type BeamJudgeModel = (messages: ChatMessage[], kind: BeamCallKind) => Promise<string>;

/**
 * The judge model over an OpenAI-compatible client (metered in the run's ledger like any call):
 * the endpoint's model and temperature, one request per call, no seed, no response_format and
 * no max_tokens, as langchain's ChatOpenAI sends them for the reference.
 */
export function beamJudgeModel(client: LlmClient, signal?: AbortSignal): BeamJudgeModel {
  return async (messages, kind) =>
    (
      await client.complete(messages, {
        omitMaxTokens: true,
        step: kind,
        ...(signal ? { signal } : {}),
      })
    ).content;
}

export interface BeamQuestionInput {
  ability: string;
  question: string;
  rubric: readonly string[];
  response: string;
}

export interface BeamQuestionResult extends Partial<EventOrderingScore> {
  /** The mean over the rubric items (the report's cell for every ability but event ordering). */
  llm_judge_score: number;
  /** Each item's reply as read (`parse_json_response` or `repair_json`). */
  llm_judge_responses: unknown[];
  /** Calls made for this question, every kind. */
  calls: number;
}

/** A question the reference's evaluation would stop at (or whose reply repair is not reproduced). */
export class BeamJudgeFailure extends Error {
  constructor(
    message: string,
    readonly calls: number,
    readonly underlying?: unknown,
  ) {
    super(message);
    this.name = 'BeamJudgeFailure';
  }
}

/** `evaluate_<ability>(rubric, llm_response, probing_question, model)`. */
export async function scoreBeamQuestion(
  protocol: BeamJudgeProtocolName,
  input: BeamQuestionInput,
  model: BeamJudgeModel,
): Promise<BeamQuestionResult> {
  let calls = 0;
  const ask = (messages: ChatMessage[], kind: BeamCallKind): Promise<string> => {
    calls++;
    return model(messages, kind);
  };
  const user = (content: string): ChatMessage[] => [{ role: 'user', content }];
  try {
    let ordering: EventOrderingScore | undefined;
    if (input.ability === BEAM_EVENT_ORDERING) {
      // Its reply is discarded, as in the reference; the call is still made and paid for.
      await ask(user(beamFactsPrompt(input.response, input.question)), 'extract-facts');
      const system = await alignWithLlm(
        input.rubric,
        input.response.split('\n'),
        async (first, second) => {
          const reply = await ask(
            [
              { role: 'system', content: BEAM_EQUIVALENCE_SYSTEM },
              { role: 'user', content: beamEquivalenceUser(first, second) },
            ],
            'equivalence',
          );
          return reply.toLowerCase().includes('yes');
        },
      );
      ordering = eventOrderingScore(input.rubric, system);
    }
    const responses: unknown[] = [];
    const scores: unknown[] = [];
    for (const item of input.rubric) {
      const reply = await ask(
        user(beamJudgePrompt(protocol, item, input.response, input.question)),
        'judge',
      );
      const read = readBeamReply(reply);
      scores.push(scoreOf(read));
      responses.push(read);
    }
    if (input.rubric.length === 0) {
      throw new BeamReplyUnread('reference-raises', 'empty rubric (division by zero)');
    }
    const keepPartial =
      protocol === 'beam-rubric-corrected' || input.ability === BEAM_EVENT_ORDERING;
    const mean = rubricMean(scores, keepPartial);
    if (mean === null) {
      throw new BeamReplyUnread(
        'reference-raises',
        `a score ${keepPartial ? 'float' : 'int'}() refuses`,
      );
    }
    return { ...ordering, llm_judge_score: mean, llm_judge_responses: responses, calls };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new BeamJudgeFailure(`beam judge (${input.ability}): ${why}`, calls, error);
  }
}

/**
 * A question's BEAM result as the run's judge score, so the `judge` metric, summaries and
 * `report --format beam` carry it: `mean` is the report's cell for the question (tau_norm for
 * event ordering, the rubric mean for the rest), one "repeat". A NaN tau_norm (a side all tied)
 * has no mean here: the reference's ability mean would be NaN, the workbench's leaves the question
 * out and says why in `error`. A question the reference would stop at is the judge error.
 */
export function beamJudgeScore(
  protocol: BeamJudgeProtocolName,
  ability: string,
  outcome: BeamQuestionResult | BeamJudgeFailure,
): JudgeScore {
  const failed = (error: string): JudgeScore => ({
    mean: null,
    std: null,
    labels: [],
    error,
    protocol,
  });
  if (outcome instanceof BeamJudgeFailure) return failed(outcome.message);
  const value = beamReportValue(ability, outcome);
  if (Number.isNaN(value)) {
    return failed(`beam judge (${ability}): tau_norm is NaN (the reference's ability mean is NaN)`);
  }
  return { mean: value, std: 0, labels: [value], error: null, protocol };
}
