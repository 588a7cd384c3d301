import type { Locator } from '@playwright/test';

/** WCAG contrast of an element's text against the first opaque background behind it. */
export async function contrastOf(locator: Locator): Promise<{ ratio: number; background: number }> {
  return locator.evaluate((outer) => {
    // The colour that paints the text is the innermost wrapper's (a legend entry's text sits in
    // a span inside recharts' coloured one).
    let element: Element = outer;
    while (
      element.children.length === 1 &&
      element.children[0]?.textContent === element.textContent
    )
      element = element.children[0] as Element;
    const rgb = (value: string): [number, number, number, number] => {
      const parts = value.match(/[\d.]+/g)?.map(Number) ?? [0, 0, 0];
      return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0, parts[3] ?? 1];
    };
    const luminance = ([r, g, b]: number[]) => {
      const channel = (c: number) => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r ?? 0) + 0.7152 * channel(g ?? 0) + 0.0722 * channel(b ?? 0);
    };
    let node: Element | null = element;
    let background: number[] | null = null;
    while (node && background === null) {
      const color = rgb(getComputedStyle(node).backgroundColor);
      if (color[3] > 0.5) background = color;
      node = node.parentElement;
    }
    const text = luminance(rgb(getComputedStyle(element).color));
    const back = luminance(background ?? [255, 255, 255]);
    return {
      ratio: (Math.max(text, back) + 0.05) / (Math.min(text, back) + 0.05),
      background: back,
    };
  });
}
