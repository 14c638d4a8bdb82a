// Playwright drives Debian's Chromium (never a downloaded browser) against the real `senet`
// binary, which support/fixtures.js starts on a free port with a fresh SQLite file.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: './tests',
  // Two cores: one browser at a time, and the games in a file run one after another.
  workers: 1,
  fullyParallel: false,
  timeout: 8 * 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  forbidOnly: Boolean(process.env.CI),
  outputDir: process.env.E2E_RESULTS_DIR ?? 'test-results',
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
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
    actionTimeout: 15_000,
    trace: 'retain-on-failure',
  },
});
