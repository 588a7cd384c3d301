// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'crypto', 'child_process', 'worker_threads'];

const enginePatterns = [
  {
    group: ['electron', 'electron/*'],
    message: 'core/cli/server run under plain Node; only src-main/app may import electron.',
  },
  { group: ['**/src-renderer/**'], message: 'the engine never imports the UI.' },
  { group: ['**/app/**'], message: 'the engine never imports the Electron shell.' },
];

/**
 * src-main/core, lowest first: a folder may import the ones before it, never one after it. Every
 * folder is ranked. The files directly in core/ sit at both ends: the leaf helpers (CORE_BASE_FILES)
 * below every folder, the service files (CORE_SERVICE_FILES: the API's implementation and the
 * stores it owns) above them all.
 * core/designs (the Collections view's engine) sits inside memory: it builds on memory/retrieval
 * and the `designed` memory preset builds on it.
 */
const CORE_LAYERS = [
  'http',
  'scoring',
  'dataset',
  'collection',
  'embed',
  'memory',
  'answer',
  'pipeline',
  'runs',
  'launch',
  'sweeps',
  'reproduce',
];
const CORE_BASE_FILES = [
  'atomic-file',
  'canonical-hash',
  'dispatch',
  'handlers',
  'keys',
  'path-component',
  'provenance',
  'sqlite',
  'structured-file',
  'system-errors',
  'timeout',
  'trust',
];
const CORE_SERVICE_FILES = [
  'datasets',
  'datasetLoadProtocol',
  'datasetLoadWorker',
  'dataset-load-worker-entry',
  'read-worker-entry',
  'experiments',
  'models',
  'service',
];

/**
 * Known upward imports, allowed by name until they move (each a module path below core/):
 * - answer/llm-client is the OpenAI-compatible transport that embed and memory use too; it moves
 *   to core/http once issue 13's edits to it have merged.
 * - the runner records into the runs database (runs/store, its manifest and usage ledger).
 */
const LAYER_EXCEPTIONS = {
  embed: ['answer/llm-client'],
  memory: ['answer/llm-client'],
  designs: ['answer/llm-client'],
  pipeline: ['runs/store', 'runs/manifest', 'runs/usage'],
};

/**
 * A relative import (any depth of ../) of one of `folders` under core/ (a name, or a regex
 * fragment given as `{ regex }`), but not of a module in `allowed`.
 */
function importOf(folders, allowed = []) {
  const except = allowed.map((m) => `(?!${m.replace('/', '\\/')}$)`).join('');
  const targets = folders.map((f) => (typeof f === 'string' ? `${f}(\\/|$)` : f.regex));
  return `^(\\.\\.\\/)+${except}(${targets.join('|')})`;
}

/** The engine's patterns and one more restriction, for `files` but not `ignores`. */
function restrictImports(files, ignores, pattern) {
  return {
    files,
    ignores,
    rules: { 'no-restricted-imports': ['error', { patterns: [...enginePatterns, pattern] }] },
  };
}

function layerRule(files, folders, message, allowed, ignores = []) {
  return restrictImports(files, ignores, {
    regex: importOf(folders, allowed),
    message: `${message} (core layering)`,
  });
}

/**
 * Tests that wire the real stack on purpose: the runs read worker is proved through the service
 * and the HTTP server that call it. The rank holds for every other file, tests included.
 */
const STACK_TESTS = ['src-main/core/runs/readWorkers.test.ts'];

/**
 * The launcher's test seam (core/launch/testSeam.ts): the pipeline's and the runs DB's own tests
 * start runs through it, so their test files (only) may import it from below the launch layer.
 */
const LAUNCH_TEST_SEAM = 'launch/testSeam';
const TEST_FILES = '**/*.test.ts';

const coreLayering = [
  ...CORE_LAYERS.flatMap((layer, i) => {
    const files = `src-main/core/${layer}/**/*.ts`;
    const higher = [
      ...CORE_LAYERS.slice(i + 1),
      ...(i < CORE_LAYERS.indexOf('memory') ? ['designs'] : []),
      ...CORE_SERVICE_FILES,
    ];
    const message = `core/${layer} must not import a higher layer (${[...CORE_LAYERS.slice(i + 1), 'the service files'].join(', ')})`;
    const allowed = LAYER_EXCEPTIONS[layer] ?? [];
    if (i >= CORE_LAYERS.indexOf('launch')) {
      return [layerRule([files], higher, message, allowed, STACK_TESTS)];
    }
    return [
      layerRule([files], higher, message, allowed, [...STACK_TESTS, TEST_FILES]),
      layerRule(
        [`src-main/core/${layer}/${TEST_FILES}`],
        higher,
        message,
        [...allowed, LAUNCH_TEST_SEAM],
        STACK_TESTS,
      ),
    ];
  }),
  // The leaf helpers directly in core/ import no folder of core and no service file.
  {
    files: CORE_BASE_FILES.map((f) => `src-main/core/${f}.ts`),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...enginePatterns,
            {
              regex: `^\\.\\/(${[...CORE_LAYERS, 'designs', ...CORE_SERVICE_FILES].join('|')})(\\/|$)`,
              message:
                'core/ leaf helpers must not import a core folder or a service file (core layering)',
            },
          ],
        },
      ],
    },
  },
  // memory/retrieval is below designs; designs is below the rest of memory.
  layerRule(
    ['src-main/core/memory/retrieval/**/*.ts'],
    [
      'designs',
      'answer',
      'pipeline',
      'runs',
      'launch',
      'sweeps',
      'reproduce',
      ...CORE_SERVICE_FILES,
    ],
    'core/memory/retrieval must not import designs or a higher layer',
    LAYER_EXCEPTIONS.memory,
    STACK_TESTS,
  ),
  layerRule(
    ['src-main/core/designs/**/*.ts'],
    [
      { regex: 'memory\\/(?!retrieval\\/)' },
      'answer',
      'pipeline',
      'runs',
      'launch',
      'sweeps',
      'reproduce',
      ...CORE_SERVICE_FILES,
    ],
    'core/designs may use memory/retrieval only, and no higher layer',
    LAYER_EXCEPTIONS.designs,
    STACK_TESTS,
  ),
];

/** Only core/launch starts or resumes a run (issue 34): the imported names, however reached. */
const LAUNCHER_ONLY = [
  'ImportSpecifier[imported.name=/^(startExperiment|resumeExperiment)$/]',
  'ExportSpecifier[local.name=/^(startExperiment|resumeExperiment)$/]',
  'MemberExpression[property.name=/^(startExperiment|resumeExperiment)$/]',
  'VariableDeclarator[init.argument.type="ImportExpression"] Property[key.name=/^(startExperiment|resumeExperiment)$/]',
].map((selector) => ({
  selector,
  message:
    'only core/launch starts or resumes a run: call launchRun/resumeRun (core/launch/launch.ts), or from a test or benchmark the seam core/launch/testSeam.ts (launcher only)',
}));

/** No silent LoCoMo (issue 34 item 3): no default parameter or prop is a benchmark profile. */
const NO_PROFILE_DEFAULT = {
  selector: 'AssignmentPattern > Identifier.right[name=/_PROFILE$/]',
  message:
    "a benchmark profile is a required argument: pass the run's own (its manifest's dataset format), never a default",
};

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'out/**',
      'dist/**',
      'release/**',
      'test-results/**',
      'playwright-report/**',
      'coverage/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'smart'],
    },
  },
  // Layering: src-shared is pure (no node, electron or DOM) so every process can import it.
  {
    files: ['src-shared/**/*.ts'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: nodeBuiltins, message: 'src-shared must not import Node built-ins.' },
            { group: ['electron', 'electron/*'], message: 'src-shared must not import electron.' },
            {
              group: ['**/src-main/**', '**/src-renderer/**', 'react', 'react-dom'],
              message: 'src-shared imports nothing from the processes.',
            },
            {
              group: ['better-sqlite3', 'hnswlib-node', 'flexsearch'],
              message:
                "src-shared loads in the browser: an index kind's engine reaches SQLite, hnswlib and flexsearch through its KindContext's ports (core/collection/kind-ports.ts).",
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'window', 'document', 'navigator', 'process', 'Buffer'],
    },
  },
  // The renderer talks to the API contract only; it never reaches into the main process.
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/src-main/**', '@main/*'],
              message: 'src-renderer must not import src-main; use the API client.',
            },
            { group: nodeBuiltins, message: 'src-renderer runs in a browser.' },
            {
              group: ['electron', 'electron/*'],
              message: 'src-renderer reaches Electron only through the preload bridge.',
            },
          ],
        },
      ],
    },
  },
  // The engine runs under plain Node (CLI, server, worker): no electron anywhere in core, cli or server.
  {
    files: ['src-main/core/**/*.ts', 'src-main/cli/**/*.ts', 'src-main/server/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: enginePatterns }] },
  },
  // Core layering (DESIGN, issue 10): each engine folder imports only the layers below it.
  ...coreLayering,
  // A CLI command is a leaf (issue 24 step 5): what commands share lives in cli/ or core, so only
  // the dispatcher's command list (cli/main.ts) imports a command file.
  ...[
    { files: ['src-main/cli/commands/**/*.ts'], ignores: [], regex: '^\\.\\/' },
    {
      files: ['src-main/cli/*.ts'],
      ignores: ['src-main/cli/main.ts'],
      regex: '(^|\\/)commands\\/',
    },
  ].map(({ files, ignores, regex }) =>
    restrictImports(files, ignores, {
      regex,
      message: 'only cli/main.ts imports a command; move what is shared to cli/ or core',
    }),
  ),
  // Only the launcher starts or resumes a run (issue 34): core/launch imports the pipeline's
  // `startExperiment`/`resumeExperiment`; every other file calls `launchRun`/`resumeRun`, or, for
  // tests and benchmark scripts that drive the pipeline itself, the one seam
  // core/launch/testSeam.ts. A rule on the imported names rather than a second
  // `no-restricted-imports` block: in flat config a later block for one rule replaces an earlier
  // one's options for the files both match, which would drop the layering restrictions above.
  // A later `no-restricted-syntax` block must repeat LAUNCHER_ONLY (the no-silent-LoCoMo one does).
  {
    files: ['**/*.{ts,tsx,mjs,js}'],
    ignores: ['src-main/core/launch/**'],
    rules: {
      'no-restricted-syntax': ['error', ...LAUNCHER_ONLY],
    },
  },
  // No silent LoCoMo (issue 34 item 3): where rules differ by benchmark the caller passes the run's
  // own profile, so no parameter (or destructured prop) of non-test source defaults to a benchmark
  // profile constant. A block of its own (it spares tests), so it repeats the launcher's selectors:
  // a later block's `no-restricted-syntax` replaces the one above for the files both match.
  {
    files: ['src-main/**/*.{ts,tsx}', 'src-shared/**/*.ts', 'src-renderer/**/*.{ts,tsx}'],
    ignores: ['**/*.test.{ts,tsx}', 'src-main/core/launch/**'],
    rules: { 'no-restricted-syntax': ['error', ...LAUNCHER_ONLY, NO_PROFILE_DEFAULT] },
  },
  {
    files: ['src-main/core/launch/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_PROFILE_DEFAULT] },
  },
  // Size guards (issue 34): no source file over 600 lines (tests and the tests/ folder aside: a
  // test file grows with its cases), no function over 120 lines in the pipeline. Split by concept.
  {
    files: [
      'src-main/**/*.{ts,tsx}',
      'src-shared/**/*.ts',
      'src-renderer/**/*.{ts,tsx}',
      'scripts/**/*.{ts,mjs}',
      'benchmarks/**/*.ts',
      'e2e/**/*.ts',
    ],
    ignores: ['**/*.test.{ts,tsx}', '**/*.spec.ts'],
    rules: { 'max-lines': ['error', { max: 600, skipBlankLines: false, skipComments: false }] },
  },
  {
    files: ['src-main/core/pipeline/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: false, skipComments: false }],
    },
  },
);
