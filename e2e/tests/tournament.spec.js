// Tournaments in the browser (issue 45 item 6): the list page's form creates one (and shows the
// server's refusal as it words it); a whole Swiss of two players over three rounds, in English
// and in Russian: both join on the tournament's page (each sees the other's join live, over the
// socket), each round's pairing is announced and opens the game, whose room links back; one
// resigns each game; the standings, then the podium, follow. axe finds nothing on the pages, and
// the tournament page fits 360 px (screenshot).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../support/fixtures.js';
import { expectNoViolations } from '../support/a11y.js';

const screenshots = process.env.SCREENSHOT_DIR ?? path.join(import.meta.dirname, '..', 'screenshots');
const PHONE = { width: 360, height: 740 };
// Settings asks GET /api/me, which answers 404 to a browser without an identity; a page left
// while its socket opens logs that too: expected here.
const QUIET = { allowNetworkErrors: true };

/** A name nobody has taken in this server's run. */
const freshName = (stem) => `${stem} ${Math.random().toString(36).slice(2, 8)}`;

/** A browser with an identity of its own (settings), in `locale`; answers its page and name. */
async function identified(open, locale, stem) {
  const page = await open('/settings', { locale, ...QUIET });
  await page.getByTestId('create-identity').click();
  await expect(page.getByTestId('settings')).toHaveAttribute('data-state', 'identified');
  const name = freshName(stem);
  await page.getByTestId('new-name').fill(name);
  await page.getByTestId('rename').click();
  await expect(page.getByTestId('you-are')).toContainText(name);
  return { page, name };
}

/** The address `path` on the page's own server. */
const at = (page, path) => new URL(path, page.url()).href;

async function fitsPhone(page, where) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${where} at 360 px`).toBeLessThanOrEqual(PHONE.width);
}

test('the list page creates a tournament, and shows a refusal as the server words it', async ({ open }) => {
  const { page } = await identified(open, 'en-US', 'host');
  await page.goto(at(page, '/tournaments'));
  await expect(page.getByTestId('create-form')).toBeVisible();
  await expectNoViolations(page, '/tournaments');

  // Two spaces between words: the browser lets it through, the server's name rules do not.
  await page.getByTestId('create-name').fill('Late  Night');
  await page.getByTestId('create').click();
  await expect(page.getByTestId('create-error')).toContainText('name must be 3–30 characters');

  await page.getByTestId('create-name').fill('Late Night Swiss');
  await page.getByTestId('create-swiss').check();
  await expect(page.getByTestId('create-rounds')).toBeVisible();
  await expect(page.getByTestId('create-minutes')).toBeHidden();
  await page.getByTestId('create-starts-in').fill('60');
  await page.getByTestId('create').click();
  await expect(page).toHaveURL(/\/t\/[0-9a-f]+$/);
  await expect(page.getByTestId('tournament-name')).toHaveText('Late Night Swiss');
  await expect(page.getByTestId('tournament-page')).toHaveAttribute('data-state', 'upcoming');
  await expect(page.getByTestId('countdown')).toContainText('Starts in');

  // The home page lists it among the upcoming ones.
  await page.goto(at(page, '/'));
  const listed = page.getByTestId('home-tournaments').getByTestId('tournament-item').filter({ hasText: 'Late Night Swiss' });
  await expect(listed).toContainText('Swiss, 5 rounds');
  await expectNoViolations(page, 'the home page with its tournaments');
});

for (const [locale, lang] of [
  ['en-US', 'en'],
  ['ru-RU', 'ru'],
]) {
  test(`a Swiss of two over three rounds, from joining to the podium, in ${lang}`, async ({ open }) => {
    test.setTimeout(180_000);
    const anna = await identified(open, locale, 'anna');
    const boris = await identified(open, locale, 'boris');
    // Made through the API (the form's start is in whole minutes): starting in 12 s.
    const created = await anna.page.request.post(at(anna.page, '/api/tournaments'), {
      data: { name: 'Pocket Swiss', format: 'swiss', rounds: 3, clock: { initial: 300, increment: 0 }, starts_at: Date.now() + 12_000 },
    });
    expect(created.status()).toBe(201);
    const { id } = await created.json();
    const where = `/t/${id}`;

    for (const { page } of [anna, boris]) {
      await page.goto(at(page, where));
      await expect(page.locator('html')).toHaveAttribute('lang', lang);
      await expect(page.getByTestId('join')).toBeVisible();
    }
    await anna.page.getByTestId('join').click();
    // Boris's page hears Anna's join over its socket: nothing reloads.
    await expect(boris.page.getByTestId('standings-row')).toHaveCount(1);
    await boris.page.getByTestId('join').click();
    await expect(anna.page.getByTestId('standings-row')).toHaveCount(2);
    await expect(anna.page.getByTestId('withdraw')).toBeVisible();
    await expect(anna.page.getByTestId('rules')).toContainText(lang === 'en' ? 'Swiss of 3 rounds, clock 5+0' : 'туров: 3, часы 5+0');
    await expectNoViolations(anna.page, `an upcoming tournament in ${lang}`);

    for (let round = 1; round <= 3; round += 1) {
      // The pairing: announced to each (a screen reader too), the way into the game offered.
      for (const { page } of [anna, boris]) await expect(page.getByTestId('play-game')).toBeVisible({ timeout: 20_000 });
      // Boris's page stays open: one announcement a round. Anna's is loaded anew each round as she
      // comes back from her game (it may come back before the last game's result is taken).
      await expect(boris.page.getByTestId('announcements').getByTestId('said')).toHaveCount(round);
      await expect(anna.page.getByTestId('announcements').getByTestId('said').last()).toBeAttached();
      await expect(anna.page.getByTestId('game-item')).toHaveCount(1);
      if (round === 1) await expectNoViolations(anna.page, `a running tournament in ${lang}`);
      // Anna opens her game, resigns, and goes back by the room's link.
      await anna.page.getByTestId('play-game').click();
      await expect(anna.page).toHaveURL(/\/r\//);
      await expect(anna.page.getByTestId('room')).not.toHaveAttribute('data-phase', 'loading');
      if (round === 1) {
        // Someone who never saw the tournament's page (a link passed on) finds the way back too.
        const stranger = await open(new URL(anna.page.url()).pathname, { locale });
        await expect(stranger.getByTestId('tournament-back-link')).toHaveAttribute('href', where);
        await stranger.close();
      }
      await anna.page.getByTestId('resign').click();
      await anna.page.getByTestId('confirm-yes').click();
      await expect(anna.page.getByTestId('end')).toBeVisible();
      await anna.page.getByTestId('tournament-back-link').click();
      await expect(anna.page).toHaveURL(new RegExp(`${where}$`));
      // Boris's page has the result without asking.
      const borisRow = boris.page.getByTestId('standings-row').filter({ hasText: boris.name });
      await expect(borisRow.getByTestId('score')).toHaveText(String(round));
    }

    for (const { page } of [anna, boris]) {
      await expect(page.getByTestId('tournament-page')).toHaveAttribute('data-state', 'finished');
      await expect(page.getByTestId('podium-place')).toHaveCount(2);
      await expect(page.getByTestId('podium-place').first()).toContainText(boris.name);
    }
    await expect(anna.page.getByTestId('standings-row').first()).toContainText(boris.name);
    await expectNoViolations(anna.page, `a finished tournament in ${lang}`);

    await anna.page.setViewportSize(PHONE);
    await fitsPhone(anna.page, `a finished tournament in ${lang}`);
    mkdirSync(screenshots, { recursive: true });
    await anna.page.screenshot({ path: path.join(screenshots, `tournament-${lang}-360.png`), fullPage: true });
  });
}
