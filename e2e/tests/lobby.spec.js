// The /play page between two browser contexts (two visitors): a posted game appears on the
// other's page without a reload, is taken, and both land in the same started game; quick
// pairing puts two visitors in one game; the page works by keyboard at 360 px in every language.
import { test, expect } from '../support/fixtures.js';

/** Both pages are in the same room, the game started, each in its own seat. */
async function expectSameStartedGame(one, two) {
  for (const page of [one, two]) {
    await page.waitForURL(/\/r\/[^/]+$/);
    await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
  }
  expect(one.url()).toBe(two.url());
  const seats = [await one.getByTestId('seat').textContent(), await two.getByTestId('seat').textContent()].sort();
  expect(seats).toEqual(['You play black.', 'You play white.']);
}

test('a posted game appears on another visitor\'s page without reload; taking it starts the game for both', async ({ open }) => {
  const poster = await open('/play');
  const taker = await open('/play');
  await expect(taker.getByTestId('no-seeks')).toBeVisible();
  await poster.getByTestId('seek-form').getByRole('radio', { name: 'White' }).check();
  await poster.getByTestId('seek-clock').selectOption({ label: '5 min + 3 s' });
  await poster.getByTestId('post-seek').click();
  await expect(poster.getByTestId('waiting-text')).toHaveText('Your game is listed. Waiting for an opponent…');
  await expect(poster.getByTestId('seek')).toHaveText(/Your game/);

  const seek = taker.getByTestId('seek');
  await expect(seek).toHaveCount(1);
  await expect(seek).toContainText('You play Black · 5 min + 3 s');
  await seek.getByRole('button', { name: /^Play/ }).click();
  await expectSameStartedGame(poster, taker);

  // The game is listed to watch, and the taken game is gone from the list.
  const watcher = await open('/play');
  await expect(watcher.getByTestId('no-seeks')).toBeVisible();
  const game = watcher.getByTestId('game');
  await expect(game).toContainText('5 min + 3 s · 0 moves');
  await game.getByRole('link', { name: /^Watch/ }).click();
  await expect(watcher.getByTestId('seat')).toHaveText('You are watching this game.');
});

test('quick pairing puts two visitors in one game; cancel takes one\'s game off the list', async ({ open }) => {
  const first = await open('/play');
  const second = await open('/play');
  await first.getByTestId('quick-pair').click();
  await expect(first.getByTestId('waiting-text')).toHaveText('Looking for an opponent…');
  await expect(second.getByTestId('seek')).toHaveCount(1);
  await second.getByTestId('quick-pair').click();
  await expectSameStartedGame(first, second);

  // A visitor who gives up: the game leaves the other's list at once.
  const waiting = await open('/play');
  const looking = await open('/play');
  await waiting.getByTestId('quick-clock').selectOption({ label: '10 min + 5 s' });
  await waiting.getByTestId('quick-pair').click();
  await expect(looking.getByTestId('seek')).toHaveCount(1);
  await waiting.getByTestId('cancel-seek').click();
  await expect(waiting.getByTestId('waiting')).toBeHidden();
  await expect(looking.getByTestId('seek')).toHaveCount(0);
});

test('the page is usable by keyboard at 360 px and speaks every language', async ({ open }) => {
  const page = await open('/play', { viewport: { width: 360, height: 740 } });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(360);
  // Tab to the quick-pairing button and press it.
  await page.getByTestId('quick-clock').focus();
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('quick-pair')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('waiting-text')).toHaveText('Looking for an opponent…');
  await page.getByTestId('cancel-seek').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('waiting')).toBeHidden();

  for (const [language, heading] of [['zh-Hant', '尋找對手'], ['ru', 'Найти соперника'], ['en', 'Find an opponent']]) {
    await page.getByTestId('language').selectOption(language);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(heading);
  }
});

test('a posted game keeps "Post" and "Find me a game" off until it is cancelled: a second click posts nothing', async ({ open }) => {
  const poster = await open('/play');
  const other = await open('/play');
  await poster.getByTestId('post-seek').click();
  await expect(poster.getByTestId('waiting-text')).toHaveText('Your game is listed. Waiting for an opponent…');
  for (const id of ['post-seek', 'quick-pair']) await expect(poster.getByTestId(id)).toBeDisabled();
  // Enter in the form submits nothing either.
  await poster.getByTestId('seek-clock').press('Enter');
  await expect(other.getByTestId('seek')).toHaveCount(1);
  await poster.waitForTimeout(500);
  await expect(other.getByTestId('seek')).toHaveCount(1);
  await poster.getByTestId('cancel-seek').click();
  await expect(other.getByTestId('seek')).toHaveCount(0);
  for (const id of ['post-seek', 'quick-pair']) await expect(poster.getByTestId(id)).toBeEnabled();
});
