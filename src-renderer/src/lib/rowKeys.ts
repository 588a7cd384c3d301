/**
 * Keyboard stepping through a list of rows (j/k, Esc), shared by the Runs answers table and
 * Compare's questions.
 */

/** Where a key is typing, not a command; a focused checkbox or radio is fine. */
export const TEXT_FIELDS =
  'input:not([type="checkbox"]):not([type="radio"]):not([type="button"]), textarea, select, [contenteditable="true"]';

/** True when a keydown should be left to the page: a modifier, or focus in a text field. */
export function isTypingOrModified(event: KeyboardEvent): boolean {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return true;
  const target = event.target as Element | null;
  return typeof target?.closest === 'function' && target.closest(TEXT_FIELDS) !== null;
}

/**
 * The key `step` rows away from the open one among `keys` (the rows shown, in their order).
 * Nothing open, or the open one filtered out: the first (next) or the last (previous). At either
 * end it stays put rather than wrapping, so holding a key never cycles unnoticed.
 */
export function stepKey(keys: readonly string[], open: string | null, step: 1 | -1): string | null {
  if (keys.length === 0) return null;
  const at = open === null ? -1 : keys.indexOf(open);
  if (at < 0) return step === 1 ? keys[0]! : keys[keys.length - 1]!;
  return keys[Math.min(keys.length - 1, Math.max(0, at + step))]!;
}
