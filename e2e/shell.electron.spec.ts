import { _electron as electron, expect, test, type ElectronApplication } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { electronBinary } from './electron-binary';
import { MINI, screenshotPath } from './fixtures';

const binary = electronBinary();

/** The built app with a data folder of its own, closed and cleaned up after `use`. */
async function withApp(use: (app: ElectronApplication) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mw-electron-'));
  const app = await electron.launch({
    args: ['.'],
    executablePath: binary.path,
    env: { ...process.env, MEMORY_WORKBENCH_DATA: dataDir },
  });
  try {
    await use(app);
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test.describe('Electron shell', () => {
  test.skip(binary.path === undefined, `Electron specs skipped: ${binary.reason ?? ''}`);

  test('the app window opens and shows the shell through the preload bridge', async () => {
    await withApp(async (app) => {
      const window = await app.firstWindow();
      await expect(window.getByRole('navigation', { name: 'Main' })).toBeVisible();
      await expect(window.getByText(/· electron/)).toBeVisible();
      await window.screenshot({ path: screenshotPath('electron-shell') });
    });
  });

  test('File → Open Dataset… opens the file the native dialog returns', async () => {
    await withApp(async (app) => {
      const window = await app.firstWindow();
      await expect(window.getByRole('navigation', { name: 'Main' })).toBeVisible();
      // The native dialog cannot be driven: the main process answers it with the fixture.
      await app.evaluate(({ dialog }, file) => {
        Object.assign(dialog, {
          showOpenDialog: async () => ({ canceled: false, filePaths: [file] }),
        });
      }, MINI);
      await app.evaluate(({ Menu }) => {
        Menu.getApplicationMenu()?.getMenuItemById('open-dataset')?.click();
      });
      await expect(
        window.getByRole('region', { name: 'Samples' }).getByRole('row', { name: /mini-1/ }),
      ).toBeVisible();
      await window.screenshot({ path: screenshotPath('electron-open-dataset') });
    });
  });
});
