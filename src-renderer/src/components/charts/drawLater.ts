import { useEffect, useState } from 'react';
import { flushSync } from 'react-dom';

/** Charts waiting to draw, oldest first; one draws per task. */
const waiting: Array<() => void> = [];
let timer: ReturnType<typeof setTimeout> | undefined;

function drawNext(): void {
  timer = undefined;
  const draw = waiting.shift();
  if (draw === undefined) return;
  // Rendered and committed now, in this task: the next chart gets a task of its own.
  flushSync(draw);
  if (waiting.length > 0) timer = setTimeout(drawNext, 0);
}

/**
 * False on a chart's first render, true a task later, one chart per task. A recharts chart
 * mounts through its own store, synchronously, whatever React's priority: the run view's two
 * charts drew in the same task as the view they sit in (150-300 ms on a loaded machine). Drawn
 * later, the page around them shows first and each chart is a task of its own. The plot's box
 * keeps its size meanwhile, so nothing moves when it draws.
 */
export function useDrawnLater(): boolean {
  const [drawn, setDrawn] = useState(false);
  useEffect(() => {
    const draw = (): void => setDrawn(true);
    waiting.push(draw);
    timer ??= setTimeout(drawNext, 0);
    return () => {
      const at = waiting.indexOf(draw);
      if (at >= 0) waiting.splice(at, 1);
    };
  }, []);
  return drawn;
}
