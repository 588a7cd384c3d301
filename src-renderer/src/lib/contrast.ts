/**
 * The text colour for a label on a coloured fill (a run's tag): black or white, whichever has the
 * higher WCAG contrast against it. One of the two always reaches 4.5:1, so a palette change
 * never makes a tag unreadable.
 */

function channel(c: number): number {
  const s = c / 255;
  return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
}

/** WCAG relative luminance of `#rrggbb`; null for anything else. */
export function luminanceOf(hex: string): number | null {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!match) return null;
  const [r, g, b] = match.slice(1).map((part) => channel(parseInt(part, 16))) as [
    number,
    number,
    number,
  ];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrastRatio(a: number, b: number): number {
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

export function inkOn(fill: string): '#000000' | '#ffffff' {
  const l = luminanceOf(fill);
  if (l === null) return '#ffffff';
  return contrastRatio(l, 0) >= contrastRatio(l, 1) ? '#000000' : '#ffffff';
}
