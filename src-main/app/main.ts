import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  safeStorage,
  session,
  shell,
  type IpcMainInvokeEvent,
} from 'electron';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiEvent, ApiHandlers } from '../../src-shared/api';
import { IPC_CHANNELS } from '../../src-shared/channels';
import { toErrorPayload } from '../../src-shared/errors';
import { dispatch } from '../core/dispatch';
import { ALLOW_KEY_ENV_VARIABLE, KeyEnvPolicy, declaredKeyEnvs } from '../core/keys';
import { createService } from '../core/service';
import { createSafeStorageKeyStore, keychainWarning } from './keystore';
import { externalLinkToOpen, permissionGranted } from './security';
import { loadWindowState, saveWindowState } from './window-state';

// The app's better-sqlite3 is built for Electron's ABI beside node_modules (prepare-electron-native).
const electronSqlite = join(
  app.getAppPath(),
  '.electron-native',
  process.versions.electron ?? '',
  'better_sqlite3.node',
);
if (existsSync(electronSqlite)) process.env.MEMORY_WORKBENCH_SQLITE_BINDING = electronSqlite;

// The same data folder variable as the CLI and `cli serve`: tests (and users who keep their runs
// elsewhere) point the app at a folder of their own. Set before the single-instance lock, which
// lives in it.
const dataFolder = process.env.MEMORY_WORKBENCH_DATA;
if (dataFolder) app.setPath('userData', dataFolder);

if (!app.requestSingleInstanceLock()) app.quit();

let mainWindow: BrowserWindow | null = null;

function createWindow(): BrowserWindow {
  const stateFile = join(app.getPath('userData'), 'window-state.json');
  const state = loadWindowState(stateFile);
  const window = new BrowserWindow({
    width: state.width,
    height: state.height,
    ...(state.x !== undefined && state.y !== undefined ? { x: state.x, y: state.y } : {}),
    title: 'Memory Workbench',
    show: false,
    webPreferences: {
      preload: join(__dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  if (state.maximized) window.maximize();
  window.once('ready-to-show', () => window.show());
  window.on('close', () => {
    const bounds = window.getNormalBounds();
    saveWindowState(stateFile, { ...bounds, maximized: window.isMaximized() });
  });

  // The renderer never opens windows or navigates away; the app's own doc links (and only those)
  // go to the OS browser.
  window.webContents.setWindowOpenHandler(({ url }) => {
    const link = externalLinkToOpen(url);
    if (link !== null) void shell.openExternal(link);
    return { action: 'deny' };
  });
  window.webContents.on('will-navigate', (event) => event.preventDefault());

  const devUrl = process.env.ELECTRON_RENDERER_URL;
  if (!app.isPackaged && devUrl) void window.loadURL(devUrl);
  else void window.loadFile(join(__dirname, '../renderer/index.html'));
  return window;
}

/** Only our own window's top frame may call the API. */
function senderAllowed(event: IpcMainInvokeEvent): boolean {
  return (
    mainWindow !== null &&
    event.sender === mainWindow.webContents &&
    event.senderFrame === mainWindow.webContents.mainFrame
  );
}

/**
 * Opens a dataset chosen in a native dialog (or from the recent list) through the same handler the
 * renderer would call, then tells the renderer to show it. Errors are shown in the UI too.
 */
async function openDataset(handlers: ApiHandlers, path: string): Promise<void> {
  try {
    const summary = await handlers['datasets.open']({ path });
    app.addRecentDocument(path);
    broadcast({ type: 'dataset-opened', datasetId: summary.datasetId });
  } catch (error) {
    broadcast({ type: 'dataset-open-failed', error: toErrorPayload(error) });
  }
  await buildMenu(handlers);
}

async function buildMenu(handlers: ApiHandlers): Promise<void> {
  const isMac = process.platform === 'darwin';
  const recent = await handlers['datasets.list']({}).catch(() => []);
  const template: Electron.MenuItemConstructorOptions[] = [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        {
          id: 'open-dataset',
          label: 'Open Dataset…',
          accelerator: 'CmdOrCtrl+O',
          click: async () => {
            const result = await dialog.showOpenDialog({
              title: 'Open a LoCoMo dataset',
              properties: ['openFile'],
              filters: [{ name: 'JSON', extensions: ['json'] }],
            });
            const path = result.filePaths[0];
            if (!result.canceled && path) await openDataset(handlers, path);
          },
        },
        {
          label: 'Open Recent',
          submenu: recent.length
            ? recent.map((d) => ({
                label: d.name,
                click: () => void openDataset(handlers, d.path),
              }))
            : [{ label: 'No recent datasets', enabled: false }],
        },
        { type: 'separator' },
        isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    {
      label: 'View',
      submenu: [
        { role: 'reload' },
        ...(app.isPackaged ? [] : [{ role: 'toggleDevTools' as const }]),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

export function broadcast(event: ApiEvent): void {
  mainWindow?.webContents.send(IPC_CHANNELS.event, event);
}

void app.whenReady().then(() => {
  // Camera, notifications, clipboard reads...: the UI needs none, so requests and checks say no.
  session.defaultSession.setPermissionRequestHandler((_contents, permission, callback) =>
    callback(permissionGranted(permission)),
  );
  session.defaultSession.setPermissionCheckHandler((_contents, permission) =>
    permissionGranted(permission),
  );
  session.defaultSession.setDevicePermissionHandler((details) =>
    permissionGranted(details.deviceType),
  );
  // safeStorage works only after 'ready'. Keys stay in the store's own map: never process.env.
  const weakKeychain = keychainWarning(process.platform, safeStorage);
  if (weakKeychain !== null) console.warn(weakKeychain);
  const keyStore = createSafeStorageKeyStore(
    join(app.getPath('userData'), 'keys.json'),
    safeStorage,
    {
      warn: (message) => {
        console.warn(message);
        void dialog.showMessageBox({ type: 'warning', title: 'API keys', message });
      },
    },
  );
  const service = createService({
    dataDir: app.getPath('userData'),
    transport: 'electron',
    emit: broadcast,
    keyStore,
    // The app has no command line: unusual key variable names are declared in the environment.
    keyPolicy: new KeyEnvPolicy({
      allow: declaredKeyEnvs(process.env[ALLOW_KEY_ENV_VARIABLE]),
      howToAllow: (name) => `start the app with ${ALLOW_KEY_ENV_VARIABLE}=${name}`,
    }),
  });
  const { handlers } = service;
  service.warm();
  app.on('before-quit', () => void service.close());
  ipcMain.handle(IPC_CHANNELS.api, async (event, message: unknown) => {
    if (!senderAllowed(event)) {
      return { ok: false, error: { code: 'INVALID_INPUT', message: 'IPC: sender not allowed' } };
    }
    const { name, input } = (message ?? {}) as { name?: unknown; input?: unknown };
    return dispatch(handlers, name, input);
  });
  void buildMenu(handlers);
  mainWindow = createWindow();
  app.on('second-instance', () => {
    if (mainWindow?.isMinimized()) mainWindow.restore();
    mainWindow?.focus();
  });
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
