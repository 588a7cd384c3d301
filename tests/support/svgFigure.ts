import { textBox, overlaps, type Box } from '../../src-renderer/src/components/charts/figure/scene';

/**
 * Reads a saved figure's SVG back into what a reader sees: each text with its box (Helvetica's
 * metrics, as the figure was laid out with) and each shape's bounding box, by `data-role`. Tests
 * check a figure's geometry on the file itself, not on the objects that produced it.
 */

export interface SvgItem {
  tag: string;
  role: string | undefined;
  group: string | undefined;
  text: string | undefined;
  /** Its fill colour as written (a heatmap cell's colour), if any. */
  fill: string | undefined;
  box: Box;
}

const unescape = (s: string): string =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

function attributes(source: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of source.matchAll(/([\w:-]+)="([^"]*)"/g)) out[m[1] ?? ''] = unescape(m[2] ?? '');
  return out;
}

function pointsBox(points: string): Box {
  const xy = points
    .trim()
    .split(/\s+/)
    .map((p) => p.split(',').map(Number) as [number, number]);
  const xs = xy.map(([x]) => x);
  const ys = xy.map(([, y]) => y);
  return {
    x: Math.min(...xs),
    y: Math.min(...ys),
    w: Math.max(...xs) - Math.min(...xs),
    h: Math.max(...ys) - Math.min(...ys),
  };
}

export function readSvgFigure(svg: string): {
  width: number;
  height: number;
  items: SvgItem[];
  desc: string;
} {
  const root = attributes(/<svg\b([^>]*)>/.exec(svg)?.[1] ?? '');
  const [, , width = 0, height = 0] = (root['viewBox'] ?? '').split(/\s+/).map(Number);
  const items: SvgItem[] = [];
  for (const m of svg.matchAll(
    /<(text|rect|polyline|polygon|circle)\b([^>]*?)(?:\/>|>([^<]*)<\/\1>)/g,
  )) {
    const tag = m[1] ?? '';
    const a = attributes(m[2] ?? '');
    const base = { tag, role: a['data-role'], group: a['data-group'], fill: a['fill'] };
    if (tag === 'text') {
      const transform = /rotate\((-?[\d.]+)/.exec(a['transform'] ?? '');
      const text = unescape(m[3] ?? '');
      const anchor = (a['text-anchor'] ?? 'start') as 'start' | 'middle' | 'end';
      const box = textBox({
        x: Number(a['x']),
        y: Number(a['y']),
        text,
        size: Number(a['font-size']),
        anchor,
        rotate: transform ? -Number(transform[1]) : 0,
      });
      items.push({ ...base, text, box });
    } else if (tag === 'rect') {
      if (a['width']?.endsWith('%')) continue;
      const box = {
        x: Number(a['x']),
        y: Number(a['y']),
        w: Number(a['width']),
        h: Number(a['height']),
      };
      items.push({ ...base, text: undefined, box });
    } else if (tag === 'circle') {
      const r = Number(a['r']);
      items.push({
        ...base,
        text: undefined,
        box: { x: Number(a['cx']) - r, y: Number(a['cy']) - r, w: 2 * r, h: 2 * r },
      });
    } else {
      items.push({ ...base, text: undefined, box: pointsBox(a['points'] ?? '') });
    }
  }
  const desc = unescape(/<desc>([^<]*)<\/desc>/.exec(svg)?.[1] ?? '');
  return { width, height, items, desc };
}

/** Pairs of (value label, whisker or bar) whose boxes intersect: what a reader sees as a collision. */
export function labelCollisions(items: readonly SvgItem[]): Array<[SvgItem, SvgItem]> {
  const labels = items.filter((i) => i.role === 'value-label');
  const marks = items.filter((i) => i.role === 'whisker' || i.role === 'bar');
  const hits: Array<[SvgItem, SvgItem]> = [];
  for (const label of labels) {
    for (const mark of marks) {
      if (overlaps(label.box, mark.box)) hits.push([label, mark]);
    }
    for (const other of labels) {
      if (other !== label && overlaps(label.box, other.box)) hits.push([label, other]);
    }
  }
  return hits;
}

/** Items whose boxes leave the figure (a clipped tick, title or legend). */
export function outside(figure: {
  width: number;
  height: number;
  items: readonly SvgItem[];
}): SvgItem[] {
  const e = 0.01;
  return figure.items.filter(
    (i) =>
      i.box.x < -e ||
      i.box.y < -e ||
      i.box.x + i.box.w > figure.width + e ||
      i.box.y + i.box.h > figure.height + e,
  );
}
