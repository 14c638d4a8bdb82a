// axe-core (WCAG 2.2 A and AA) finds nothing on any page in any language: home, /play, /learn,
// and a room waiting, mid-game, cut from its server, with the opponent gone, over, and with the
// replay and the analysis chart open.
import { test, expect } from '../support/fixtures.js';
import { expectNoViolations, cuttableSocket } from '../support/a11y.js';
import { roomInfo, joinByLink } from '../support/game.js';

const LANGUAGES = [
  ['en-US', 'en'],
  ['zh-TW', 'zh-Hant'],
  ['ru-RU', 'ru'],
];

for (const [locale, lang] of LANGUAGES) {
  test(`no WCAG 2.2 A/AA violation on any page or state in ${lang}`, async ({ open }) => {
    const options = { locale, allowNetworkErrors: true };
    for (const path of ['/', '/play', '/learn']) {
      const page = await open(path, options);
      await expect(page.locator('html')).toHaveAttribute('lang', lang);
      await expectNoViolations(page, `${path} in ${lang}`);
      await page.close();
    }

    const creator = await open('/', options);
    const socket = await cuttableSocket(creator);
    await creator.getByTestId('create-online').click();
    await creator.waitForURL(/\/r\/[^/]+$/);
    await expect(creator.getByTestId('invite')).toBeVisible();
    await expectNoViolations(creator, `a waiting room in ${lang}`);

    const friend = await joinByLink(open, creator.url(), options);
    for (const page of [creator, friend]) await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
    // A few throws and moves, so the game has something to analyse.
    const seats = { [(await roomInfo(creator)).seat]: creator, [(await roomInfo(friend)).seat]: friend };
    for (let actions = 0; actions < 8; actions += 1) {
      const { phase, turn, v } = await roomInfo(creator);
      const page = seats[turn];
      if (phase === 'roll') await page.getByTestId('throw').click();
      else await page.locator('.piece.movable').last().click();
      for (const each of [creator, friend]) await expect.poll(async () => Number((await roomInfo(each)).v)).toBeGreaterThan(Number(v));
      await expect.poll(async () => (await roomInfo(creator)).phase === 'roll' || (await creator.locator('.piece.movable').count()) + (await friend.locator('.piece.movable').count()) > 0).toBe(true);
    }
    for (const page of [creator, friend]) await expectNoViolations(page, `a game in progress in ${lang}`);

    await socket.cut();
    await expect(creator.getByTestId('connection')).toHaveAttribute('data-state', /retrying|connecting/);
    await expectNoViolations(creator, `a game cut from the server in ${lang}`);
    socket.mend();
    await expect(creator.getByTestId('connection')).toHaveAttribute('data-state', 'open', { timeout: 20_000 });

    await friend.close();
    await expect(creator.locator('.presence.away')).toHaveCount(1);
    await expectNoViolations(creator, `a game whose opponent left in ${lang}`);

    await creator.getByTestId('resign').click();
    await creator.getByTestId('confirm-yes').click();
    await expect(creator.getByTestId('end')).toBeVisible();
    await expectNoViolations(creator, `a finished game in ${lang}`);
    await creator.getByTestId('open-replay').click();
    await expect(creator.getByTestId('replay')).toBeVisible();
    await expect(creator.getByTestId('analysis-point').first()).toBeAttached({ timeout: 30_000 });
    await creator.getByTestId('analysis-point').first().click();
    await expectNoViolations(creator, `the replay and the analysis chart in ${lang}`);
  });
}
