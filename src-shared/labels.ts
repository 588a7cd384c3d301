import { z } from 'zod';
import type { CategoryId } from './benchmarks/types';
import { csvField } from './csv';
import { WorkbenchError } from './errors';
import { CONTROL_CHARACTERS } from './runs';
import type { AgreementReport } from './scoring/agreement';
import type { HumanLabel, JudgeVsHuman } from './scoring/judgeError';

/**
 * Human labels of a run's final answers (issue 37 item 2): the labels a person may give, the
 * labelling sample's shape, and the CSV that carries labels between data folders. The runs DB
 * stores them (core/runs/labels.ts); the Runs view's labelling mode and `cli labels` show them.
 */

export type { HumanLabel };

/**
 * What a labeller may say of an answer, in the order the labelling mode offers them; the type is
 * scoring/judgeError.ts's, which says that only `correct` and `wrong` count in the statistics.
 */
export const HUMAN_LABELS = [
  'correct',
  'wrong',
  'unsure',
  'skip',
] as const satisfies readonly HumanLabel[];
// Every label of the type is offered: a label added there fails to compile here until it is.
const everyLabelOffered: Exclude<HumanLabel, (typeof HUMAN_LABELS)[number]> extends never
  ? true
  : never = true;
void everyLabelOffered;

/** A label that takes a side: the ones agreement and judge-vs-human figures are computed over. */
export function definiteLabel(label: HumanLabel): 0 | 1 | null {
  return label === 'correct' ? 1 : label === 'wrong' ? 0 : null;
}

export const MAX_LABELLER_NAME = 80;
/** Upper bound of the per-category sample size (a category with fewer answers gives all of them). */
export const MAX_LABEL_SAMPLE_PER_CATEGORY = 10_000;

export const labellerNameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_LABELLER_NAME)
  .refine((s) => !CONTROL_CHARACTERS.test(s), 'must not contain control characters');

export const humanLabelSchema = z.enum(HUMAN_LABELS);

/** One final answer of a run (the answers table's key). */
export const answerKeySchema = z
  .object({
    sampleId: z.string().min(1).max(200),
    testIndex: z.number().int().nonnegative(),
    questionIndex: z.number().int().nonnegative(),
  })
  .strict();
export type LabelAnswerKey = z.output<typeof answerKeySchema>;

export const labelSampleRequestSchema = z
  .object({
    /** Answers drawn per category (all of a category that has fewer). */
    perCategory: z.number().int().min(1).max(MAX_LABEL_SAMPLE_PER_CATEGORY),
    seed: z.number().int().nonnegative().max(0xffff_ffff),
  })
  .strict();
export type LabelSampleRequest = z.output<typeof labelSampleRequestSchema>;

/** One answer of the labelling sample, as a labeller sees it (the judges' verdicts left out). */
export interface LabelItem extends LabelAnswerKey {
  category: CategoryId;
  question: string;
  gold: string | null;
  prediction: string;
}

/** A run's labelling sample, in the order it is shown, with one labeller's labels so far. */
export interface LabellingSession extends LabelSampleRequest {
  runId: string;
  createdAt: string;
  items: LabelItem[];
  /** Per item (same order): this labeller's label, null where none yet; all null without one. */
  labels: Array<HumanLabel | null>;
  /** Where this labeller resumes: the first item without a label (items.length: all done). */
  next: number;
}

/** One stored label (also one CSV row). */
export interface HumanLabelRow extends LabelAnswerKey {
  runId: string;
  category: CategoryId;
  labeller: string;
  label: HumanLabel;
  /** ISO 8601 time the label was given. */
  labelledAt: string;
}

/** The id of the judge a run was scored with (its answers' own verdicts), beside rescore protocols. */
export const RUN_JUDGE = 'run';

/** A judge of a run whose verdicts can be set against the labels (`id`: RUN_JUDGE or a protocol). */
export interface JudgeOfRun {
  id: string;
  protocol: string;
  model: string;
}

/** A run's labels as statistics: the labelling panel's and `cli report`'s figures. */
export interface LabelAgreement {
  runId: string;
  /** Labellers by name; the rater order of `humans`' pairs. */
  labellers: string[];
  counts: Record<string, Record<HumanLabel, number>>;
  /** Answers with at least one label. */
  labelled: number;
  /** Agreement between labellers on correct / wrong; null with fewer than two labellers. */
  humans: AgreementReport | null;
  /** Each judge of the run with a verdict on the labelled answers, against their majority label. */
  judges: Array<JudgeOfRun & { vsHuman: JudgeVsHuman }>;
}

/** What `labels.import` stored. */
export interface LabelImportResult {
  imported: number;
  runs: string[];
  labellers: string[];
}

// ---------------------------------------------------------------------------------------------
// CSV: one row per label, so several labellers' files concatenate and import into any data folder
// that holds the run.

/** The CSV's columns, in order; an import needs each of them (extra columns are refused). */
export const LABEL_CSV_COLUMNS = [
  'run_id',
  'sample_id',
  'test_index',
  'question_index',
  'category',
  'labeller',
  'label',
  'labelled_at',
] as const;
type LabelCsvColumn = (typeof LABEL_CSV_COLUMNS)[number];

const csvInt = z
  .string()
  .regex(/^\d{1,9}$/, 'must be a whole number')
  .transform(Number);

/** A row's cells as text, checked and turned into a label row; each issue names its column. */
const labelCsvRowSchema = z
  .object({
    run_id: z.string().min(1, 'must not be empty').max(100),
    sample_id: z.string().min(1, 'must not be empty').max(200),
    test_index: csvInt,
    question_index: csvInt,
    category: csvInt,
    labeller: labellerNameSchema,
    label: humanLabelSchema,
    labelled_at: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 time' }),
  })
  .strict()
  .transform((r): HumanLabelRow => ({
    runId: r.run_id,
    sampleId: r.sample_id,
    testIndex: r.test_index,
    questionIndex: r.question_index,
    category: r.category,
    labeller: r.labeller,
    label: r.label,
    labelledAt: r.labelled_at,
  }));

export function labelsToCsv(rows: readonly HumanLabelRow[]): string {
  const cells = (r: HumanLabelRow): Record<LabelCsvColumn, string | number> => ({
    run_id: r.runId,
    sample_id: r.sampleId,
    test_index: r.testIndex,
    question_index: r.questionIndex,
    category: r.category,
    labeller: r.labeller,
    label: r.label,
    labelled_at: r.labelledAt,
  });
  const lines = [LABEL_CSV_COLUMNS.join(',')];
  for (const r of rows) {
    const c = cells(r);
    lines.push(LABEL_CSV_COLUMNS.map((col) => csvField(c[col])).join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** An import refused: `row` is the CSV line number (the header is line 1), `column` its name. */
function csvError(line: number, column: string | null, message: string): WorkbenchError {
  const where = column === null ? `row ${line}` : `row ${line}, column ${column}`;
  return new WorkbenchError('INVALID_INPUT', `labels CSV ${where}: ${message}`, {
    path: column === null ? [line] : [line, column],
    where,
  });
}

/**
 * RFC 4180 records (quoted fields may hold commas, quotes and newlines), each with the line it
 * starts on. A quoted field that `csvField` prefixed with `'` (text a spreadsheet would run as a
 * formula) reads back without the prefix.
 */
function csvRecords(text: string): Array<{ line: number; fields: string[] }> {
  const records: Array<{ line: number; fields: string[] }> = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let inQuotes = false;
  let line = 1;
  let start = 1;
  const endField = () => {
    fields.push(quoted && /^'[=+\-@\t\r]/.test(field) ? field.slice(1) : field);
    field = '';
    quoted = false;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (inQuotes) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') inQuotes = false;
      else {
        if (ch === '\n') line++;
        field += ch;
      }
    } else if (ch === '"' && field === '') {
      inQuotes = true;
      quoted = true;
    } else if (ch === ',') endField();
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endField();
      if (!(fields.length === 1 && fields[0] === '')) records.push({ line: start, fields });
      fields = [];
      line++;
      start = line;
    } else field += ch;
  }
  if (inQuotes) throw csvError(start, null, 'a quoted field is not closed');
  if (field !== '' || fields.length > 0) {
    endField();
    records.push({ line: start, fields });
  }
  return records;
}

/** A parsed CSV row and the line it starts on (for the errors of a later check). */
export interface LabelCsvRow {
  line: number;
  row: HumanLabelRow;
}

/** Parses a labels CSV; the first problem found is thrown, naming its row and column. */
export function parseLabelsCsv(text: string): LabelCsvRow[] {
  const records = csvRecords(text.startsWith('\ufeff') ? text.slice(1) : text);
  const header = records[0];
  if (header === undefined) throw csvError(1, null, 'the file is empty (no header row)');
  const expected = LABEL_CSV_COLUMNS.join(',');
  if (header.fields.join(',') !== expected)
    throw csvError(1, null, `the header must be ${expected} (got ${header.fields.join(',')})`);
  return records.slice(1).map(({ line, fields }) => {
    if (fields.length !== LABEL_CSV_COLUMNS.length)
      throw csvError(
        line,
        null,
        `has ${fields.length} fields, the header has ${LABEL_CSV_COLUMNS.length}`,
      );
    const parsed = labelCsvRowSchema.safeParse(
      Object.fromEntries(LABEL_CSV_COLUMNS.map((c, i) => [c, fields[i]])),
    );
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const column = issue?.path[0];
      throw csvError(
        line,
        typeof column === 'string' ? column : null,
        issue?.message ?? 'invalid row',
      );
    }
    return { line, row: parsed.data };
  });
}
