import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { electronBinary } from './electron-binary';
import { SERVE_PIDS_ENV } from './serve-pids';

/**
 * Says once, before any test, whether the Electron specs can run: the list reporter shows a
 * skipped test as a bare "-", and a reader of CI output should not have to guess why.
 */
export default function globalSetup(): void {
  // The workers inherit this: each `serve` they start is recorded there (global-teardown.ts).
  process.env[SERVE_PIDS_ENV] = mkdtempSync(join(tmpdir(), 'mw-e2e-serve-pids-'));
  const binary = electronBinary();
  console.log(
    binary.path
      ? `Electron specs: run with ${binary.path}`
      : `Electron specs: skipped (${binary.reason ?? 'no Electron binary'}); browser-mode specs cover the UI`,
  );
}
