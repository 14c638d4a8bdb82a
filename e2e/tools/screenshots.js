// Screenshots of home, /play and a room mid-game (against the computer) at 1280 and 360 px in
// the three languages, for docs/screenshots/: `node tools/screenshots.js <prefix>` writes
// `<prefix>-<page>-<lang>-<width>.png` there (the first screen of each, not the whole page).
import { chromium } from '@playwright/test';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../support/server.js';

const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'screenshots');
const prefix = process.argv[2] ?? 'after';
const LOCALES = { en: 'en-US', zh: 'zh-TW', ru: 'ru-RU' };
const SIZES = { 1280: { width: 1280, height: 800 }, 360: { width: 360, height: 740 } };

const server = await startServer({ extraArgs: ['--ai-delay-ms', '20'] });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
try {
  for (const [lang, locale] of Object.entries(LOCALES)) {
    for (const [width, viewport] of Object.entries(SIZES)) {
      const context = await browser.newContext({ locale, viewport, reducedMotion: 'reduce' });
      const page = await context.newPage();
      const shot = (name) => page.screenshot({ path: path.join(out, `${prefix}-${name}-${lang}-${width}.png`) });
      await page.goto(`${server.url}/`);
      await page.getByTestId('create-ai').waitFor();
      await shot('home');
      await page.goto(`${server.url}/play`);
      await page.waitForLoadState('networkidle');
      await shot('play');
      await page.goto(`${server.url}/`);
      await page.getByTestId('ai-form').locator('input[value="white"]').check();
      await page.getByTestId('create-ai').click();
      await page.waitForURL(/\/r\/[^/]+$/);
      // A few turns, so the board has moved pieces and the move list has lines.
      for (let turn = 0; turn < 6; turn += 1) {
        const room = page.getByTestId('room');
        await page.waitForFunction(() => {
          const r = document.querySelector('[data-testid="room"]');
          return r?.dataset.turn === 'white' && r.dataset.busy !== 'true' && (r.dataset.phase === 'roll' || r.dataset.legal !== '0');
        });
        if ((await room.getAttribute('data-phase')) === 'roll') await page.getByTestId('throw').click();
        else await page.locator('[data-testid="board"] .piece.movable').last().click();
        await page.waitForTimeout(150);
      }
      await page.waitForTimeout(400);
      await shot('room');
      await context.close();
    }
  }
} finally {
  await browser.close();
  await server.stop();
}
