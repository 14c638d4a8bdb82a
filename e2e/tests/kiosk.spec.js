// The museum kiosk (issue 50 item 4) on a server started with `--kiosk`: the attract screen at
// `/`, the language buttons, a game started and a move played, "still playing?" after the idle
// time and then the attract screen again with nothing of the game kept, a touch to come back;
// axe on every screen; nothing loaded from anywhere but the kiosk's own server; screenshots at
// 1280×800 and 768×1024.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../support/fixtures.js';
import { expectNoViolations } from '../support/a11y.js';
import { playOn, roomInfo } from '../support/game.js';

const screenshots = process.env.SCREENSHOT_DIR ?? path.join(import.meta.dirname, '..', 'screenshots');
const LANDSCAPE = { width: 1280, height: 800 };
const PORTRAIT = { width: 768, height: 1024 };

/**
 * A kiosk at `/` with the idle time shortened by the server's `--kiosk-idle` (as a museum sets
 * it) and the countdown by the documented `?warn=`.
 */
async function openKiosk(open, serve, { idle, warn, context = {} }) {
  const server = await serve({ extraArgs: ['--kiosk', '--kiosk-idle', String(idle), '--ai-delay-ms', '20'] });
  const page = await open(`${server.url}/?warn=${warn}`, { reducedMotion: 'reduce', viewport: LANDSCAPE, ...context });
  // Every request of the page, from its load on: only the kiosk's own server is asked.
  const hosts = new Set();
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol !== 'data:') hosts.add(url.host);
  });
  await page.reload();
  await expect(page.getByTestId('kiosk-attract')).toBeVisible();
  return { page, server, hosts };
}

/** axe on the page as it is; a key pressed first, so a slow run is not taken for a visitor gone. */
async function checkAxe(page, where) {
  await page.keyboard.press('Shift');
  await expectNoViolations(page, where);
}

/** Play on (both sides, one screen) until a piece has moved. */
async function playAMove(page) {
  const moved = async () => (await page.getByTestId('board').getByTestId('last-move').getAttribute('data-from')) !== null;
  await playOn({ black: page, white: page }, [page], { until: moved, maxActions: 60 });
  expect(await moved()).toBe(true);
}

test('the kiosk: attract, language, a game and a move, still playing?, back to the attract screen', async ({ open, serve }) => {
  const { page, server, hosts } = await openKiosk(open, serve, { idle: 8, warn: 12 });
  // The attract screen: the rules played on the board, decoration for assistive technology, and
  // one real button.
  const demo = page.locator('.kiosk-demo');
  await expect(demo).toHaveAttribute('aria-hidden', 'true');
  await expect(page.getByTestId('kiosk-demo-board').getByTestId('piece')).toHaveCount(10);
  await expect(page.getByTestId('kiosk-caption')).toHaveText(/thirty squares/);
  await expect(page.getByTestId('kiosk-caption')).toHaveText(/Throw the four sticks/, { timeout: 20_000 });
  await expect(page.getByRole('button', { name: 'Touch to play' })).toBeFocused();
  await checkAxe(page, 'the attract screen');
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: path.join(screenshots, 'kiosk-attract-1280.png') });
  await page.getByTestId('kiosk-touch').click();

  // The language, by buttons each in its own language.
  const language = page.getByTestId('kiosk-language');
  await expect(language).toBeVisible();
  for (const [code, name] of [['en', 'English'], ['zh-Hant', '中文'], ['ru', 'Русский']]) {
    await expect(page.getByTestId(`kiosk-lang-${code}`)).toHaveText(name);
    await expect(page.getByTestId(`kiosk-lang-${code}`)).toHaveAttribute('lang', code);
  }
  await checkAxe(page, 'the language choice');
  await page.getByTestId('kiosk-lang-ru').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Как вы хотите играть?');
  await expect(page.getByTestId('kiosk-local')).toContainText('Двое игроков');
  await page.getByTestId('kiosk-back').click();
  await page.getByTestId('kiosk-lang-en').click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('How would you like to play?');
  await checkAxe(page, 'the choice of game');

  // A same-screen game on the room's own board: no link anywhere, and a move played.
  await page.getByTestId('kiosk-local').click();
  await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
  await expect(page.getByTestId('seat')).toHaveText('Both sides play on this screen.');
  await expect(page.locator('a:visible')).toHaveCount(0);
  await expect(page.getByTestId('chat')).toBeHidden();
  expect(page.url()).toBe(`${server.url}/?warn=12`);
  await playAMove(page);
  const { v } = await roomInfo(page);
  expect(Number(v)).toBeGreaterThan(1);
  // Touch targets: the throw button and every movable piece at least 64 px.
  for (const box of [await page.getByTestId('throw').boundingBox(), await page.getByTestId('piece').first().boundingBox()]) {
    if (box) expect(Math.min(box.width, box.height)).toBeGreaterThanOrEqual(44);
  }
  const throwBox = await page.getByTestId('throw').boundingBox();
  if (throwBox) expect(throwBox.height).toBeGreaterThanOrEqual(64);
  await checkAxe(page, 'a kiosk game');
  await page.screenshot({ path: path.join(screenshots, 'kiosk-game-1280.png') });
  const roomId = await page.evaluate(() => document.querySelector('[data-testid="invite-link"]')?.getAttribute('value'));
  expect(roomId ?? null).toBeNull();

  // Left alone: "still playing?" with its countdown; "yes" goes on with the game.
  const idle = page.getByTestId('kiosk-idle');
  await expect(idle).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('kiosk-countdown')).toHaveText(/The game closes in \d seconds?\./);
  await expectNoViolations(page, 'still playing?'); // the countdown runs on: no key here
  await page.getByTestId('kiosk-continue').click();
  await expect(idle).toBeHidden();
  await expect(page.getByTestId('room')).not.toHaveAttribute('data-phase', 'none');

  // Left alone again, to the end of the countdown: the attract screen, and nothing kept.
  await expect(idle).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('kiosk-attract')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('room')).toBeHidden();
  await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'none');
  await expect(page.getByTestId('board').getByTestId('piece')).toHaveCount(0);
  const kept = await page.evaluate(() => [...Object.keys(localStorage), ...Object.keys(sessionStorage)].filter((key) => key.startsWith('senet.seat')));
  expect(kept).toEqual([]);
  expect(page.url()).toBe(`${server.url}/?warn=12`);

  // A touch anywhere leaves the attract screen for the language choice.
  await page.getByTestId('kiosk-attract').click({ position: { x: 30, y: 30 } });
  await expect(language).toBeVisible();
  // Left alone on a choice screen: straight back to the attract screen (nothing to lose).
  await expect(page.getByTestId('kiosk-attract')).toBeVisible({ timeout: 30_000 });

  expect([...hosts]).toEqual([new URL(server.url).host]);
});

test('the kiosk against the computer, in Chinese, portrait', async ({ open, serve }) => {
  const { page } = await openKiosk(open, serve, { idle: 600, warn: 20, context: { viewport: PORTRAIT } });
  await page.screenshot({ path: path.join(screenshots, 'kiosk-attract-768.png') });
  await page.getByTestId('kiosk-touch').click();
  await page.getByTestId('kiosk-lang-zh-Hant').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-Hant');
  await page.getByTestId('kiosk-ai').click();
  await expect(page.getByTestId('room')).toHaveAttribute('data-mode', 'ai');
  await expect(page.getByTestId('throw')).toBeVisible();
  await page.getByTestId('throw').click();
  // The computer answers: the version moves on past the throw.
  await expect.poll(async () => Number((await roomInfo(page)).v), { timeout: 20_000 }).toBeGreaterThan(2);
  await expect(page.locator('a:visible')).toHaveCount(0);
  await checkAxe(page, 'a kiosk game against the computer, in Chinese');
  await page.screenshot({ path: path.join(screenshots, 'kiosk-game-768.png') });
  // The header's "start again" mid-game asks first; "no" ends the visit.
  await page.getByTestId('kiosk-home').click();
  await expect(page.getByTestId('kiosk-idle')).toBeVisible();
  await page.getByTestId('kiosk-leave').click();
  await expect(page.getByTestId('kiosk-attract')).toBeVisible();
  await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'none');
});
