/**
 * Text widths in Helvetica's metrics (Adobe's Helvetica AFM, the same advance widths as Arial and
 * Liberation Sans), so a figure's layout and its collision checks measure the text the SVG, the
 * PNG and the PDF (which names the standard Helvetica font) draw.
 */

/** Advance widths of ASCII 32…126, in thousandths of an em. */
const ASCII_WIDTHS = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556,
  556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667,
  611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667,
  667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500,
  222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];

/** Widths of the few non-ASCII characters figures use (WinAnsi has them, so the PDF can too). */
const OTHER_WIDTHS: Readonly<Record<string, number>> = {
  '–': 556,
  '—': 1000,
  '·': 278,
  '…': 1000,
  '×': 584,
  '±': 584,
  '’': 222,
};

/** Font metrics a figure lays out with: ascent and descent as fractions of the font size. */
export const ASCENT = 0.718;
export const DESCENT = 0.207;

export function textWidth(text: string, fontSize: number): number {
  let units = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 63;
    units += ASCII_WIDTHS[code - 32] ?? OTHER_WIDTHS[ch] ?? 556;
  }
  return (units * fontSize) / 1000;
}

/** The text cut to fit `width`, ending in "…" when cut. */
export function fitText(text: string, fontSize: number, width: number): string {
  if (textWidth(text, fontSize) <= width) return text;
  let cut = text;
  while (cut.length > 1 && textWidth(`${cut}…`, fontSize) > width) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}…`;
}

/**
 * Lines of at most `width`, broken only between words (at spaces, or after "_" and "-"), never
 * inside one; a word wider than `width` alone is returned as null (the caller rotates the text).
 */
export function wrapText(text: string, fontSize: number, width: number): string[] | null {
  const words = text.split(/(?<=[ _-])/);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    const next = line + word;
    if (textWidth(next.trimEnd(), fontSize) <= width) {
      line = next;
      continue;
    }
    if (textWidth(word.trimEnd(), fontSize) > width) return null;
    lines.push(line.trimEnd());
    line = word;
  }
  if (line.trim() !== '') lines.push(line.trimEnd());
  return lines;
}
