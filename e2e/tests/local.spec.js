// A same-screen game: one page plays both sides to the end, then starts a new game; and the
// keyboard alone can play.
import { test, expect } from '../support/fixtures.js';
import { playOn, roomInfo, settle } from '../support/game.js';

async function startLocalGame(open, context = {}) {
  const page = await open('/', context);
  await page.getByTestId('create-local').click();
  await page.waitForURL(/\/r\/[^/]+$/);
  await expect(page.getByTestId('seat')).toHaveText('Both sides play on this screen.');
  await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
  return page;
}

test('a same-screen game is played to the end and a new one started', async ({ open }) => {
  const page = await startLocalGame(open, { reducedMotion: 'reduce' });
  await expect(page.getByTestId('offer-draw')).toBeHidden();
  await playOn({ black: page, white: page }, [page]);
  const { turn: winner } = await roomInfo(page);
  await expect(page.getByTestId('end')).toHaveAttribute('data-winner', winner);
  await expect(page.getByTestId('end-reason')).toHaveText('All five pieces borne off.');
  await expect(page.getByTestId('rematch')).toHaveText('New game');
  const oldUrl = page.url();
  await page.getByTestId('rematch').click();
  await page.waitForURL((url) => url.href !== oldUrl);
  await expect(page.getByTestId('seat')).toHaveText('Both sides play on this screen.');
  await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
});

test('the keyboard alone plays: Enter throws, Enter moves the focused piece', async ({ open }) => {
  const page = await startLocalGame(open);
  await page.getByTestId('throw').focus();
  let moves = 0;
  for (let presses = 0; presses < 40 && moves < 6; presses += 1) {
    const { v, phase } = await roomInfo(page);
    if (phase === 'move') {
      // The focus went to a highlighted piece by itself; it shows where it would land.
      const focused = page.locator('.piece.movable:focus');
      await expect(focused).toHaveCount(1);
      await expect(focused).toHaveAttribute('role', 'button');
      await expect(focused).toHaveAttribute('aria-label', /^(Black|White) piece on \d+: move (to \d+|to 27, into the water|bear off)$/);
      await expect(page.getByTestId('destination')).toHaveAttribute('data-square', (await focused.getAttribute('data-to')) ?? '');
      moves += 1;
    } else {
      await expect(page.getByTestId('throw')).toBeFocused();
    }
    await page.keyboard.press('Enter');
    await settle([page], Number(v) + 1);
  }
  expect(moves).toBe(6);
  // Six moves, and any passes between them, are in the move list.
  expect(await page.getByTestId('move').count()).toBeGreaterThanOrEqual(6);
});
