/** English month names, as LoCoMo writes dates ("8 May, 2023") and as its gold answers name months. */
export const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

/** "May 2023"; month counts from 1. */
export function monthYear(year: number | string, month: number): string {
  return `${MONTH_NAMES[month - 1]} ${year}`;
}
