// Challenges by name (issue 46 item 3) in the browser: two identified players; one opens the
// other's player page and challenges them; the other, on a player page of their own, sees it
// arrive without reloading, accepts, and both land seated in the same game. The player page with
// the form and the incoming challenge passes axe and fits 360 px, in every language.
import { test, expect } from '../support/fixtures.js';
import { expectNoViolations } from '../support/a11y.js';
import { roomInfo } from '../support/game.js';

const LANGUAGES = [
  ['en-US', 'en'],
  ['zh-TW', 'zh-Hant'],
  ['ru-RU', 'ru'],
];
const PHONE = { width: 360, height: 740 };
// Settings asks GET /api/me, which answers 404 to a browser without an identity.
const QUIET = { allowNetworkErrors: true };

/** Navigates a page to `path` on its server. */
const visit = (page, path) => page.goto(new URL(path, page.url()).href);

const freshName = (stem) => `${stem} ${Math.random().toString(36).slice(2, 8)}`;

async function identify(page, stem) {
  await expect(page.getByTestId('settings')).toHaveAttribute('data-state', 'none');
  await page.getByTestId('create-identity').click();
  await expect(page.getByTestId('settings')).toHaveAttribute('data-state', 'identified');
  const name = freshName(stem);
  await page.getByTestId('new-name').fill(name);
  await page.getByTestId('rename').click();
  await expect(page.getByTestId('you-are')).toContainText(name);
  return name;
}

for (const [locale, lang] of LANGUAGES) {
  test(`a challenge from a player page is accepted and both play, in ${lang}`, async ({ open }) => {
    const options = { locale, viewport: PHONE, ...QUIET };
    const anna = await open('/settings', options);
    const annaName = await identify(anna, 'Anna');
    const boris = await open('/settings', options);
    const borisName = await identify(boris, 'Boris');

    // Boris waits on Anna's page; Anna challenges him from his.
    await visit(boris, `/p/${encodeURIComponent(annaName)}`);
    await expect(boris.getByTestId('player-page')).toHaveAttribute('data-state', 'ready');
    await visit(anna, `/p/${encodeURIComponent(borisName)}`);
    await expect(anna.getByTestId('challenge')).toBeVisible();
    await anna.getByTestId('challenge-side').selectOption('white');
    await anna.getByTestId('challenge-message').selectOption('hello');
    await expectNoViolations(anna, `the challenge form in ${lang}`);
    expect(await anna.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await anna.getByTestId('send-challenge').click();
    await expect(anna.getByTestId('challenge-status')).toContainText(borisName);

    const incoming = boris.getByTestId('incoming-challenge');
    await expect(incoming).toBeVisible({ timeout: 3000 });
    await expect(incoming).toContainText(annaName);
    await expectNoViolations(boris, `an incoming challenge in ${lang}`);
    expect(await boris.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    if (lang === 'en') await boris.screenshot({ path: test.info().outputPath('incoming-challenge-360.png'), fullPage: true });

    await boris.getByTestId('accept-challenge').click();
    await expect(boris).toHaveURL(/\/r\/[0-9a-f]+/);
    await expect(anna).toHaveURL(/\/r\/[0-9a-f]+/);
    expect(new URL(anna.url()).pathname).toBe(new URL(boris.url()).pathname);
    await expect(anna.getByTestId('room')).toHaveAttribute('data-seat', 'white');
    await expect(boris.getByTestId('room')).toHaveAttribute('data-seat', 'black');
    expect((await roomInfo(anna)).mode).toBe('online');
  });
}
