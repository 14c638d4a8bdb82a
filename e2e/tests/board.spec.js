// Issue 52, "a board people love to play on": anonymous players named in words (never "null"),
// the upright phone board with 44-px targets, and the small things that made the site feel
// unfinished.
import { test, expect } from '../support/fixtures.js';
import { roomInfo, settle } from '../support/game.js';

const LANGUAGES = [
  { locale: 'en-US', anonymous: 'anonymous' },
  { locale: 'zh-TW', anonymous: '匿名' },
  { locale: 'ru-RU', anonymous: 'аноним' },
];

for (const { locale, anonymous } of LANGUAGES) {
  test(`in ${locale} an anonymous player is "${anonymous}" to players and spectators, and the computer has no name`, async ({ open }) => {
    const context = { locale };
    const creator = await open('/', context);
    await creator.getByTestId('create-online').click();
    await creator.waitForURL(/\/r\/[^/]+$/);
    const friend = await open(creator.url(), context);
    const spectator = await open(creator.url(), context);
    for (const page of [creator, friend, spectator]) {
      await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
      for (const side of ['black', 'white']) {
        await expect(page.getByTestId(`name-${side}`)).toHaveText(anonymous);
        await expect(page.getByTestId(`player-${side}`)).not.toContainText('null');
      }
    }

    const player = await open('/', context);
    await player.getByTestId('ai-form').locator('input[value="white"]').check();
    await player.getByTestId('create-ai').click();
    await player.waitForURL(/\/r\/[^/]+$/);
    await expect(player.getByTestId('computer-black')).toBeVisible();
    await expect(player.getByTestId('name-white')).toHaveText(anonymous);
    await expect(player.getByTestId('name-black')).toBeHidden();
    for (const side of ['black', 'white']) await expect(player.getByTestId(`player-${side}`)).not.toContainText('null');
  });
}

/**
 * Every tappable thing on the page smaller than 44×44 px (WCAG 2.5.5): buttons, pieces, links
 * styled as buttons, selects, the toggles' labels (a checkbox is tapped through its label), and
 * the board's squares.
 */
function smallTargets(page) {
  return page.evaluate(() => {
    const small = [];
    const targets = document.querySelectorAll('button, [role="button"], a.button, select, summary, input[type="checkbox"], input[type="radio"], main.room [data-testid="board"] .cell rect');
    for (const node of targets) {
      if (node.closest('[hidden], dialog:not([open])') || (node.matches('input') && !node.checkVisibility())) continue;
      const target = node.matches('input') ? (node.closest('label') ?? node) : node;
      const box = target.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.width < 43.95 || box.height < 43.95) {
        const name = node.dataset?.testid ?? node.closest('[data-testid]')?.dataset.testid ?? node.tagName;
        small.push(`${name} "${(target.textContent ?? '').trim().slice(0, 20)}": ${box.width.toFixed(0)}×${box.height.toFixed(0)}`);
      }
    }
    return small;
  });
}

for (const { locale } of LANGUAGES) {
  test(`at 360×740 in ${locale} the board stands upright and every piece, square and button is at least 44×44 px`, async ({ open }) => {
    const phone = { viewport: { width: 360, height: 740 }, locale, reducedMotion: 'reduce' };
    const creator = await open('/', phone);
    expect(await smallTargets(creator), 'home').toEqual([]);
    await creator.getByTestId('create-online').click();
    await creator.waitForURL(/\/r\/[^/]+$/);
    const friend = await open(creator.url(), phone);
    const pages = [creator, friend];
    for (const page of pages) await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
    await expect(creator.getByTestId('board')).toHaveAttribute('data-layout', 'upright');
    // Ten rows of three: square 1 above square 10, square 11 right of 10, square 21 top right.
    const squareBox = (n) => creator.locator(`[data-testid="board"] .cell[data-square="${n}"] rect`).boundingBox();
    const [one, ten, eleven, twentyOne] = await Promise.all([1, 10, 11, 21].map(squareBox));
    expect(ten.y).toBeGreaterThan(one.y + 8 * one.height);
    expect(Math.abs(ten.x - one.x)).toBeLessThan(1);
    expect(eleven.x).toBeGreaterThan(ten.x + ten.width / 2);
    expect(Math.abs(eleven.y - ten.y)).toBeLessThan(1);
    expect(Math.abs(twentyOne.y - one.y)).toBeLessThan(1);
    // The text command box is closed, out of the way, and not between the board and Resign.
    await expect(creator.getByTestId('command')).toBeHidden();

    const turn = await creator.getByTestId('room').getAttribute('data-turn');
    const seat = await creator.getByTestId('room').getAttribute('data-seat');
    const actor = turn === seat ? creator : friend;
    await expect(actor.getByTestId('throw')).toBeVisible();
    for (const page of pages) expect(await smallTargets(page), 'a room before the throw').toEqual([]);
    const { v } = await roomInfo(actor);
    await actor.getByTestId('throw').click();
    await settle(pages, Number(v) + 1);
    if ((await roomInfo(actor)).phase === 'move') await expect(actor.locator('.piece.movable').first()).toBeVisible();
    for (const page of pages) expect(await smallTargets(page), 'a room after the throw').toEqual([]);
    const play = await open('/play', phone);
    expect(await smallTargets(play), '/play').toEqual([]);
  });
}
