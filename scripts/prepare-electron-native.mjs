// Builds better-sqlite3 for Electron's ABI into .electron-native/<electron version>/, leaving
// node_modules at Node's ABI so tests, the CLI and the local server keep working. Runs before
// `npm start` / `npm run dev` / `npm run dist`; does nothing when the binary is already there.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  copyFileSync,
  readFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const electronVersion = JSON.parse(
  readFileSync(join(dirname(require.resolve('electron/package.json')), 'package.json'), 'utf8'),
).version;
const target = join(root, '.electron-native', electronVersion, 'better_sqlite3.node');

if (existsSync(target)) {
  console.log(`electron-native: ${target} is ready`);
  process.exit(0);
}

const source = dirname(require.resolve('better-sqlite3/package.json'));
const work = mkdtempSync(join(tmpdir(), 'mw-electron-sqlite-'));
console.log(`electron-native: building better-sqlite3 for Electron ${electronVersion} (once)…`);
try {
  cpSync(source, work, { recursive: true, filter: (p) => !p.includes(`${join('build', '')}`) });
  const nodeGyp = require.resolve('node-gyp/bin/node-gyp.js', {
    paths: [join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm'), root],
  });
  execFileSync(
    process.execPath,
    [
      nodeGyp,
      'rebuild',
      '--release',
      `--target=${electronVersion}`,
      '--runtime=electron',
      '--dist-url=https://electronjs.org/headers',
    ],
    { cwd: work, stdio: 'inherit' },
  );
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(join(work, 'build', 'Release', 'better_sqlite3.node'), target);
  console.log(`electron-native: wrote ${target}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
