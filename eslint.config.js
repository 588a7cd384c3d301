// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'crypto', 'child_process', 'worker_threads'];

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
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['electron', 'electron/*'],
              message:
                'core/cli/server run under plain Node; only src-main/app may import electron.',
            },
            { group: ['**/src-renderer/**'], message: 'the engine never imports the UI.' },
            { group: ['**/app/**'], message: 'the engine never imports the Electron shell.' },
          ],
        },
      ],
    },
  },
);
