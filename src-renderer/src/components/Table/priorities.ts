export interface PrioritisedColumn {
  id: string;
  /** Narrowest width in px. */
  min: number;
  /** 1 is always shown; the highest number is hidden first. */
  priority: number;
}

/**
 * The columns to hide so the rest fit `width` without a sideways scrollbar: lowest priority
 * first, the rightmost of a priority before its neighbours. Priority-1 columns (the ones a row
 * means nothing without: gold, prediction, F1) always stay; if they alone are too wide the
 * table scrolls sideways instead.
 */
export function hiddenColumns(columns: readonly PrioritisedColumn[], width: number): string[] {
  let total = columns.reduce((sum, c) => sum + c.min, 0);
  const hidden: string[] = [];
  const candidates = columns
    .map((c, index) => ({ ...c, index }))
    .filter((c) => c.priority > 1)
    .sort((a, b) => b.priority - a.priority || b.index - a.index);
  for (const c of candidates) {
    if (total <= width) break;
    hidden.push(c.id);
    total -= c.min;
  }
  return hidden;
}
