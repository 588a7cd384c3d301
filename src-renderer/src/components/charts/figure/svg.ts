import { markerPolygon, type Scene, type Shape } from './scene';

/** The font stack: Helvetica's metrics (textMetrics.ts) in each; the PDF names Helvetica itself. */
export const FIGURE_FONT = "Helvetica, Arial, 'Liberation Sans', sans-serif";

const num = (v: number): string => String(Math.round(v * 100) / 100);

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

function attrs(values: Record<string, string | number | undefined | null>): string {
  return Object.entries(values)
    .filter(
      (entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== null,
    )
    .map(([k, v]) => ` ${k}="${typeof v === 'number' ? num(v) : escapeXml(v)}"`)
    .join('');
}

function shapeSvg(s: Shape): string {
  const tags = { 'data-role': s.role, 'data-group': s.group };
  switch (s.kind) {
    case 'rect':
      return `<rect${attrs({ ...tags, x: s.x, y: s.y, width: s.w, height: s.h, fill: s.fill ?? 'none', stroke: s.stroke, 'stroke-width': s.strokeWidth })}/>`;
    case 'line':
      return `<polyline${attrs({ ...tags, points: s.points.map(([x, y]) => `${num(x)},${num(y)}`).join(' '), fill: 'none', stroke: s.stroke, 'stroke-width': s.strokeWidth, 'stroke-dasharray': s.dash, 'stroke-linejoin': 'round' })}/>`;
    case 'marker':
      if (s.shape === 'circle') {
        return `<circle${attrs({ ...tags, 'data-shape': s.shape, cx: s.x, cy: s.y, r: s.size / 2, fill: s.color, stroke: '#ffffff', 'stroke-width': 0.4 })}/>`;
      }
      return `<polygon${attrs({
        ...tags,
        'data-shape': s.shape,
        points: markerPolygon(s.shape, s.x, s.y, s.size)
          .map(([x, y]) => `${num(x)},${num(y)}`)
          .join(' '),
        fill: s.color,
        stroke: '#ffffff',
        'stroke-width': 0.4,
      })}/>`;
    case 'text':
      return `<text${attrs({
        ...tags,
        x: s.x,
        y: s.y,
        'font-size': s.size,
        'text-anchor': s.anchor,
        fill: s.fill,
        transform: s.rotate ? `rotate(${-s.rotate} ${num(s.x)} ${num(s.y)})` : undefined,
      })}>${escapeXml(s.text)}</text>`;
  }
}

/**
 * A standalone SVG: its size in inches (what a paper's layout reads), a viewBox in points, a
 * white background, every colour literal (no stylesheet, no CSS variable), the caption in <desc>.
 */
export function sceneToSvg(scene: Scene): string {
  const inches = (pt: number): string => `${num(pt / 72)}in`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg"${attrs({ width: inches(scene.width), height: inches(scene.height), viewBox: `0 0 ${num(scene.width)} ${num(scene.height)}`, 'font-family': FIGURE_FONT })}>`,
    `<title>${escapeXml(scene.title)}</title>`,
    `<desc>${escapeXml(scene.caption)}</desc>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    ...scene.shapes.map(shapeSvg),
    '</svg>',
    '',
  ].join('\n');
}
