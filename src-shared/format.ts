// One formatter, made once: `n.toLocaleString('en-US')` builds a new Intl.NumberFormat on every
// call, and the run pickers and tables call it for each of hundreds of runs per render (25-40 ms
// of Compare's first render with 200 runs).
const COUNT = new Intl.NumberFormat('en-US');

/** A whole count with thousands separators, the same in every locale: 1,986. */
export function formatCount(n: number): string {
  return COUNT.format(n);
}

/** "1 sample", "10 samples": a count with its noun, singular for one (the CLI's and the UI's). */
export function plural(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`;
}
