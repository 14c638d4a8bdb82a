// Timed games in the browser: the lobby's time controls, both clocks on the room page, the
// running one ticking with a low-time warning, and the end by timeout in words. The server
// accepts clocks of a second here, so a whole timed game takes two.
import { test as base, expect } from '../support/fixtures.js';
import { joinByLink } from '../support/game.js';
import { startServer } from '../support/server.js';

const test = base.extend({
  server: [
    async ({}, use) => {
      const server = await startServer({ extraArgs: ['--min-clock-initial', '1'] });
      await use(server);
      await server.stop();
    },
    { scope: 'worker' },
  ],
});

const clock = (page, side) => page.getByTestId(`clock-${side}`);
const msLeft = async (page, side) => Number(await clock(page, side).getAttribute('data-ms'));

test('the lobby offers time controls and the room shows both clocks, black running', async ({ open }) => {
  const creator = await open('/');
  const select = creator.getByTestId('online-clock');
  const days = [1, 2, 3, 5, 7, 14].map((d) => `Correspondence, ${d} ${d === 1 ? 'day' : 'days'} a move`);
  await expect(select.locator('option')).toHaveText(['Untimed', '3 min + 2 s', '5 min + 3 s', '10 min + 5 s', ...days]);
  await expect(creator.getByTestId('local-clock').locator('option')).toHaveCount(4);
  // By keyboard: focus the list, step down to 5+3, create.
  await select.focus();
  await creator.keyboard.press('ArrowDown');
  await creator.keyboard.press('ArrowDown');
  await expect(select).toHaveValue('300+3');
  await creator.getByTestId('online-form').getByRole('radio', { name: 'Black' }).check();
  await creator.getByTestId('create-online').click();
  await creator.waitForURL(/\/r\/[^/]+$/);
  // The page fills the link in once its room is loaded: read it then, not as the URL changes.
  await expect(creator.getByTestId('invite-link')).toHaveValue(creator.url());
  const friend = await joinByLink(open, await creator.getByTestId('invite-link').inputValue());
  for (const page of [creator, friend]) {
    await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
    await expect(clock(page, 'white')).toHaveText('5:00');
    await expect(clock(page, 'white')).toHaveAttribute('data-running', 'false');
    await expect(clock(page, 'black')).toHaveAttribute('data-running', 'true');
    await expect(clock(page, 'black')).toHaveAttribute('aria-label', /^Black: \d:\d\d left$/);
  }
  // The running clock ticks down on its own, between server messages.
  const before = await msLeft(friend, 'black');
  await expect.poll(() => msLeft(friend, 'black')).toBeLessThan(before - 1_000);
  await expect(clock(friend, 'black')).toHaveText(/^4:5\d$/);

  // Untimed games show no clock; a language switch rewords the time controls.
  const lobby = await open('/');
  await lobby.getByTestId('local-clock').selectOption({ label: 'Untimed' });
  await lobby.getByTestId('language').selectOption('ru');
  await expect(lobby.getByTestId('local-clock').locator('option').nth(1)).toHaveText('3 мин + 2 с');
  await lobby.getByTestId('create-local').click();
  await lobby.waitForURL(/\/r\/[^/]+$/);
  await expect(lobby.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
  await expect(clock(lobby, 'black')).toBeHidden();
  await expect(clock(lobby, 'white')).toBeHidden();
});

test('a two-second game: the clock warns, runs out, and the page says black lost on time', async ({ open }) => {
  const creator = await open('/');
  const seat = await creator.evaluate(async () => {
    const body = { mode: 'online', side: 'black', clock: { initial: 2, increment: 0 } };
    const response = await fetch('/api/rooms', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return response.json();
  });
  await creator.evaluate((room) => localStorage.setItem(`senet.seat.${room.room}`, JSON.stringify({ seat: room.seat, token: room.token })), seat);
  await creator.goto(new URL(seat.url, creator.url()).href);
  await expect(creator.getByTestId('invite')).toBeVisible();
  // Every figure black's clock shows on the creator's page, as it is drawn.
  await creator.evaluate(() => {
    const time = document.querySelector('[data-testid="clock-black"] .time');
    window.shown = [];
    new MutationObserver(() => window.shown.push(time.textContent)).observe(time, { childList: true, characterData: true, subtree: true });
  });
  // White takes the seat: the game starts and black's two seconds run.
  const friend = await joinByLink(open, seat.url);
  const pages = [creator, friend];
  for (const page of pages) {
    await expect(clock(page, 'black')).toHaveAttribute('data-low', 'true');
    await expect(clock(page, 'black')).toHaveAttribute('aria-label', /^Black: only 0:0\d\.\d left$/);
    // Said once, at the 10-second threshold (here from the start), by the announcement log.
    await expect(page.getByTestId('announcements').getByText(/^(You|Black): [12] seconds left\.$/)).toHaveCount(1);
  }
  for (const page of pages) {
    await expect(page.getByTestId('end')).toBeVisible();
    await expect(page.getByTestId('end')).toHaveAttribute('data-winner', 'white');
    await expect(page.getByTestId('end-reason')).toHaveText('Black ran out of time.');
    await expect(clock(page, 'black')).toHaveText('0:00.0');
    await expect(clock(page, 'black')).toHaveAttribute('data-running', 'false');
    await expect(clock(page, 'white')).toHaveText('0:02.0');
  }
  // It ticked down through the two seconds, tenth by tenth, never up.
  const shown = await creator.evaluate(() => window.shown);
  const tenths = shown.map((text) => Number(text.replace(':', '').replace('.', '')));
  expect(tenths.length, shown.join(' ')).toBeGreaterThan(5);
  expect(tenths[0]).toBeGreaterThanOrEqual(15);
  expect(tenths.at(-1)).toBe(0);
  for (let i = 1; i < tenths.length; i += 1) expect(tenths[i]).toBeLessThan(tenths[i - 1]);
  await expect(creator.getByTestId('end-you')).toHaveText('You lost.');
  await expect(friend.getByTestId('end-you')).toHaveText('You won!');
});

test('the clocks fit a 360-pixel screen', async ({ open }) => {
  const page = await open('/', { viewport: { width: 360, height: 740 } });
  await page.getByTestId('local-clock').selectOption('600+5');
  await page.getByTestId('create-local').click();
  await page.waitForURL(/\/r\/[^/]+$/);
  await expect(clock(page, 'black')).toBeVisible();
  for (const side of ['black', 'white']) {
    const box = await clock(page, side).boundingBox();
    expect(box.x + box.width).toBeLessThanOrEqual(360);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
});

// Correspondence (issue 46): days a move, from the online form only; the room's clocks count
// days and hours, and survive a reload of both pages as the server keeps them.
test('a correspondence game is made from the online form and its clocks show days', async ({ open }) => {
  const creator = await open('/');
  await creator.getByTestId('online-clock').selectOption({ label: 'Correspondence, 3 days a move' });
  await expect(creator.getByTestId('online-clock')).toHaveValue('3d');
  await creator.getByTestId('online-form').getByRole('radio', { name: 'Black' }).check();
  await creator.getByTestId('create-online').click();
  await creator.waitForURL(/\/r\/[^/]+$/);
  // The page fills the link in once its room is loaded: read it then, not as the URL changes.
  await expect(creator.getByTestId('invite-link')).toHaveValue(creator.url());
  const friend = await joinByLink(open, await creator.getByTestId('invite-link').inputValue());
  for (const page of [creator, friend]) {
    await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
    await expect(clock(page, 'white')).toHaveText('3 d 0 h');
    await expect(clock(page, 'black')).toHaveText('2 d 23 h');
    await expect(clock(page, 'black')).toHaveAttribute('data-running', 'true');
    await page.reload();
    await expect(clock(page, 'white')).toHaveText('3 d 0 h');
    await expect(clock(page, 'black')).toHaveAttribute('data-running', 'true');
  }
});

