import { stepKey } from '../../lib/rowKeys';

// "Why did it flip?" is built in src-shared (flipExplain.ts), so the HTML report explains a flip
// with the same sides, evidence and rank moves the Compare view shows.
export {
  flipSides,
  rankMoveMark,
  type EvidenceHit,
  type FlipRetrievedRow,
  type FlipSide,
  type JudgeView,
  type RankMove,
  type RankMoveMark,
} from '@shared/flipExplain';

// ---------------------------------------------------------------------------------------------
// Which question is open, and keyboard stepping through the filtered rows

/** The open question's key in the URL: `<sampleId>:<questionIndex>` (sample ids may hold ':'). */
export function openKey(sampleId: string, questionIndex: number): string {
  return `${sampleId}:${questionIndex}`;
}

export function parseOpenKey(
  key: string | null,
): { sampleId: string; questionIndex: number } | null {
  if (!key) return null;
  const cut = key.lastIndexOf(':');
  if (cut <= 0) return null;
  const questionIndex = Number(key.slice(cut + 1));
  if (!Number.isInteger(questionIndex) || questionIndex < 0) return null;
  return { sampleId: key.slice(0, cut), questionIndex };
}

/** The question `step` rows away from the open one among the rows shown (see stepKey). */
export function stepOpen(
  rows: ReadonlyArray<{ sampleId: string; questionIndex: number }>,
  open: string | null,
  step: 1 | -1,
): string | null {
  return stepKey(
    rows.map((r) => openKey(r.sampleId, r.questionIndex)),
    open,
    step,
  );
}

export type FlipKeyAction = 'next' | 'previous' | 'close' | 'improved' | 'regressed';

/**
 * j/k anywhere but in a text field, the arrows only when focus is in the questions table; i and
 * r toggle the improved and regressed filters, so "B is better: which questions?" needs no mouse.
 */
export function flipKeyAction(key: string, inTable: boolean): FlipKeyAction | null {
  if (key === 'i') return 'improved';
  if (key === 'r') return 'regressed';
  if (key === 'j' || (inTable && key === 'ArrowDown')) return 'next';
  if (key === 'k' || (inTable && key === 'ArrowUp')) return 'previous';
  if (key === 'Escape') return 'close';
  return null;
}
