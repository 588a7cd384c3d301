import type { SortingState } from '@tanstack/react-table';

/**
 * A table's sort in the URL hash: `f1.desc`, `category.asc`, or nothing for the table's own
 * order. One column at a time: a researcher reads "sorted by F1", not a sort key list.
 */
export function parseSort(value: string | null | undefined): SortingState {
  const match = /^([\w-]+)\.(asc|desc)$/.exec(value ?? '');
  return match?.[1] ? [{ id: match[1], desc: match[2] === 'desc' }] : [];
}

/** The inverse of parseSort; an unsorted table leaves the parameter out. */
export function formatSort(sorting: SortingState): string | null {
  const first = sorting[0];
  return first ? `${first.id}.${first.desc ? 'desc' : 'asc'}` : null;
}
