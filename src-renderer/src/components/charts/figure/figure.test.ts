import { describe, expect, it } from 'vitest';
import { SERIES_COLORS, SEQUENTIAL_RAMP, inkOn, lightness, seriesStyle } from '@shared/palette';
import { labelCollisions, outside, readSvgFigure } from '../../../../../tests/support/svgFigure';
import { metricOf } from '@shared/metrics';
import { heatScale, heatScaleSentence, type HeatScaleBasis } from '@shared/sweeps';
import { barFigure, type BarFigureInput } from './barFigure';
import { curveFigure } from './curveFigure';
import { heatmapFigure } from './heatmapFigure';
import { FIGURE_SIZES, type FigureOptions } from './layout';
import { sceneToPdf } from './pdf';
import { sceneToSvg } from './svg';

const ONE_COLUMN: FigureOptions = { size: 'one-column', fontSize: 8 };

/** LoCoMo-shaped categories with whiskers reaching near 1 and 0, the hard cases for labels. */
function bars(seriesCount: number, spread: number): BarFigureInput {
  const means = [0.31, 0.52, 0.18, 0.86, 0.97];
  return {
    title: 'Official F1 per category',
    caption: 'caption',
    yTitle: 'Mean official F1',
    xTitle: 'Category (official LoCoMo names)',
    series: Array.from({ length: seriesCount }, (_, i) => ({
      label: `${String.fromCharCode(65 + i)} run ${i}`,
      style: seriesStyle(i),
    })),
    groups: ['multi-hop', 'temporal', 'open-domain', 'single-hop', 'adversarial'].map(
      (label, g) => ({
        label: `${g + 1} ${label}`,
        note: `n=${[282, 321, 96, 841, 446][g]}`,
        values: Array.from({ length: seriesCount }, (_, s) => {
          const value = Math.max(0, (means[g] ?? 0) - s * 0.07);
          return {
            value,
            interval: [Math.max(0, value - spread), Math.min(1, value + spread)] as const,
          };
        }),
      }),
    ),
  };
}

describe('a bar figure with whiskers, read back from its SVG', () => {
  it('puts every value label beyond its whisker cap, touching no whisker, bar or label', () => {
    const figure = barFigure(bars(1, 0.04), ONE_COLUMN);
    const svg = readSvgFigure(sceneToSvg(figure.scene));
    const labels = svg.items.filter((i) => i.role === 'value-label');
    expect(figure.valueLabels).toBe('shown');
    expect(labels).toHaveLength(5);
    expect(labelCollisions(svg.items)).toEqual([]);
    // Beyond the cap: each label sits above the top of its own whisker.
    for (const label of labels) {
      const own = svg.items.filter((i) => i.role === 'whisker' && i.group === label.group);
      const capTop = Math.min(...own.map((w) => w.box.y));
      expect(label.box.y + label.box.h).toBeLessThan(capTop);
    }
    expect(outside(svg)).toEqual([]);
  });

  it('drops every value label when the wide whiskers of three runs leave no room beside them', () => {
    const figure = barFigure(bars(3, 0.2), ONE_COLUMN);
    const svg = readSvgFigure(sceneToSvg(figure.scene));
    // At 3.5 in, five groups of three bars are ~13 pt wide and a label "0.52" at 7 pt ~15 pt:
    // each label would cross its neighbour's taller whisker, so none is drawn.
    expect(figure.valueLabels).toBe('dropped');
    expect(svg.items.filter((i) => i.role === 'value-label')).toEqual([]);
    expect(svg.items.filter((i) => i.role === 'whisker').length).toBe(5 * 3 * 3);
  });

  it('keeps labels at two-column width where the same bars have room', () => {
    const figure = barFigure(bars(3, 0.03), { size: 'two-column', fontSize: 8 });
    const svg = readSvgFigure(sceneToSvg(figure.scene));
    expect(figure.valueLabels).toBe('shown');
    expect(labelCollisions(svg.items)).toEqual([]);
  });

  it('titles both axes and names each series in a legend', () => {
    const svg = readSvgFigure(sceneToSvg(barFigure(bars(2, 0.05), ONE_COLUMN).scene));
    const texts = (role: string) =>
      svg.items.filter((i) => i.role === role && i.tag === 'text').map((i) => i.text);
    expect(texts('axis-title-y')).toEqual(['Mean official F1']);
    expect(texts('axis-title-x')).toEqual(['Category (official LoCoMo names)']);
    expect(texts('legend')).toEqual(['A run 0', 'B run 1']);
    expect(svg.width).toBeCloseTo(FIGURE_SIZES['one-column'].width);
  });

  it('turns category names upright instead of breaking a word when a name is wider than its bar', () => {
    const input = bars(1, 0.02);
    const wide = {
      ...input,
      groups: input.groups.map((g) => ({ ...g, label: `${g.label} knowledge_update_reasoning` })),
    };
    const svg = readSvgFigure(sceneToSvg(barFigure(wide, ONE_COLUMN).scene));
    const ticks = svg.items.filter((i) => i.role === 'tick' && i.text?.includes('knowledge'));
    expect(ticks).toHaveLength(5);
    for (const t of ticks) expect(t.text).toContain('knowledge_update_reasoning');
    expect(outside(svg)).toEqual([]);
  });
});

describe('a curve figure', () => {
  it('keeps the last x tick inside the figure and gives every line a legend entry', () => {
    const scene = curveFigure(
      {
        title: 'Accuracy as the conversation grows',
        caption: 'c',
        yTitle: 'Mean official F1',
        xTitle: 'dialogs inserted',
        lines: [0, 1].map((i) => ({
          label: `sample ${i}`,
          style: seriesStyle(i),
          points: [
            [2, 0.1],
            [410, 0.4],
            [1013, i === 0 ? 0.35 : null],
          ],
        })),
      },
      ONE_COLUMN,
    );
    const svg = readSvgFigure(sceneToSvg(scene));
    const ticks = svg.items.filter((i) => i.role === 'tick' && /^[\d,]+$/.test(i.text ?? ''));
    expect(ticks.map((t) => t.text)).toContain('1,000');
    expect(outside(svg)).toEqual([]);
    expect(
      svg.items.filter((i) => i.role === 'legend' && i.tag === 'text').map((i) => i.text),
    ).toEqual(['sample 0', 'sample 1']);
    expect(svg.items.find((i) => i.role === 'axis-title-x')?.text).toBe('dialogs inserted');
  });
});

describe("a curve figure's x axis at one-column width", () => {
  // The gallery's run: tests after 2 to 48 dialogs. "A step ≥ range / 4" gave only 20 and 40.
  const scene = (from: number, to: number) =>
    curveFigure(
      {
        title: 't',
        caption: 'c',
        yTitle: 'Mean official F1',
        xTitle: 'dialogs inserted',
        lines: [
          {
            label: 'fig-1',
            style: seriesStyle(0),
            points: [from, Math.round((from + to) / 2), to].map((x) => [x, 0.3] as const),
          },
        ],
      },
      ONE_COLUMN,
    );
  const xTicks = (from: number, to: number) =>
    readSvgFigure(sceneToSvg(scene(from, to))).items.filter(
      (i) => i.role === 'tick' && /^[\d,]+$/.test(i.text ?? ''),
    );

  it('has 4 to 6 round ticks, evenly spaced, every label clear of the others and inside', () => {
    for (const [from, to] of [
      [2, 48],
      [1, 9],
      [2, 1013],
      [3, 620],
    ] as const) {
      const ticks = xTicks(from, to);
      const where = `${from}..${to}: ${ticks.map((t) => t.text).join(' ')}`;
      expect(ticks.length, where).toBeGreaterThanOrEqual(4);
      expect(ticks.length, where).toBeLessThanOrEqual(6);
      const values = ticks.map((t) => Number((t.text ?? '').replace(/,/g, '')));
      const step = (values[1] ?? 0) - (values[0] ?? 0);
      values.forEach((v, i) => expect(v, where).toBe((values[0] ?? 0) + i * step));
      // Every step is 1, 2 or 5 × 10^k.
      expect(Number(String(step).replace(/0+$/, '')), where).toBeOneOf([1, 2, 5]);
      const svg = readSvgFigure(sceneToSvg(scene(from, to)));
      expect(labelCollisions(svg.items), where).toEqual([]);
      expect(outside(svg), where).toEqual([]);
    }
    expect(xTicks(2, 48).map((t) => t.text)).toEqual(['10', '20', '30', '40']);
  });
});

describe('a heatmap figure', () => {
  it('writes each cell readable on its fill and titles the colour scale', () => {
    const scene = heatmapFigure(
      {
        title: 't',
        caption: 'c',
        xTitle: 'topK',
        yTitle: 'preset',
        valueTitle: 'Mean official F1',
        xs: ['5', '10', '20'],
        ys: ['hybrid', 'vector'],
        cell: (x, y) => ({ mean: Number(x) / 40 + (y === 'hybrid' ? 0.1 : 0), n: 1 }),
        scale: { basis: 'metric', lo: 0, hi: 1 },
      },
      ONE_COLUMN,
    );
    const svg = readSvgFigure(sceneToSvg(scene));
    expect(svg.items.filter((i) => i.role === 'cell')).toHaveLength(6);
    expect(svg.items.find((i) => i.role === 'legend')?.text).toBe('Mean official F1');
    expect(svg.items.find((i) => i.role === 'axis-title-y')?.text).toBe('preset');
    expect(outside(svg)).toEqual([]);
  });
});

describe("a heatmap figure's colour scale", () => {
  // The gallery's sweep: four cells from 0.301 to 0.304 of an F1 bounded in [0, 1].
  const means: Record<string, number> = { '1:hybrid': 0.301, '5:hybrid': 0.304, '1:text': 0.302 };
  const cells = Object.entries(means).map(([key, mean]) => {
    const [x = '', y = ''] = key.split(':');
    return { x, y, mean, n: 1, ci: null, runIds: [] };
  });
  const figure = (basis: HeatScaleBasis) => {
    const scale = heatScale({ cells }, basis, metricOf('officialF1').range);
    const svg = readSvgFigure(
      sceneToSvg(
        heatmapFigure(
          {
            title: 't',
            caption: heatScaleSentence(scale),
            xTitle: 'retrieval.topK',
            yTitle: 'memory.preset',
            valueTitle: 'Mean official F1',
            xs: ['1', '5'],
            ys: ['hybrid', 'text'],
            cell: (x, y) => cells.find((c) => c.x === x && c.y === y),
            scale,
          },
          ONE_COLUMN,
        ),
      ),
    );
    const cellFill = (group: string): string =>
      svg.items.find((i) => i.role === 'cell' && i.group === group)?.fill ?? '';
    return {
      svg,
      // Cells by `${xi}:${yi}`: 0.301 at 0:0, 0.304 at 1:0.
      spread: Math.abs(lightness(cellFill('0:0')) - lightness(cellFill('1:0'))),
      ends: svg.items.filter((i) => i.role === 'colorbar' && i.tag === 'text').map((i) => i.text),
    };
  };

  it("spans the metric's registered range by default: 0.301 and 0.304 look alike", () => {
    const { svg, spread, ends } = figure('metric');
    expect(ends).toEqual(['1.00', '0.00']);
    expect(spread).toBeLessThan(2);
    expect(svg.desc).toBe("The colour scale spans the metric's full range, 0.00–1.00.");
    expect(outside(svg)).toEqual([]);
  });

  it("spans the cells' range only when chosen, and its caption says so", () => {
    const { svg, spread, ends } = figure('data');
    expect(ends).toEqual(['0.304', '0.301']);
    // The ramp's two ends: dark violet and yellow.
    expect(spread).toBeGreaterThan(50);
    expect(svg.desc).toMatch(/^The colour scale spans only the cells' range, 0\.301–0\.304, /);
  });
});

describe('the figure palette', () => {
  it('keeps the first four series apart in a greyscale print (ΔL* ≥ 10 between any two)', () => {
    const first = SERIES_COLORS.slice(0, 4).map(lightness);
    for (let i = 0; i < first.length; i++) {
      for (let j = i + 1; j < first.length; j++) {
        expect(Math.abs((first[i] ?? 0) - (first[j] ?? 0))).toBeGreaterThanOrEqual(10);
      }
    }
  });

  it('never leaves colour as the only cue: neighbours differ in dash and marker too', () => {
    for (let i = 1; i < 16; i++) {
      expect(seriesStyle(i).dash).not.toBe(seriesStyle(i - 1).dash);
      expect(seriesStyle(i).marker).not.toBe(seriesStyle(i - 1).marker);
    }
  });

  it('writes text on every series colour at 4.5:1 or more (run tags, heatmap cells)', () => {
    const y = (hex: string): number =>
      [1, 3, 5]
        .map((at) => Number.parseInt(hex.slice(at, at + 2), 16) / 255)
        .map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
        .reduce((sum, c, k) => sum + c * ([0.2126, 0.7152, 0.0722][k] ?? 0), 0);
    for (const fill of [...SERIES_COLORS, ...SEQUENTIAL_RAMP]) {
      const [a, b] = [y(fill), y(inkOn(fill))].sort((p, q) => q - p);
      expect(((a ?? 0) + 0.05) / ((b ?? 0) + 0.05), fill).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('orders the heatmap ramp by lightness, so grey keeps the order', () => {
    const ls = SEQUENTIAL_RAMP.map(lightness);
    for (let i = 1; i < ls.length; i++) expect(ls[i]).toBeGreaterThan(ls[i - 1] ?? 0);
  });
});

describe('a figure as PDF', () => {
  it('is a well-formed one-page PDF at the column width, with its text and caption', () => {
    const input = bars(2, 0.05);
    const scene = barFigure({ ...input, yTitle: 'Mean F1 – (all)' }, ONE_COLUMN).scene;
    const bytes = sceneToPdf({ ...scene, caption: 'n = 282 – 95% Δ' });
    const text = Buffer.from(bytes).toString('latin1');
    expect(text.startsWith('%PDF-1.4')).toBe(true);
    expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
    // Every xref offset points at its object's header.
    const xrefAt = Number(/startxref\n(\d+)/.exec(text)?.[1]);
    const offsets = text
      .slice(xrefAt)
      .split('\n')
      .filter((l) => / 00000 n $/.test(l))
      .map((l) => Number(l.slice(0, 10)));
    offsets.forEach((offset, i) => expect(text.slice(offset, offset + 8)).toBe(`${i + 1} 0 obj\n`));
    // The stream's declared length is its length.
    const stream = /\/Length (\d+) >>\nstream\n([\s\S]*?)\nendstream/.exec(text);
    expect(Number(stream?.[1])).toBe(stream?.[2]?.length);
    expect(text).toContain('/MediaBox [0 0 252 ');
    expect(text).toContain('(Category \\(official LoCoMo names\\)) Tj');
    // Drawn text in WinAnsi: the en dash is byte 0x96, parentheses escaped.
    expect(text).toContain('(Mean F1 \\226 \\(all\\)) Tj');
    // The caption in UTF-16BE, so "–" (U+2013) and "Δ" (U+0394) survive in the reader's properties.
    const subject = /\/Subject <FEFF([0-9A-F]*)>/.exec(text)?.[1] ?? '';
    const decoded = String.fromCharCode(
      ...(subject.match(/.{4}/g) ?? []).map((unit) => Number.parseInt(unit, 16)),
    );
    expect(decoded).toBe('n = 282 – 95% Δ');
  });
});
