import type { BenchmarkCategory, BenchmarkProfile } from './types';

/**
 * LongMemEval (Wu et al., ICLR 2025; xiaowu0162/LongMemEval): 500 questions, each with its own
 * haystack of timestamped user-assistant sessions. Its six question types are categories 1-6.
 * A question whose id ends in `_abs` is an abstention question (the gold explains why it cannot be
 * answered); it is filed under "abstention (<type>)", 7-12, whose `task` is its type, because the
 * reference's `print_qa_metrics.py` counts it in its type's accuracy (task-averaged accuracy) and
 * again in "Abstention Accuracy". One naming scheme: the paper's type names.
 */

/** The question types in the reference's `print_qa_metrics.py` order. */
export const LONGMEMEVAL_QUESTION_TYPES = [
  'single-session-user',
  'single-session-assistant',
  'single-session-preference',
  'multi-session',
  'knowledge-update',
  'temporal-reasoning',
] as const;
export type LongMemEvalQuestionType = (typeof LONGMEMEVAL_QUESTION_TYPES)[number];

/** Category of a question type; abstention questions are offset by the number of types. */
export function longMemEvalCategory(type: LongMemEvalQuestionType, abstention: boolean): number {
  const id = LONGMEMEVAL_QUESTION_TYPES.indexOf(type) + 1;
  return abstention ? id + LONGMEMEVAL_QUESTION_TYPES.length : id;
}

/** The reference marks abstention by the id alone: `'_abs' in question_id`. */
export function isAbstentionId(questionId: string): boolean {
  return questionId.includes('_abs');
}

/**
 * LongMemEval's own retrieval metrics (lmeRetrieval.ts), scored on every question type beside
 * each general metric whose rule takes an answerable category.
 */
const OWN_METRICS = [
  'lmeTurnRecall',
  'lmeSessionRecall',
  'lmeTurnRecallAny',
  'lmeSessionRecallAny',
  'lmeTurnNdcg',
  'lmeSessionNdcg',
] as const;

const typeCategories: BenchmarkCategory[] = LONGMEMEVAL_QUESTION_TYPES.map((type, i) => ({
  id: i + 1,
  names: { official: type },
  adversarial: false,
  ownMetrics: OWN_METRICS,
  // LoCoMo's recall reads LoCoMo's dia ids; LongMemEval's evidence is its own (OWN_METRICS).
  withoutMetrics: ['locomoRecall'],
}));

const abstentionCategories: BenchmarkCategory[] = LONGMEMEVAL_QUESTION_TYPES.map((type, i) => ({
  id: i + 1 + LONGMEMEVAL_QUESTION_TYPES.length,
  names: { official: `abstention (${type})` },
  adversarial: true,
  // The paper leaves abstention out of recall (there is no evidence turn) and judges it with its
  // own prompt; overlap metrics against an explanation mean nothing.
  metrics: ['judge'],
  task: i + 1,
}));

export const LONGMEMEVAL_PROFILE: BenchmarkProfile = {
  id: 'longmemeval',
  label: 'LongMemEval',
  schemes: [{ id: 'official', label: 'LongMemEval paper' }],
  categories: [...typeCategories, ...abstentionCategories],
  taskAveraged: true,
  defaultJudgeProtocol: 'longmemeval',
  defaultAnswerProtocol: 'longmemeval',
  readerDate: true,
  abstentionAccuracy: true,
  overallNames: {
    // print_qa_metrics.py's "Overall Accuracy": every question, abstention ones included.
    all: { label: 'all, official', note: 'official LongMemEval convention' },
    // Not a figure of the paper: the six types without their abstention questions, which
    // `overall.abstention` scores alone.
    answerable: {
      label: 'non-abstention',
      note: 'answerable questions, abstention left out',
    },
  },
  reportFormats: [
    {
      id: 'longmemeval',
      label: 'LongMemEval accuracy',
      help: "LongMemEval's QA accuracy (J ×100): the six question types, task-averaged, overall, abstention",
      layout: {
        scheme: 'official',
        // print_qa_metrics.py's order: its type2acc rows, then task-averaged, overall, abstention.
        groups: [
          'single-session-user',
          'single-session-preference',
          'single-session-assistant',
          'multi-session',
          'temporal-reasoning',
          'knowledge-update',
          'task-averaged',
          null,
          'abstention',
        ],
        overalls: { abstention: 'abstention', 'task-averaged': 'taskAveraged' },
        tasks: true,
        metrics: [{ id: 'judge', sub: null }],
        decimals: 1,
        caption:
          'QA accuracy ×100 by the LLM judge (LongMemEval print_qa_metrics.py); each question type counts its abstention questions, which "abstention" also scores alone',
      },
    },
  ],
};

/**
 * The question with the date it is asked. The reference reader (src/generation/run_generation.py)
 * ends its prompt `Current Date: {question_date}\nQuestion: {question}\nAnswer:`; the workbench's
 * prompts have their own `Question:` slot, so the date follows the question in it. The one place
 * that wording lives: a byte-for-byte LongMemEval reader replaces this function.
 */
export function currentDateQuestion(question: string, questionDateText: string): string {
  return `${question} (Current Date: ${questionDateText})`;
}
