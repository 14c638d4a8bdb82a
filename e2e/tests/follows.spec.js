// Follow and block (issue 46 item 4) in the browser: the buttons on another player's page (not on
// one's own), each saying what it will do and the status line what it did; the follows page
// /following lists who one follows, online now or not, playing now with a Watch link to the
// room, and Unfollow. axe, three languages, 360 px.
import { test, expect } from '../support/fixtures.js';
import { expectNoViolations } from '../support/a11y.js';

const PHONE = { width: 360, height: 740 };

/** `path` on the server `page` is on. */
const at = (page, path) => new URL(path, page.url()).href;

/** Gives the page's browser an identity named `stem` and a few letters: `{name, id}`. */
async function identify(page, stem) {
  const name = `${stem} ${Math.random().toString(36).slice(2, 8)}`;
  expect((await page.request.post(at(page, '/api/me'))).status()).toBe(201);
  expect((await page.request.put(at(page, '/api/me/name'), { data: { name } })).ok()).toBe(true);
  const { id } = await (await page.request.get(at(page, '/api/me'))).json();
  return { name, id };
}

test('follow and block from a player page; the follows page shows who is online and playing, with Watch and Unfollow', async ({ open }) => {
  const anna = await open('/', { viewport: PHONE });
  const annaMe = await identify(anna, 'Anna');
  const boris = await open('/');
  const borisMe = await identify(boris, 'Boris');

  // Her own page: no buttons, the way to the players she follows.
  await anna.goto(at(anna, `/p/${encodeURIComponent(annaMe.name)}`));
  await expect(anna.getByTestId('player-page')).toHaveAttribute('data-state', 'ready');
  await expect(anna.getByRole('link', { name: 'Players you follow' })).toBeVisible();
  await expect(anna.getByTestId('social-actions')).toBeHidden();

  // Boris's page: Follow, then Unfollow; Block, then Unblock.
  await anna.goto(at(anna, `/p/${encodeURIComponent(borisMe.name)}`));
  const follow = anna.getByTestId('follow');
  await expect(follow).toHaveText('Follow');
  await expect(anna.getByTestId('block')).toHaveText('Block');
  await expect(anna.getByRole('link', { name: 'Players you follow' })).toBeHidden();
  await follow.click();
  await expect(follow).toHaveText('Unfollow');
  await expect(anna.getByTestId('social-status')).toHaveText(`You follow ${borisMe.name}: see them on the page of players you follow.`);
  await anna.getByRole('button', { name: 'Block' }).click();
  await expect(anna.getByTestId('social-status')).toHaveText(`You blocked ${borisMe.name}: no challenges, chat or pairing between you.`);
  await expect(anna.getByTestId('block')).toHaveText('Unblock');
  await expectNoViolations(anna, 'a player page with Unfollow and Unblock');
  expect(await anna.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  await anna.getByTestId('player').screenshot({ path: test.info().outputPath('follow-buttons-360.png') });
  await anna.reload();
  await expect(anna.getByTestId('follow')).toHaveText('Unfollow');
  await anna.getByRole('button', { name: 'Unblock' }).click();
  await expect(anna.getByTestId('social-status')).toHaveText(`${borisMe.name} is no longer blocked.`);
  await expect(anna.getByTestId('block')).toHaveText('Block');

  // Boris is online (his page holds the lobby socket) and plays a game with someone else.
  await boris.goto(at(boris, `/p/${encodeURIComponent(annaMe.name)}`));
  await expect(boris.getByTestId('player-page')).toHaveAttribute('data-state', 'ready');
  const link = await boris.request.post(at(boris, '/api/challenges'), { data: { clock: { days: 3 } } });
  const { id: challenge } = await link.json();
  const carl = await open('/');
  const seat = await (await carl.request.post(at(carl, `/api/challenges/${challenge}/accept`))).json();

  await anna.goto(at(anna, '/following'));
  await expect(anna.getByTestId('following')).toHaveAttribute('data-state', 'ready');
  await expect(anna.getByTestId('follows-count')).toHaveText('You follow 1 of at most 500 players.');
  const line = anna.getByTestId('followed');
  await expect(line).toHaveCount(1);
  await expect(line.getByRole('link', { name: borisMe.name, exact: true })).toHaveAttribute('href', `/p/${encodeURIComponent(borisMe.name)}`);
  await expect(line.getByTestId('presence')).toHaveText(' · online now · playing now');
  await expect(line.getByRole('link', { name: `Watch ${borisMe.name}’s game` })).toHaveAttribute('href', `/r/${seat.room}`);
  await expect(line).toContainText('no finished games yet');
  await expectNoViolations(anna, 'the follows page');
  expect(await anna.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  await anna.screenshot({ path: test.info().outputPath('following-360.png'), fullPage: true });

  for (const [lang, heading, presence] of [
    ['ru', 'Ваши подписки', ' · в сети · играет сейчас'],
    ['zh-Hant', '你關注的棋手', ' · 現在在線 · 正在下棋'],
  ]) {
    await anna.evaluate((lang) => localStorage.setItem('senet.lang', lang), lang);
    await anna.reload();
    await expect(anna.getByRole('heading', { level: 1 })).toHaveText(heading);
    await expect(line.getByTestId('presence')).toHaveText(presence);
    await expectNoViolations(anna, `the follows page in ${lang}`);
  }
  await anna.evaluate(() => localStorage.setItem('senet.lang', 'en'));
  await anna.reload();

  // Unfollow: the list is empty, and says where to follow from.
  await anna.getByRole('button', { name: `Unfollow ${borisMe.name}` }).click();
  await expect(anna.getByTestId('following-status')).toHaveText(`You no longer follow ${borisMe.name}.`);
  await expect(anna.getByTestId('follows-count')).toHaveText('You follow nobody yet. Follow players from their page.');
  await expect(anna.getByTestId('followed')).toHaveCount(0);
});

test('the follows page without an identity says how to get one', async ({ open }) => {
  const page = await open('/following', { allowNetworkErrors: true });
  await expect(page.getByTestId('following')).toHaveAttribute('data-state', 'none');
  await expect(page.getByTestId('following-status')).toHaveText('This browser has no identity yet: create one in Settings, then follow players from their page.');
});
