// Issue 50 item 3: touching a piece that the throw cannot move says why, in words, from the
// engine's reason that the server sends with the throw (`rolled`'s `refused`), by mouse, by
// keyboard and by the text command, politely to a screen reader, in the page's language.
import { test, expect } from '../support/fixtures.js';
import { expectNoViolations } from '../support/a11y.js';
import { roomInfo, settle, takeTurn } from '../support/game.js';

/** The engine's reasons as the English page words them. */
const WORDS = {
  occupied_by_own: 'Your own piece is on that square.',
  safe_square: 'A piece on a safe house cannot be swapped.',
  blocked: 'A block of enemy pieces is in the way.',
  must_stop_on_26: 'The piece must stop on the House of Happiness (26) first.',
  not_exact_to_bear_off: 'Bearing off needs the exact throw.',
};

test('a same-screen game: a piece that cannot move says why, by click, keyboard and text command, in three languages', async ({ open }) => {
  const page = await open('/', { reducedMotion: 'reduce' });
  await page.getByTestId('create-local').click();
  await page.waitForURL(/\/r\/[^/]+$/);
  await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
  const players = { black: page, white: page };
  const met = new Map(); // reason → the square it was met on
  for (let actions = 0; actions < 600 && met.size < 2; actions += 1) {
    await settle([page]);
    const { phase } = await roomInfo(page);
    if (phase === 'over') break;
    if (phase === 'move') {
      const refused = page.locator('[data-testid="board"] .piece.refused');
      for (let i = 0; i < (await refused.count()) && met.size < 2; i += 1) {
        const piece = refused.nth(i);
        const reason = await piece.getAttribute('data-reason');
        if (met.has(reason)) continue;
        const square = Number(await piece.getAttribute('data-square'));
        const words = `The piece on ${square} cannot move with this throw. ${WORDS[reason]}`;
        await expect(piece).toHaveAttribute('role', 'button');
        await expect(piece).not.toHaveClass(/movable/);
        await expect(piece).toHaveAttribute('aria-label', new RegExp(`piece on ${square}: cannot move with this throw`));
        // Said politely to a screen reader: the page's log region (aria-live polite).
        const said = page.getByTestId('announcements').locator('[data-testid="said"]').last();
        if (met.size === 0) {
          // The mouse (a tap is the same click), then the text command.
          await piece.click();
          await expect(page.getByTestId('message')).toHaveText(words);
          await expect(said).toHaveText(words);
          await page.keyboard.press('/');
          await page.getByTestId('command').fill(String(square));
          await page.getByTestId('command').press('Enter');
          await expect(page.getByTestId('command-answer')).toContainText(words);
          await expectNoViolations(page, 'a throw with pieces that cannot move');
        } else {
          // The keyboard: Tab reaches the piece, Enter asks.
          await piece.focus();
          await page.keyboard.press('Enter');
          await expect(page.getByTestId('message')).toHaveText(words);
          await expect(said).toHaveText(words);
          // In Chinese and Russian the same reason in their words, the message redrawn.
          await page.getByTestId('language').selectOption('zh-Hant');
          await expect(page.getByTestId('message')).toHaveText(new RegExp(`^第 ${square} 格的棋子這一擲不能走。[^A-Za-z]+$`));
          await page.getByTestId('language').selectOption('ru');
          await expect(page.getByTestId('message')).toHaveText(new RegExp(`^Фишка на ${square} не может пойти с этим броском\\. [^A-Za-z]+$`));
          await page.getByTestId('language').selectOption('en');
          await expect(page.getByTestId('message')).toHaveText(words);
        }
        met.set(reason, square);
      }
    }
    await takeTurn(players, [page]);
  }
  expect([...met.keys()]).toHaveLength(2);
});
