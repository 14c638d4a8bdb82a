// Playing the computer from the lobby: the computer holds black and throws first, its throws
// and moves arrive like anyone's, the player clicks through a whole game, then a new game swaps
// colours. A server of its own with a short --ai-delay-ms keeps it quick.
import { test, expect } from '../support/fixtures.js';
import { takeTurn, roomInfo, settle, startComputerGame } from '../support/game.js';

test('a whole game against the computer, then a new game', async ({ open, serve }) => {
  const { page } = await startComputerGame(open, serve);
  await expect(page.getByTestId('seat')).toHaveText('You play white.');
  await expect(page.getByTestId('computer-black')).toHaveText('computer (Easy)');
  await expect(page.getByTestId('computer-white')).toBeHidden();
  await expect(page.getByTestId('offer-draw')).toBeHidden();
  // Black (the computer) throws first.
  await expect(page.getByTestId('move').first()).toHaveText(/^Black \d: /);

  for (let actions = 0; actions < 2000; actions += 1) {
    const { phase, turn, v } = await roomInfo(page);
    if (phase === 'over') break;
    if (turn === 'white') {
      await takeTurn({ white: page }, [page], { opponentIsComputer: true });
    } else {
      // The computer's turn: nothing to click (read in one go, as the page drew it), and it
      // plays by itself.
      const controls = await page.evaluate(() => ({
        turn: document.querySelector('[data-testid="room"]').dataset.turn,
        throwShown: !document.querySelector('[data-testid="throw"]').hidden,
        movable: document.querySelectorAll('.piece.movable').length,
      }));
      if (controls.turn === 'black') expect(controls).toMatchObject({ throwShown: false, movable: 0 });
      await settle([page], Number(v) + 1);
    }
  }
  await expect(page.getByTestId('end')).toBeVisible();
  await expect(page.getByTestId('end-reason')).toHaveText('All five pieces borne off.');
  await page.getByTestId('verify').click();
  await expect(page.getByTestId('verify-summary')).toHaveAttribute('data-ok', 'true');

  const oldUrl = page.url();
  await expect(page.getByTestId('rematch')).toHaveText('New game');
  await page.getByTestId('rematch').click();
  await page.waitForURL((url) => url.href !== oldUrl);
  await expect(page.getByTestId('seat')).toHaveText('You play black.');
  await expect(page.getByTestId('computer-white')).toHaveText('computer (Easy)');
  await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
});
