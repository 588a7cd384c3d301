import { _electron as electron, expect, test } from '@playwright/test';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { screenshotPath } from './fixtures';

/** The Electron binary path, or why there is none (installs with ELECTRON_SKIP_BINARY_DOWNLOAD=1 have none). */
function electronBinary(): { path?: string; reason?: string } {
  try {
    const path = createRequire(import.meta.url)('electron') as unknown;
    if (typeof path === 'string' && existsSync(path)) return { path };
    return { reason: `electron package points at ${String(path)}, which does not exist` };
  } catch (error) {
    return {
      reason: `no Electron binary: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    };
  }
}

const binary = electronBinary();

test.describe('Electron shell', () => {
  test.skip(binary.path === undefined, `Electron specs skipped: ${binary.reason ?? ''}`);

  test('the app window opens and shows the shell through the preload bridge', async () => {
    const app = await electron.launch({ args: ['.'], executablePath: binary.path });
    try {
      const window = await app.firstWindow();
      await expect(window.getByRole('navigation', { name: 'Main' })).toBeVisible();
      await expect(window.getByText(/· electron/)).toBeVisible();
      await window.screenshot({ path: screenshotPath('electron-shell') });
    } finally {
      await app.close();
    }
  });
});
