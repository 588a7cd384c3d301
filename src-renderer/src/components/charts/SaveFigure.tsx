import { useState, type RefObject } from 'react';
import { downloadBlob } from '../../lib/download';
import { withLightChartColors } from './chartColors';

/** PNGs at twice the on-screen size: sharp in a paper's two-column figure. */
const PNG_SCALE = 2;

/**
 * The chart's SVG as a standalone file: its size, a white background, the light theme's colours
 * and the app's font set on the root, so it looks the same outside the page (XMLSerializer writes the namespace itself; a
 * second xmlns attribute would make the file unreadable).
 */
function standaloneSvg(svg: SVGSVGElement): { text: string; width: number; height: number } {
  const { width, height } = svg.getBoundingClientRect();
  const copy = svg.cloneNode(true) as SVGSVGElement;
  copy.setAttribute('width', String(Math.round(width)));
  copy.setAttribute('height', String(Math.round(height)));
  copy.setAttribute('font-family', getComputedStyle(svg).fontFamily || 'sans-serif');
  const background = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  background.setAttribute('width', '100%');
  background.setAttribute('height', '100%');
  background.setAttribute('fill', '#ffffff');
  copy.insertBefore(background, copy.firstChild);
  const text = withLightChartColors(new XMLSerializer().serializeToString(copy));
  return { text, width, height };
}

async function pngOf(svg: { text: string; width: number; height: number }): Promise<Blob> {
  // A data: URL, not a blob: one: the page's Content-Security-Policy allows only data: images.
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg.text)}`;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(svg.width * PNG_SCALE);
  canvas.height = Math.round(svg.height * PNG_SCALE);
  const context = canvas.getContext('2d');
  if (context === null) throw new Error('Save figure: the canvas has no 2D context');
  context.scale(PNG_SCALE, PNG_SCALE);
  context.drawImage(image, 0, 0, svg.width, svg.height);
  return new Promise<Blob>((resolve, reject) =>
    canvas.toBlob(
      (blob) => (blob ? resolve(blob) : reject(new Error('Save figure: PNG encoding failed'))),
      'image/png',
    ),
  );
}

/** "Save figure" as SVG or PNG for the chart drawn inside `plot`; `name` is the file's stem. */
export function SaveFigure({ plot, name }: { plot: RefObject<HTMLElement | null>; name: string }) {
  const [error, setError] = useState<string | null>(null);
  const stem = name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'figure';
  const save = async (format: 'svg' | 'png') => {
    setError(null);
    // The plot's own surface, not a legend icon's (they share the class).
    const svg = plot.current?.querySelector('.recharts-wrapper > svg.recharts-surface');
    if (!(svg instanceof SVGSVGElement)) {
      setError('Save figure: the chart is not drawn yet');
      return;
    }
    try {
      const standalone = standaloneSvg(svg);
      const blob =
        format === 'svg'
          ? new Blob([standalone.text], { type: 'image/svg+xml' })
          : await pngOf(standalone);
      downloadBlob(blob, `${stem}.${format}`);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };
  return (
    <div className="save-figure" role="group" aria-label={`Save figure: ${name}`}>
      <span className="muted" aria-hidden="true">
        Save figure
      </span>
      <button type="button" className="small-button" onClick={() => void save('svg')}>
        SVG
      </button>
      <button type="button" className="small-button" onClick={() => void save('png')}>
        PNG
      </button>
      {error ? (
        <span role="alert" className="text-danger">
          {error}
        </span>
      ) : null}
    </div>
  );
}
