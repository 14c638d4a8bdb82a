// Lighthouse (pinned in package.json: 12.8.2, the last release that runs on Node 20) on the home
// page, /play and a room mid-game, with its default mobile emulation, driving Debian's Chromium
// ($CHROMIUM_PATH, else /usr/bin/chromium) against the real server ($SENET_BIN, as the e2e tests).
// Prints each page's Performance, Accessibility and Best Practices scores and exits 1 when one is
// below $LIGHTHOUSE_MIN (95). Run: `cd e2e && node tools/lighthouse.js`.
import { chromium } from '@playwright/test';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { startServer } from '../support/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const MIN = Number(process.env.LIGHTHOUSE_MIN ?? 95);
const CATEGORIES = ['performance', 'accessibility', 'best-practices'];

/** A room against the computer with a few throws played: its address, watched by Lighthouse. */
async function roomMidGame(url) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const page = await browser.newPage({ reducedMotion: 'reduce' });
  await page.goto(`${url}/`);
  await page.getByTestId('ai-form').locator('input[value="black"]').check();
  await page.getByTestId('create-ai').click();
  await page.waitForURL(/\/r\/[^/]+$/);
  let seen = '';
  for (let turn = 0; turn < 6; turn += 1) {
    // Black can act (the throw button, or a highlighted piece) on a version after the last action's.
    const ready = await page
      .waitForFunction((seen) => {
        const room = document.querySelector('[data-testid="room"]');
        if (room?.dataset.turn !== 'black' || room.dataset.busy === 'true' || room.dataset.v === seen) return false;
        const button = document.querySelector('[data-testid="throw"]');
        const canThrow = room.dataset.phase === 'roll' && button instanceof HTMLButtonElement && !button.hidden && !button.disabled;
        const canMove = room.dataset.phase === 'move' && document.querySelector('[data-testid="board"] .piece.movable') !== null;
        return (canThrow || canMove) && room.dataset.v;
      }, seen, { timeout: 60_000 })
      .catch(async (error) => {
        // What the page showed, for the log: its state, connection and message.
        const shown = await page.evaluate(() => ({
          room: { ...document.querySelector('[data-testid="room"]')?.dataset },
          connection: document.querySelector('[data-testid="connection"]')?.textContent,
          message: document.querySelector('[data-testid="message"]')?.textContent,
        }));
        throw new Error(`black could not act in turn ${turn}: ${JSON.stringify(shown)}`, { cause: error });
      });
    seen = await ready.jsonValue();
    if ((await page.getByTestId('room').getAttribute('data-phase')) === 'roll') await page.getByTestId('throw').click();
    else await page.locator('[data-testid="board"] .piece.movable').last().click();
  }
  const room = page.url();
  await browser.close();
  return room;
}

const server = await startServer({ extraArgs: ['--ai-delay-ms', '20'] });
const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'] });
let failed = false;
try {
  const pages = { home: `${server.url}/`, play: `${server.url}/play`, room: await roomMidGame(server.url) };
  for (const [name, url] of Object.entries(pages)) {
    const { lhr } = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES });
    const scores = CATEGORIES.map((id) => [id, Math.round(lhr.categories[id].score * 100)]);
    console.log(`${name.padEnd(5)} ${scores.map(([id, score]) => `${id} ${score}`).join(', ')}`);
    for (const [id, score] of scores) {
      if (score >= MIN) continue;
      failed = true;
      const audits = Object.values(lhr.audits).filter((audit) => audit.score !== null && audit.score < 0.9 && lhr.categories[id].auditRefs.some((ref) => ref.id === audit.id && ref.weight > 0));
      for (const audit of audits) console.log(`  ${id} < ${MIN}: ${audit.id} (${audit.displayValue ?? audit.score})`);
    }
  }
} finally {
  await chrome.kill();
  await server.stop();
}
process.exit(failed ? 1 : 0);
