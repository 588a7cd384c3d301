import type { DatasetSummary } from '@shared/api';
import {
  DEFAULT_SCHEME,
  allCategoryIds,
  isSchemeId,
  type BenchmarkProfile,
  type CategoryId,
  type SchemeId,
} from '@shared/benchmarks';
import type { QA, Sample, Session, Turn } from '@shared/dataset/types';
import { formatCount, plural } from '../../lib/format';

/**
 * The category filter's universe: every registered benchmark's numbers, so the URL state can be
 * read before the view knows whose dataset or run it shows (its checkboxes list its own).
 */
const FILTER_CATEGORY_IDS: readonly CategoryId[] = allCategoryIds();

/**
 * Pure data shaping for the Datasets view: URL state, the flattened turn rows the virtualiser
 * renders, question filtering and display strings. Kept out of the components so it is tested
 * under plain Node.
 */

// ---------------------------------------------------------------------------------------------
// URL state

/** Everything the view needs to be reopened as it was; lives in the hash (router.ts). */
export interface DatasetsParams {
  dataset: string | null;
  sample: string | null;
  scheme: SchemeId;
  /** Categories shown in the question list; all of them when the URL says nothing. */
  categories: CategoryId[];
  search: string;
  /** The selected question's index within the sample. */
  question: number | null;
  /** The samples table's sort, as sortParam writes it; null: file order. */
  sort: string | null;
}

export type DatasetsParamsPatch = Partial<DatasetsParams>;

export function parseDatasetsParams(params: URLSearchParams): DatasetsParams {
  const scheme = params.get('scheme');
  const cats = params.get('cats');
  const question = params.get('question');
  const questionIndex = question !== null && /^\d+$/.test(question) ? Number(question) : null;
  return {
    dataset: params.get('dataset') || null,
    sample: params.get('sample') || null,
    scheme: isSchemeId(scheme) ? scheme : DEFAULT_SCHEME,
    categories:
      cats === null
        ? [...FILTER_CATEGORY_IDS]
        : FILTER_CATEGORY_IDS.filter((id) =>
            cats
              .split(',')
              .map(Number)
              .some((n) => n === id),
          ),
    search: params.get('q') ?? '',
    question: questionIndex,
    sort: params.get('sort') || null,
  };
}

/** The inverse of parseDatasetsParams; defaults are left out so URLs stay short. */
export function datasetsParamsToRecord(state: DatasetsParams): Record<string, string> {
  const out: Record<string, string> = {};
  if (state.dataset) out.dataset = state.dataset;
  if (state.sample) out.sample = state.sample;
  if (state.scheme !== DEFAULT_SCHEME) out.scheme = state.scheme;
  if (state.categories.length !== FILTER_CATEGORY_IDS.length) out.cats = state.categories.join(',');
  if (state.search) out.q = state.search;
  if (state.question !== null) out.question = String(state.question);
  if (state.sort) out.sort = state.sort;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Opened datasets

/**
 * The list call lags behind an upload that just finished; merging the upload's own summary in
 * keeps the selection from flickering to another dataset while the list reloads.
 */
export function mergeDatasets(
  listed: readonly DatasetSummary[] | undefined,
  justOpened: DatasetSummary | null,
): DatasetSummary[] {
  const out = [...(listed ?? [])];
  if (justOpened && !out.some((d) => d.datasetId === justOpened.datasetId)) out.push(justOpened);
  return out;
}

export function pickDataset(
  datasets: readonly DatasetSummary[],
  wanted: string | null,
): DatasetSummary | null {
  return datasets.find((d) => d.datasetId === wanted) ?? datasets[0] ?? null;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export { formatCount, plural };

// ---------------------------------------------------------------------------------------------
// Turns

export type TurnRow =
  { kind: 'session'; key: string; session: Session } | { kind: 'turn'; key: string; turn: Turn };

export interface TurnRows {
  rows: TurnRow[];
  /** dia_id -> row index, for scrolling to evidence. */
  rowOfTurn: Map<string, number>;
  /** session number -> row index of its header. */
  rowOfSession: Map<number, number>;
}

/** Session headers interleaved with turns: one flat list is what a virtualiser scrolls best. */
export function buildTurnRows(sample: Sample): TurnRows {
  const rows: TurnRow[] = [];
  const rowOfTurn = new Map<string, number>();
  const rowOfSession = new Map<number, number>();
  for (const session of sample.sessions) {
    rowOfSession.set(session.index, rows.length);
    rows.push({ kind: 'session', key: `s${session.index}`, session });
    for (const turn of session.turns) {
      rowOfTurn.set(turn.diaId, rows.length);
      rows.push({ kind: 'turn', key: turn.diaId, turn });
    }
  }
  return { rows, rowOfTurn, rowOfSession };
}

/**
 * The caption is shown apart from what the speaker wrote, so a reader can tell the dataset's
 * BLIP caption (what memory systems see inlined) from the conversation itself.
 */
export function splitTurnText(turn: Turn): { caption: string | null; body: string } {
  if (turn.blipCaption) return { caption: `[Image: ${turn.blipCaption}]`, body: turn.rawText };
  return { caption: null, body: turn.rawText };
}

const MONTHS = [
  'Jan',
  'Feb',
  'Mar',
  'Apr',
  'May',
  'Jun',
  'Jul',
  'Aug',
  'Sep',
  'Oct',
  'Nov',
  'Dec',
] as const;

/**
 * Formats the zone-less ISO time by hand: `new Date()` would read it as local time and a
 * timezone-dependent rendering of a zone-less source would be misleading.
 */
export function formatSessionDate(session: Session): string {
  const match = session.dateTime
    ? /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(session.dateTime)
    : null;
  if (match) {
    const [, year, month, day, hour, minute] = match;
    return `${Number(day)} ${MONTHS[Number(month) - 1] ?? month} ${year}, ${hour}:${minute}`;
  }
  return session.dateTimeText ?? 'no date';
}

// ---------------------------------------------------------------------------------------------
// Questions

export function filterQuestions(
  qa: readonly QA[],
  categories: readonly CategoryId[],
  search: string,
): QA[] {
  const wanted = new Set(categories);
  const needle = search.trim().toLowerCase();
  return qa.filter((q) => {
    if (!wanted.has(q.category)) return false;
    if (needle === '') return true;
    return [q.question, q.answer ?? '', q.adversarialAnswer ?? '', ...q.evidenceRaw].some((s) =>
      s.toLowerCase().includes(needle),
    );
  });
}

export function countByCategory(
  qa: readonly QA[],
  profile: BenchmarkProfile,
): Record<CategoryId, number> {
  const out: Record<CategoryId, number> = {};
  for (const c of profile.categories) out[c.id] = 0;
  for (const q of qa) if (out[q.category] !== undefined) out[q.category]++;
  return out;
}

/** Category 5 mostly has no gold answer, only the tempting wrong one (DESIGN.md §4). */
export function answerLabel(q: QA): string {
  if (q.answer !== null) return q.answer;
  if (q.adversarialAnswer !== null) return `adversarial: ${q.adversarialAnswer}`;
  return '(no answer)';
}

export function toggleCategory(current: readonly CategoryId[], id: CategoryId): CategoryId[] {
  const set = new Set(current);
  if (set.has(id)) set.delete(id);
  else set.add(id);
  return FILTER_CATEGORY_IDS.filter((c) => set.has(c));
}
