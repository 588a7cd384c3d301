import { markerPolygon, type Scene, type Shape } from './scene';
import { textWidth } from './textMetrics';

/**
 * A one-page PDF 1.4 of a figure, written from the same scene as its SVG: vector paths and text in
 * the standard Helvetica font (every PDF reader has it; nothing embedded), no browser involved.
 * Drawn text goes out in WinAnsiEncoding (a character it lacks is written as "?"); the title and
 * caption, in the document information, in UTF-16.
 */

const WIN_ANSI_EXTRA: Readonly<Record<string, number>> = {
  '–': 0x96,
  '—': 0x97,
  '…': 0x85,
  '’': 0x92,
  '·': 0xb7,
  '×': 0xd7,
  '±': 0xb1,
};

function pdfString(text: string): string {
  let out = '(';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 63;
    const byte = code >= 32 && code < 127 ? code : (WIN_ANSI_EXTRA[ch] ?? 63);
    if (byte === 40 || byte === 41 || byte === 92) out += `\\${String.fromCharCode(byte)}`;
    else if (byte >= 127) out += `\\${byte.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(byte);
  }
  return `${out})`;
}

/** A document-information string (Title, Subject): UTF-16BE with its byte-order mark, as hex. */
function infoString(text: string): string {
  let hex = 'FEFF';
  for (let i = 0; i < text.length; i++) hex += text.charCodeAt(i).toString(16).padStart(4, '0');
  return `<${hex.toUpperCase()}>`;
}

const n = (v: number): string => String(Math.round(v * 1000) / 1000);

function rgb(hex: string): string {
  const value = Number.parseInt(hex.replace('#', '').padEnd(6, '0').slice(0, 6), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255].map((c) => n(c / 255)).join(' ');
}

function dashOf(dash: string | undefined): string {
  return dash
    ? `[${dash
        .trim()
        .split(/[\s,]+/)
        .join(' ')}] 0 d`
    : '[] 0 d';
}

/** The shape's drawing operators; `h` is the page height (PDF's y axis points up). */
function shapeOps(s: Shape, h: number): string[] {
  const y = (v: number): string => n(h - v);
  switch (s.kind) {
    case 'rect': {
      const ops = [`${n(s.x)} ${y(s.y + s.h)} ${n(s.w)} ${n(s.h)} re`];
      const paint = [];
      if (s.fill) paint.push(`${rgb(s.fill)} rg`);
      if (s.stroke) paint.push(`${rgb(s.stroke)} RG ${n(s.strokeWidth ?? 1)} w [] 0 d`);
      const op = s.fill && s.stroke ? 'B' : s.fill ? 'f' : s.stroke ? 'S' : 'n';
      return [...paint, ...ops, op];
    }
    case 'line': {
      const [first, ...rest] = s.points;
      if (!first) return [];
      return [
        `${rgb(s.stroke)} RG ${n(s.strokeWidth)} w ${dashOf(s.dash)} 1 j`,
        `${n(first[0])} ${y(first[1])} m`,
        ...rest.map(([px, py]) => `${n(px)} ${y(py)} l`),
        'S',
      ];
    }
    case 'marker': {
      const [first, ...rest] = markerPolygon(s.shape, s.x, s.y, s.size);
      if (!first) return [];
      return [
        `${rgb(s.color)} rg 1 1 1 RG 0.4 w [] 0 d`,
        `${n(first[0])} ${y(first[1])} m`,
        ...rest.map(([px, py]) => `${n(px)} ${y(py)} l`),
        'h B',
      ];
    }
    case 'text': {
      const width = textWidth(s.text, s.size);
      const shift = s.anchor === 'start' ? 0 : s.anchor === 'middle' ? -width / 2 : -width;
      const angle = ((s.rotate ?? 0) * Math.PI) / 180;
      const [cos, sin] = [Math.cos(angle), Math.sin(angle)];
      // The anchor shift runs along the text's own direction.
      const tx = s.x + shift * cos;
      const ty = h - s.y + shift * sin;
      return [
        'BT',
        `/F1 ${n(s.size)} Tf ${rgb(s.fill)} rg`,
        `${n(cos)} ${n(sin)} ${n(-sin)} ${n(cos)} ${n(tx)} ${n(ty)} Tm`,
        `${pdfString(s.text)} Tj`,
        'ET',
      ];
    }
  }
}

/** The PDF file's bytes (Latin-1 text: every byte below 256). */
export function sceneToPdf(scene: Scene): Uint8Array<ArrayBuffer> {
  const content = [
    '1 1 1 rg',
    `0 0 ${n(scene.width)} ${n(scene.height)} re f`,
    ...scene.shapes.flatMap((s) => shapeOps(s, scene.height)),
  ].join('\n');
  // Info strings are not in the font's WinAnsi but in PDFDocEncoding or UTF-16: UTF-16 keeps all.
  const info = `<< /Title ${infoString(scene.title)} /Subject ${infoString(scene.caption)} /Producer (Memory Workbench) >>`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${n(scene.width)} ${n(scene.height)}] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>`,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    info,
  ];
  let body = '%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info ${objects.length} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  const bytes = new Uint8Array(new ArrayBuffer(body.length));
  for (let i = 0; i < body.length; i++) bytes[i] = body.charCodeAt(i) & 255;
  return bytes;
}
