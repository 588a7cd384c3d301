/**
 * LoCoMo session times look like `1:56 pm on 8 May, 2023`. Temporal questions ("when did X
 * happen?") are answered relative to these, so we store them parsed. The source has no time zone:
 * we return a zone-less ISO wall-clock string rather than pretend it was UTC.
 */

const MONTHS: Readonly<Record<string, number>> = {
  january: 1,
  february: 2,
  march: 3,
  april: 4,
  may: 5,
  june: 6,
  july: 7,
  august: 8,
  september: 9,
  october: 10,
  november: 11,
  december: 12,
};

const SESSION_TIME =
  /^(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([a-z]+)\.?,?\s+(\d{4})$/i;

function monthNumber(name: string): number | null {
  const lower = name.toLowerCase();
  const full = MONTHS[lower];
  if (full !== undefined) return full;
  // Accept three-letter (and `sept`) abbreviations; anything shorter is ambiguous.
  if (lower.length >= 3) {
    for (const [month, value] of Object.entries(MONTHS)) {
      if (month.startsWith(lower)) return value;
    }
  }
  return null;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** `1:56 pm on 8 May, 2023` -> `2023-05-08T13:56:00`; null when it is not a real date and time. */
export function parseSessionDateTime(text: string): string | null {
  const m = SESSION_TIME.exec(text.trim());
  if (!m) return null;
  const [, hh, mm, ampm, dd, monthName, yyyy] = m as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const hour12 = Number(hh);
  const minute = Number(mm);
  const day = Number(dd);
  const year = Number(yyyy);
  const month = monthNumber(monthName);
  if (month === null || hour12 < 1 || hour12 > 12 || minute > 59) return null;
  if (day < 1 || day > daysInMonth(year, month)) return null;
  // 12 am is midnight, 12 pm is noon.
  const hour = (hour12 % 12) + (ampm.toLowerCase() === 'p' ? 12 : 0);
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:00`;
}
