// "Your turn" (issue 46): the correspondence games waiting for the player's move, first on the
// home page and on their own player page, their count in the page's title; the list follows the
// game without a reload. axe, three languages, 360 px.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../support/fixtures.js';
import { expectNoViolations } from '../support/a11y.js';
import { acceptInvitation, roomInfo, takeTurn } from '../support/game.js';

const PHONE = { width: 360, height: 740 };
const screenshots = process.env.SCREENSHOT_DIR ?? path.join(import.meta.dirname, '..', 'screenshots');

/** `path` on the server `page` is on. */
const at = (page, path) => new URL(path, page.url()).href;

/** Gives the page's browser an identity named `stem` and a few letters; answers the name. */
async function identify(page, stem) {
  const name = `${stem} ${Math.random().toString(36).slice(2, 8)}`;
  expect((await page.request.post(at(page, '/api/me'))).status()).toBe(201);
  expect((await page.request.put(at(page, '/api/me/name'), { data: { name } })).ok()).toBe(true);
  return name;
}

test('the games waiting for your move come first on the home page, counted in the title, and follow the game', async ({ open }) => {
  const anna = await open('/', { viewport: PHONE });
  const annaName = await identify(anna, 'Anna');
  await anna.getByTestId('online-clock').selectOption('3d');
  await anna.getByTestId('online-form').getByRole('radio', { name: 'Black' }).check();
  await anna.getByTestId('create-online').click();
  await anna.waitForURL(/\/r\/[^/]+$/);
  await expect(anna.getByTestId('invite-link')).toHaveValue(anna.url());
  const boris = await open('/');
  const borisName = await identify(boris, 'Boris');
  await boris.goto(anna.url());
  await acceptInvitation(boris);
  for (const page of [anna, boris]) await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
  const room = new URL(anna.url()).pathname;

  // Anna's move: her home page (another tab) lists the game first, and its title counts it.
  const home = await anna.context().newPage();
  await home.goto(at(anna, '/'));
  const list = home.getByTestId('your-turn');
  await expect(list).toBeVisible();
  await expect(list.getByRole('heading')).toHaveText('Your turn');
  await expect(home.getByTestId('turn-count')).toHaveText('It is your move in 1 game.');
  await expect(list.getByTestId('turn-game')).toHaveCount(1);
  await expect(list.getByTestId('turn-game')).toContainText(`Your move against ${borisName} · time runs out in 3 days`);
  await expect(list.getByRole('link', { name: `Play your move against ${borisName}` })).toHaveAttribute('href', room);
  await expect(home).toHaveTitle('(1) Senet — play online');
  await expectNoViolations(home, 'the home page with a game waiting');
  expect(await home.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  mkdirSync(screenshots, { recursive: true });
  await home.screenshot({ path: path.join(screenshots, 'your-turn-360.png') });

  // Her own player page too; not on anyone else's.
  const own = await anna.context().newPage();
  await own.goto(at(anna, `/p/${encodeURIComponent(annaName)}`));
  await expect(own.getByTestId('your-turn').getByTestId('turn-game')).toHaveCount(1);
  await expect(own).toHaveTitle(`(1) ${annaName} — Senet`);
  await expectNoViolations(own, 'the player page with a game waiting');
  await own.goto(at(anna, `/p/${encodeURIComponent(borisName)}`));
  await expect(own.getByTestId('player-page')).toHaveAttribute('data-state', 'ready');
  await expect(own.getByTestId('your-turn')).toBeHidden();
  await own.close();

  // Boris waits: nothing listed, no count.
  const borisHome = await boris.context().newPage();
  await borisHome.goto(at(boris, '/'));
  await expect(borisHome.getByTestId('counts')).not.toBeEmpty();
  await expect(borisHome.getByTestId('your-turn')).toBeHidden();
  await expect(borisHome).toHaveTitle('Senet — play online');

  // In the two other languages.
  for (const [lang, heading, count] of [
    ['ru', 'Ваш ход', 'Ваш ход в 1 партии.'],
    ['zh-Hant', '輪到你了', '你有 1 盤棋輪到你走。'],
  ]) {
    await home.evaluate((lang) => localStorage.setItem('senet.lang', lang), lang);
    await home.reload();
    await expect(list.getByRole('heading')).toHaveText(heading);
    await expect(home.getByTestId('turn-count')).toHaveText(count);
    await expect(home).toHaveTitle(/^\(1\) /);
    await expectNoViolations(home, `the home page with a game waiting in ${lang}`);
  }
  await home.evaluate(() => localStorage.setItem('senet.lang', 'en'));
  await home.reload();

  // Anna plays her turn: the game leaves her list and joins Boris's, neither page reloaded.
  const players = { black: anna, white: boris };
  while ((await roomInfo(anna)).turn === 'black') await takeTurn(players, [anna, boris]);
  await expect(list).toBeHidden({ timeout: 30_000 });
  await expect(home).toHaveTitle('Senet — play online');
  await expect(borisHome.getByTestId('your-turn').getByTestId('turn-game')).toHaveCount(1, { timeout: 30_000 });
  await expect(borisHome).toHaveTitle('(1) Senet — play online');
  await expect(borisHome.getByTestId('turn-game')).toContainText(`Your move against ${annaName}`);
});
