/** What a spreadsheet reads as the start of a formula (OWASP "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * The one CSV cell writer: RFC 4180 quoting (fields holding a comma, quote, CR or LF are quoted,
 * inner quotes doubled), and text that a spreadsheet would run as a formula (`=HYPERLINK(…)`,
 * `=cmd|' /C calc'!A0`) neutralised as OWASP recommends: prefixed with `'` and quoted.
 * Whether a cell is data or text is decided by the value's type, not its look: a number (a score
 * of -0.5) is written as the number, while a string that starts with `-` (a prediction, a gold
 * answer) is text and gets the prefix.
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  if (FORMULA_START.test(value)) return `"'${value.replaceAll('"', '""')}"`;
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}
