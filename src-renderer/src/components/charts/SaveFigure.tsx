import { useState } from 'react';
import { downloadBlob } from '../../lib/download';
import {
  FIGURE_FONT_SIZES,
  FIGURE_SIZES,
  DEFAULT_FIGURE_OPTIONS,
  sceneToPdf,
  sceneToSvg,
  type FigureFontSize,
  type FigureOptions,
  type FigureSize,
  type Scene,
} from './figure';

/** A PNG at 300 dpi, the resolution journals ask of line art's raster copies. */
const PNG_DPI = 300;

/** The last size and font picked, so every chart of a session saves alike. */
let lastOptions: FigureOptions = DEFAULT_FIGURE_OPTIONS;

async function pngOf(scene: Scene, svg: string): Promise<Blob> {
  // A data: URL, not a blob: one: the page's Content-Security-Policy allows only data: images.
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  await image.decode();
  const scale = PNG_DPI / 72;
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(scene.width * scale);
  canvas.height = Math.round(scene.height * scale);
  const context = canvas.getContext('2d');
  if (context === null) throw new Error('Save figure: the canvas has no 2D context');
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  return new Promise<Blob>((resolve, reject) =>
    canvas.toBlob(
      (blob) => (blob ? resolve(blob) : reject(new Error('Save figure: PNG encoding failed'))),
      'image/png',
    ),
  );
}

type Format = 'svg' | 'png' | 'pdf' | 'txt';

/**
 * "Save figure": the chart redrawn for print at a column's width and a font size (figure/), saved
 * as SVG, PNG or PDF; its caption (n, interval method) is copied to the clipboard with it and
 * can be saved beside it as text. `figure` draws the chart for the chosen options.
 */
export function SaveFigure({
  name,
  figure,
  pending = null,
}: {
  name: string;
  figure: (options: FigureOptions) => Scene;
  /**
   * Why the figure is not final yet (its intervals still computing), or null. Until then nothing
   * saves: a figure saved a moment early lacked the whiskers its caption, saved later, described.
   */
  pending?: string | null;
}) {
  const [options, setOptions] = useState<FigureOptions>(lastOptions);
  const [status, setStatus] = useState<{ text: string; error: boolean } | null>(null);
  const stem = name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'figure';
  const choose = (next: FigureOptions): void => {
    lastOptions = next;
    setOptions(next);
  };
  const save = async (format: Format) => {
    setStatus(null);
    try {
      const scene = figure(options);
      const svg = sceneToSvg(scene);
      const blob =
        format === 'svg'
          ? new Blob([svg], { type: 'image/svg+xml' })
          : format === 'png'
            ? await pngOf(scene, svg)
            : format === 'pdf'
              ? new Blob([sceneToPdf(scene)], { type: 'application/pdf' })
              : new Blob([`${scene.caption}\n`], { type: 'text/plain' });
      downloadBlob(blob, `${stem}-${options.size}.${format === 'txt' ? 'caption.txt' : format}`);
      let copied = false;
      try {
        await navigator.clipboard.writeText(scene.caption);
        copied = true;
      } catch {
        // No clipboard (an insecure context, or permission refused): the caption file remains.
      }
      setStatus({
        text: `Saved ${format === 'txt' ? 'the caption' : format.toUpperCase()}${copied ? '; caption copied' : ''}.`,
        error: false,
      });
    } catch (caught) {
      setStatus({ text: caught instanceof Error ? caught.message : String(caught), error: true });
    }
  };
  return (
    <div className="save-figure" role="group" aria-label={`Save figure: ${name}`}>
      <span className="muted" aria-hidden="true">
        Save figure
      </span>
      <select
        aria-label="Figure width"
        value={options.size}
        onChange={(e) => choose({ ...options, size: e.target.value as FigureSize })}
      >
        {(Object.keys(FIGURE_SIZES) as FigureSize[]).map((size) => (
          <option key={size} value={size}>
            {FIGURE_SIZES[size].label}
          </option>
        ))}
      </select>
      <select
        aria-label="Figure font size"
        value={options.fontSize}
        onChange={(e) => choose({ ...options, fontSize: Number(e.target.value) as FigureFontSize })}
      >
        {FIGURE_FONT_SIZES.map((size) => (
          <option key={size} value={size}>
            {size} pt
          </option>
        ))}
      </select>
      {(['svg', 'png', 'pdf'] as const).map((format) => (
        <button
          key={format}
          type="button"
          className="small-button"
          disabled={pending !== null}
          title={pending ?? undefined}
          onClick={() => void save(format)}
        >
          {format.toUpperCase()}
        </button>
      ))}
      <button
        type="button"
        className="small-button"
        disabled={pending !== null}
        title={pending ?? undefined}
        onClick={() => void save('txt')}
      >
        Caption
      </button>
      {pending !== null ? <span className="muted">{pending}</span> : null}
      {status ? (
        <span
          role={status.error ? 'alert' : 'status'}
          className={status.error ? 'text-danger' : 'muted'}
        >
          {status.text}
        </span>
      ) : null}
    </div>
  );
}
