import { electronBinary } from './electron-binary';

/**
 * Says once, before any test, whether the Electron specs can run: the list reporter shows a
 * skipped test as a bare "-", and a reader of CI output should not have to guess why.
 */
export default function globalSetup(): void {
  const binary = electronBinary();
  console.log(
    binary.path
      ? `Electron specs: run with ${binary.path}`
      : `Electron specs: skipped (${binary.reason ?? 'no Electron binary'}); browser-mode specs cover the UI`,
  );
}
