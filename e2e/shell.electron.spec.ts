import { _electron as electron, expect, test } from '@playwright/test';
import { electronBinary } from './electron-binary';
import { screenshotPath } from './fixtures';

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
