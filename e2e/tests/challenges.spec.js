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

/** A link challenge made through the API by `page`'s player: its id. */
async function linkChallenge(page, options) {
  const made = await page.request.post(new URL('/api/challenges', page.url()).href, { data: options });
  expect(made.status()).toBe(201);
  return (await made.json()).id;
}

test('a link challenge is seen, declined or accepted by someone without a name, and its challenger is told', async ({ open }) => {
  const anna = await open('/settings', { viewport: PHONE, ...QUIET });
  const annaName = await identify(anna, 'Anna');
  const declined = await linkChallenge(anna, { clock: { days: 3 }, side: 'black', message: 'friendly' });

  // Her own link tells her to send it on.
  await visit(anna, `/c/${declined}`);
  await expect(anna.getByTestId('link-challenge')).toHaveAttribute('data-state', 'ready');
  await expect(anna.getByTestId('link-status')).toHaveText('This is your own challenge: send its link to the player you want to play.');
  await expect(anna.getByTestId('link-actions')).toBeHidden();

  // A stranger in every language: who, the terms, Accept and Decline; axe; 360 px.
  for (const [locale, lang, heading, clock] of [
    ['ru-RU', 'ru', `${annaName} вызывает вас`, 'Контроль времени: Заочная, 3 дня на ход'],
    ['zh-TW', 'zh-Hant', `${annaName} 向你挑戰`, '時限：通信對局，每步 3 天'],
    ['en-US', 'en', `${annaName} challenges you`, 'Time control: Correspondence, 3 days a move'],
  ]) {
    const stranger = await open(`/c/${declined}`, { locale, viewport: PHONE });
    await expect(stranger.getByTestId('link-challenge')).toHaveAttribute('data-state', 'ready');
    await expect(stranger.getByRole('heading', { level: 1 })).toHaveText(heading);
    await expect(stranger.getByTestId('link-terms').getByRole('listitem')).toHaveCount(3);
    await expect(stranger.getByTestId('link-terms').getByRole('listitem').first()).toHaveText(clock);
    await expectNoViolations(stranger, `a link challenge in ${lang}`);
    expect(await stranger.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    if (lang === 'en') {
      await expect(stranger.getByTestId('link-terms')).toHaveText(/You play: White.*Casual/s);
      await expect(stranger.getByTestId('link-message')).toHaveText('“A friendly game?”');
      await stranger.screenshot({ path: test.info().outputPath('link-challenge-360.png'), fullPage: true });
      await stranger.getByRole('button', { name: 'Decline' }).click();
      await expect(stranger.getByTestId('link-status')).toHaveText(`You declined: ${annaName} is told.`);
      await expect(stranger.getByTestId('link-actions')).toBeHidden();
    }
  }
  const seen = await anna.request.get(new URL(`/api/challenges/${declined}`, anna.url()).href);
  expect((await seen.json()).status).toBe('declined');
  const late = await open(`/c/${declined}`);
  await expect(late.getByTestId('link-status')).toHaveText('This challenge is no longer open (declined).');

  // Accepted: to the game, seated, the challenger black as she asked.
  const accepted = await linkChallenge(anna, { clock: { days: 3 }, side: 'black' });
  const guest = await open(`/c/${accepted}`);
  await guest.getByRole('button', { name: 'Accept and play' }).click();
  await guest.waitForURL(/\/r\/[^/]+$/);
  await expect(guest.getByTestId('room')).toHaveAttribute('data-seat', 'white');

  // A link that names no challenge.
  const nowhere = await open('/c/nosuchchallenge', QUIET);
  await expect(nowhere.getByTestId('link-error')).toHaveText('There is no such challenge: the link may be mistyped or old.');
});
