/**
 * The figure gallery (docs/figures/): every chart as a user saves it, at one-column width, from
 * a real small offline run. It makes the runs with the CLI (a 2 × 2 sweep on a hand-written
 * LoCoMo-shaped fixture, and a BEAM-shaped run on the hand-written BEAM fixture; no LoCoMo or
 * BEAM data, whose licences forbid shipping it), serves the built renderer (`npm run build`
 * first) and clicks "Save figure" in Chromium, keeping each download as saved:
 *
 *   npm run figures                     # writes docs/figures/
 *   npx tsx scripts/figure-gallery.ts <out-dir>
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from '@playwright/test';
import { beamFixtureTree } from '../tests/support/beam-fixture';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const FIGURES_FIXTURE = join(ROOT, 'tests/fixtures/locomo/figures.json');
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** One figure of the gallery: where it is drawn and the name of its "Save figure" group. */
export interface GalleryFigure {
  key: string;
  title: string;
  /** The hash route that shows it. */
  route: string;
  /** The accessible name of its Save figure group. */
  group: string | RegExp;
}

export interface GalleryFile {
  key: string;
  title: string;
  svg: string;
  png: string;
  pdf: string;
  caption: string;
}

function cli(args: readonly string[]): string {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src-main/cli/main.ts', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (run.status !== 0) {
    throw new Error(`figure gallery: cli ${args.join(' ')} failed (${run.status}):\n${run.stderr}`);
  }
  return run.stdout;
}

/** The runs behind the figures: a sweep of four cells, and one BEAM run. */
function makeRuns(dataDir: string): { runs: string[]; sweep: string; beam: string } {
  const spec = join(dataDir, 'figures-sweep.yaml');
  writeFileSync(
    spec,
    [
      'name: figures',
      `base: { datasetPath: ${JSON.stringify(FIGURES_FIXTURE)} }`,
      'axes:',
      '  memory.preset: [hybrid, text]',
      '  retrieval.topK: [1, 5]',
      '',
    ].join('\n'),
  );
  const out = cli(['sweep', 'run', spec, '--data-dir', dataDir]);
  const runs = out
    .split('\n')
    .filter((l) => l.includes('\tcompleted\t'))
    .map((l) => l.split('\t')[2] ?? '');
  const sweep = /sweep (\S+): \d+\/\d+ cells completed/.exec(out)?.[1];
  if (runs.length !== 4 || sweep === undefined) {
    throw new Error(`figure gallery: the sweep did not complete its 4 cells:\n${out}`);
  }
  const beamOut = cli([
    'experiment',
    '--data',
    join(beamFixtureTree(), '100K'),
    '--data-dir',
    dataDir,
  ]);
  const beam = /run (\S+) completed/.exec(beamOut)?.[1];
  if (beam === undefined)
    throw new Error(`figure gallery: the BEAM run did not complete:\n${beamOut}`);
  return { runs, sweep, beam };
}

async function serve(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  if (!existsSync(join(ROOT, 'out', 'renderer', 'index.html'))) {
    throw new Error('figure gallery: out/renderer is missing; run `npm run build` first');
  }
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src-main/cli/main.ts', 'serve', '--port', '0', '--data-dir', dataDir],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving at (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${output}`));
    });
  });
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  await exited;
}

/** Saves one figure in each format (and its caption) with the page's own buttons. */
async function saveFigure(page: Page, figure: GalleryFigure, outDir: string): Promise<GalleryFile> {
  const group = page.getByRole('group', { name: figure.group });
  await group.waitFor({ state: 'visible', timeout: 60_000 });
  await group.getByLabel('Figure width').selectOption('one-column');
  await group.getByLabel('Figure font size').selectOption('8');
  const files: Record<string, string> = {};
  for (const [button, ext] of [
    ['SVG', 'svg'],
    ['PNG', 'png'],
    ['PDF', 'pdf'],
    ['Caption', 'caption.txt'],
  ] as const) {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      group.getByRole('button', { name: button, exact: true }).click(),
    ]);
    const path = join(outDir, `${figure.key}.${ext}`);
    await download.saveAs(path);
    files[ext] = path;
  }
  return {
    key: figure.key,
    title: figure.title,
    svg: files['svg'] ?? '',
    png: files['png'] ?? '',
    pdf: files['pdf'] ?? '',
    caption: files['caption.txt'] ?? '',
  };
}

/** The gallery's figures, from the runs `makeRuns` made. */
function figuresOf(made: { runs: string[]; sweep: string; beam: string }): GalleryFigure[] {
  const [hybridTop1, hybridTop5, textTop1] = made.runs;
  return [
    {
      key: 'runs-per-category',
      title: 'Runs: Official F1 per category, one run with 95% whiskers',
      route: `#/runs?run=${hybridTop5}`,
      group: 'Save figure: Official F1 per category',
    },
    {
      key: 'runs-curve',
      title: 'Runs: accuracy as the conversation grows, one line per sample',
      route: `#/runs?run=${hybridTop5}&curve=each`,
      group: 'Save figure: Accuracy as the conversation grows',
    },
    {
      key: 'compare-per-category',
      title: 'Compare: three runs per category, baseline A',
      route: `#/compare?runs=${hybridTop5},${hybridTop1},${textTop1}&base=${hybridTop5}`,
      group: 'Save figure: Mean official F1 per category',
    },
    {
      key: 'sweep-heatmap',
      title: 'Sweeps: Official F1 over memory preset × top-k',
      route: `#/sweeps?sweep=${made.sweep}&x=retrieval.topK&y=memory.preset`,
      group: /^Save figure: Sweep heatmap/,
    },
    {
      key: 'beam-abilities',
      title: "BEAM: evidence recall per ability (the BEAM-shaped fixture's run)",
      route: `#/runs?run=${made.beam}&metric=recall`,
      group: /^Save figure: .* per category$/,
    },
  ];
}

/** Makes the runs, then saves every figure into `outDir`; returns the files it wrote. */
export async function makeFigureGallery(outDir: string): Promise<GalleryFile[]> {
  mkdirSync(outDir, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'mw-figures-'));
  let server: { child: ChildProcess; url: string } | undefined;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const made = makeRuns(dataDir);
    server = await serve(dataDir);
    const context = await browser.newContext({
      acceptDownloads: true,
      viewport: { width: 1400, height: 900 },
    });
    const page = await context.newPage();
    const files: GalleryFile[] = [];
    for (const figure of figuresOf(made)) {
      await page.goto(`${server.url}${figure.route}`);
      files.push(await saveFigure(page, figure, outDir));
    }
    writeFileSync(join(outDir, 'README.md'), galleryReadme(files));
    return files;
  } finally {
    await browser.close();
    if (server) await stop(server.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function galleryReadme(files: readonly GalleryFile[]): string {
  const base = (path: string): string => path.split(/[\\/]/).pop() ?? path;
  return [
    '# Figure gallery',
    '',
    'Every chart as "Save figure" writes it at one-column width (3.5 in, 8 pt), made by',
    '`npm run figures` (scripts/figure-gallery.ts) from a small offline run on hand-written',
    'fixtures (`tests/fixtures/locomo/figures.json` and the BEAM-shaped `tests/fixtures/beam`). The',
    "numbers are the extractive baseline's on those fixtures, not results on LoCoMo or BEAM.",
    'Each figure is saved as SVG, PNG (300 dpi) and PDF, with its caption beside it.',
    '',
    ...files.flatMap((f) => [
      `## ${f.title}`,
      '',
      `![${f.title}](${base(f.png)})`,
      '',
      `[SVG](${base(f.svg)}) · [PDF](${base(f.pdf)}) · [caption](${base(f.caption)})`,
      '',
    ]),
  ].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = resolve(process.argv[2] ?? join(ROOT, 'docs', 'figures'));
  makeFigureGallery(outDir).then(
    (files) => console.log(`figure gallery: ${files.length} figures in ${outDir}`),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    },
  );
}
