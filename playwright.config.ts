import { defineConfig } from '@playwright/test';

// The system Chromium: Playwright's own browser download cannot work on machines without internet.
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: 'e2e',
  globalSetup: './e2e/global-setup.ts',
  globalTeardown: './e2e/global-teardown.ts',
  outputDir: 'test-results/playwright',
  timeout: 120_000,
  workers: 1,
  reporter: [['list']],
  use: {
    launchOptions: {
      executablePath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
    viewport: { width: 1400, height: 900 },
  },
  projects: [
    { name: 'browser', testMatch: /.*\.browser\.spec\.ts/ },
    { name: 'electron', testMatch: /.*\.electron\.spec\.ts/ },
  ],
});
