/**
 * Relative date expressions resolved against the session's date, written the way LoCoMo's gold
 * answers write dates ("7 May 2023", "The week before 9 June 2023", "2022", "June 2023",
 * "The sunday before 25 May 2023"). Pure functions over zone-less ISO dates.
 */

import { MONTH_NAMES, monthYear } from '../../../src-shared/calendar';

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  few: 3,
  couple: 2,
};

export interface CalendarDate {
  year: number;
  month: number; // 1-12
  day: number;
}

/** `2023-05-08T13:56:00` -> {2023, 5, 8}; null for anything else. */
export function parseIsoDate(iso: string | null | undefined): CalendarDate | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso ?? '');
  if (!match) return null;
  return { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) };
}

function toUtc(date: CalendarDate): Date {
  return new Date(Date.UTC(date.year, date.month - 1, date.day));
}

function fromUtc(date: Date): CalendarDate {
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

export function addDays(date: CalendarDate, days: number): CalendarDate {
  const d = toUtc(date);
  d.setUTCDate(d.getUTCDate() + days);
  return fromUtc(d);
}

function addMonths(date: CalendarDate, months: number): { year: number; month: number } {
  const index = date.year * 12 + (date.month - 1) + months;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

/** "7 May 2023", the dataset's day format. */
export function formatDay(date: CalendarDate): string {
  return `${date.day} ${MONTH_NAMES[date.month - 1]} ${date.year}`;
}

export function formatMonth(year: number, month: number): string {
  return monthYear(year, month);
}

function count(word: string): number | null {
  if (/^\d+$/.test(word)) return Number(word);
  return NUMBER_WORDS[word] ?? null;
}

export interface DateMention {
  /** The words in the text that produced it. */
  phrase: string;
  /** The resolved answer in the dataset's style. */
  answer: string;
  /** Absolute mentions (a year, a month name) are kept as written; relative ones are resolved. */
  relative: boolean;
}

const RELATIVE_PATTERNS: Array<{
  pattern: RegExp;
  resolve: (match: RegExpExecArray, base: CalendarDate) => string | null;
}> = [
  { pattern: /\byesterday\b/i, resolve: (_m, base) => formatDay(addDays(base, -1)) },
  { pattern: /\btomorrow\b/i, resolve: (_m, base) => formatDay(addDays(base, 1)) },
  {
    pattern: /\b(?:today|tonight|this morning|this afternoon|this evening)\b/i,
    resolve: (_m, base) => formatDay(base),
  },
  {
    pattern: /\blast (sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/i,
    resolve: (m, base) => `The ${m[1]!.toLowerCase()} before ${formatDay(base)}`,
  },
  {
    pattern: /\bnext (sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/i,
    resolve: (m, base) => `The ${m[1]!.toLowerCase()} after ${formatDay(base)}`,
  },
  { pattern: /\blast weekend\b/i, resolve: (_m, base) => `The weekend before ${formatDay(base)}` },
  { pattern: /\bthis weekend\b/i, resolve: (_m, base) => `The weekend of ${formatDay(base)}` },
  { pattern: /\bnext weekend\b/i, resolve: (_m, base) => `The weekend after ${formatDay(base)}` },
  { pattern: /\blast week\b/i, resolve: (_m, base) => `The week before ${formatDay(base)}` },
  { pattern: /\bnext week\b/i, resolve: (_m, base) => `The week after ${formatDay(base)}` },
  {
    pattern: /\blast month\b/i,
    resolve: (_m, base) => {
      const { year, month } = addMonths(base, -1);
      return formatMonth(year, month);
    },
  },
  {
    pattern: /\bnext month\b/i,
    resolve: (_m, base) => {
      const { year, month } = addMonths(base, 1);
      return formatMonth(year, month);
    },
  },
  { pattern: /\bthis month\b/i, resolve: (_m, base) => formatMonth(base.year, base.month) },
  { pattern: /\blast year\b/i, resolve: (_m, base) => String(base.year - 1) },
  { pattern: /\bnext year\b/i, resolve: (_m, base) => String(base.year + 1) },
  { pattern: /\bthis year\b/i, resolve: (_m, base) => String(base.year) },
  {
    pattern:
      /\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple)(?: of)? (day|week|month|year)s? ago\b/i,
    resolve: (m, base) => {
      const n = count(m[1]!.toLowerCase());
      if (n === null) return null;
      switch (m[2]!.toLowerCase()) {
        case 'day':
          return formatDay(addDays(base, -n));
        case 'week':
          return n === 1
            ? `The week before ${formatDay(base)}`
            : `${n} weeks before ${formatDay(base)}`;
        case 'month': {
          const { year, month } = addMonths(base, -n);
          return formatMonth(year, month);
        }
        default:
          return String(base.year - n);
      }
    },
  },
];

const MONTH_PATTERN = new RegExp(
  `\\b(?:(\\d{1,2})(?:st|nd|rd|th)? )?(${MONTH_NAMES.join('|')})(?:,? (\\d{4}))?\\b`,
  'i',
);

/**
 * Date mentions in a text, relative ones resolved against `base` (the session's date). Relative
 * mentions come first: they are what LoCoMo's temporal questions are built from.
 */
export function findDateMentions(text: string, base: CalendarDate | null): DateMention[] {
  const mentions: DateMention[] = [];
  if (base) {
    for (const { pattern, resolve } of RELATIVE_PATTERNS) {
      const match = pattern.exec(text);
      if (!match) continue;
      const answer = resolve(match, base);
      if (answer) mentions.push({ phrase: match[0], answer, relative: true });
    }
  }
  const month = MONTH_PATTERN.exec(text);
  if (month) {
    const name = MONTH_NAMES.find((m) => m.toLowerCase() === month[2]!.toLowerCase())!;
    const year = month[3] ?? (base ? String(base.year) : '');
    const answer = month[1] ? `${Number(month[1])} ${name} ${year}` : `${name} ${year}`;
    mentions.push({ phrase: month[0], answer: answer.trim(), relative: false });
  }
  const year = /\b(?:in|since|from|of) ((?:19|20)\d{2})\b/.exec(text);
  if (year) mentions.push({ phrase: year[0], answer: year[1]!, relative: false });
  return mentions;
}

export const WEEKDAY_NAMES = WEEKDAYS;
