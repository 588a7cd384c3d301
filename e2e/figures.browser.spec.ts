import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIGURE_SIZES } from '../src-renderer/src/components/charts/figure/layout';
import { makeFigureGallery } from '../scripts/figure-gallery';
import { labelCollisions, outside, readSvgFigure } from '../tests/support/svgFigure';
import { expect, test } from './fixtures';

/** PNG width from its IHDR chunk. */
const pngWidth = (bytes: Buffer): number => bytes.readUInt32BE(16);

// The gallery script as CI runs it: five real offline runs (a 2 × 2 sweep and a BEAM-shaped run)
// through the CLI, the built renderer served, every "Save figure" clicked in Chromium. The
// budget is the work's (about 140 s at load 2-4 here), set once, not raised to pass.
test.setTimeout(360_000);

test('the figure gallery saves every chart at one-column width with axis titles, legends and clear labels', async () => {
  const out = mkdtempSync(join(tmpdir(), 'mw-figures-out-'));
  try {
    const files = await makeFigureGallery(out);
    expect(files.map((f) => f.key)).toEqual([
      'runs-per-category',
      'runs-curve',
      'compare-per-category',
      'sweep-heatmap',
      'beam-abilities',
    ]);
    for (const file of files) {
      const svg = readSvgFigure(readFileSync(file.svg, 'utf8'));
      const texts = (role: string): string[] =>
        svg.items.filter((i) => i.role === role && i.tag === 'text').map((i) => i.text ?? '');
      // One column: 3.5 in, and every mark, label and title inside the page.
      expect(svg.width, file.key).toBeCloseTo(FIGURE_SIZES['one-column'].width, 1);
      expect(outside(svg), file.key).toEqual([]);
      expect(texts('axis-title-y'), file.key).toHaveLength(1);
      expect(texts('axis-title-x'), file.key).toHaveLength(1);
      expect(labelCollisions(svg.items), file.key).toEqual([]);
      // The PNG at 300 dpi; the PDF a PDF; the caption says n.
      expect(pngWidth(readFileSync(file.png)), file.key).toBe(1050);
      expect(readFileSync(file.pdf, 'latin1').startsWith('%PDF-1.4'), file.key).toBe(true);
      expect(readFileSync(file.caption, 'utf8'), file.key).toMatch(/\bn = \d/);
      expect(svg.desc, file.key).toBe(readFileSync(file.caption, 'utf8').trimEnd());
    }
    const read = (key: string) =>
      readSvgFigure(readFileSync(files.find((f) => f.key === key)?.svg ?? '', 'utf8'));
    const textsOf = (key: string, role: string): string[] =>
      read(key)
        .items.filter((i) => i.role === role && i.tag === 'text')
        .map((i) => i.text ?? '');

    // The y titles are the metric's registry label, not typed per chart.
    expect(textsOf('runs-per-category', 'axis-title-y')).toEqual(['Official F1']);
    expect(textsOf('beam-abilities', 'axis-title-y')[0]).toMatch(/evidence recall/i);
    expect(textsOf('runs-curve', 'axis-title-x')).toEqual(['dialogs inserted']);
    // Legends: Compare names its three runs, the curve its two samples, the heatmap its scale.
    expect(textsOf('compare-per-category', 'legend')).toEqual([
      expect.stringMatching(/^A .*baseline/),
      expect.stringMatching(/^B /),
      expect.stringMatching(/^C /),
    ]);
    expect(textsOf('runs-curve', 'legend')).toEqual(['fig-1', 'fig-2']);
    expect(textsOf('sweep-heatmap', 'legend')).toEqual([expect.stringMatching(/^Mean /)]);
    // The heatmap's colours span F1's registered 0-1 by default, and its caption says so.
    expect(
      read('sweep-heatmap')
        .items.filter((i) => i.role === 'colorbar' && i.tag === 'text')
        .map((i) => i.text),
    ).toEqual(['1.00', '0.00']);
    expect(read('sweep-heatmap').desc).toContain(
      "The colour scale spans the metric's full range, 0.00–1.00.",
    );
    // The curve's x axis reads at one column: 4 to 6 round ticks, not two.
    const xTicks = textsOf('runs-curve', 'tick').filter((t) => /^[\d,]+$/.test(t));
    expect(xTicks.length, xTicks.join(' ')).toBeGreaterThanOrEqual(4);
    expect(xTicks.length, xTicks.join(' ')).toBeLessThanOrEqual(6);
    // One run's bars carry whiskers and their value labels, each beyond its whisker's cap.
    const runs = read('runs-per-category');
    const labels = runs.items.filter((i) => i.role === 'value-label');
    expect(labels.length).toBeGreaterThan(0);
    for (const label of labels) {
      const caps = runs.items.filter((i) => i.role === 'whisker' && i.group === label.group);
      for (const cap of caps) expect(label.box.y + label.box.h).toBeLessThanOrEqual(cap.box.y);
    }
    expect(runs.items.some((i) => i.role === 'whisker')).toBe(true);
    // BEAM's ten abilities by name, whole (never broken inside a word).
    expect(textsOf('beam-abilities', 'tick')).toContain('10 temporal_reasoning (n=2)');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
