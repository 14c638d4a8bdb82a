// Draw offers (withdrawn, declined, accepted) and resigning with a confirmation.
import { test, expect } from '../support/fixtures.js';
import { roomInfo, startOnlineGame, takeTurn, settle } from '../support/game.js';

/** Actions by the side to move until its turn has passed to the other side. */
async function playWholeTurn(players, pages) {
  const { turn } = await roomInfo(pages[0]);
  while ((await roomInfo(pages[0])).turn === turn) await takeTurn(players, pages);
}

test('a draw offer is withdrawn, one declined, one per turn, then one accepted', async ({ open }) => {
  const game = await startOnlineGame(open);
  const players = { black: game.black, white: game.white };
  const pages = [game.black, game.white];
  const spent = 'You may offer a draw again once your opponent has moved.';

  await game.black.getByTestId('offer-draw').click();
  await expect(game.black.getByTestId('draw-status')).toHaveText('You offered a draw.');
  await expect(game.white.getByTestId('draw-status')).toHaveText('Black offers a draw.');
  await game.black.getByTestId('withdraw-draw').click();
  await expect(game.white.getByTestId('message')).toHaveText('The draw offer was withdrawn.');
  await expect(game.white.getByTestId('accept-draw')).toBeHidden();
  // One offer per turn of one's own: black waits for white to move.
  await expect(game.black.getByTestId('offer-draw')).toBeDisabled();
  await expect(game.black.getByTestId('draw-status')).toHaveText(spent);

  await game.white.getByTestId('offer-draw').click();
  await expect(game.black.getByTestId('accept-draw')).toBeVisible();
  await game.black.getByTestId('decline-draw').click();
  await expect(game.white.getByTestId('message')).toHaveText('The draw offer was declined.');
  await expect(game.white.getByTestId('offer-draw')).toBeDisabled();
  await settle(pages);

  // The game goes on after a declined offer; each side's offer comes back when the other moved.
  await playWholeTurn(players, pages);
  await expect(game.white.getByTestId('offer-draw')).toBeEnabled();
  await expect(game.black.getByTestId('offer-draw')).toBeDisabled();
  await playWholeTurn(players, pages);
  await expect(game.black.getByTestId('offer-draw')).toBeEnabled();
  await expect(game.black.getByTestId('draw-status')).toHaveText('');

  await game.white.getByTestId('offer-draw').click();
  await expect(game.black.getByTestId('draw-status')).toHaveText('White offers a draw.');
  await game.black.getByTestId('accept-draw').click();
  for (const page of pages) {
    await expect(page.getByTestId('end')).toBeVisible();
    await expect(page.getByTestId('end')).toHaveAttribute('data-winner', 'draw');
    await expect(page.getByTestId('end-title')).toHaveText('Draw');
    await expect(page.getByTestId('end-reason')).toHaveText('Agreed by both players.');
    await expect(page.getByTestId('end-you')).toHaveText('Neither side lost.');
    await expect(page.getByTestId('offer-draw')).toBeHidden();
  }
});

test('resigning asks for confirmation and ends the game for both', async ({ open }) => {
  const game = await startOnlineGame(open);
  const players = { black: game.black, white: game.white };
  const pages = [game.black, game.white];
  for (let i = 0; i < 4; i += 1) await takeTurn(players, pages);

  await game.white.getByTestId('resign').click();
  await expect(game.white.getByTestId('confirm-resign')).toBeVisible();
  await game.white.getByTestId('confirm-no').click();
  await expect(game.white.getByTestId('confirm-resign')).toBeHidden();
  await expect(game.white.getByTestId('room')).not.toHaveAttribute('data-phase', 'over');

  await game.white.getByTestId('resign').click();
  await game.white.getByTestId('confirm-yes').click();
  for (const page of pages) {
    await expect(page.getByTestId('end')).toHaveAttribute('data-winner', 'black');
    await expect(page.getByTestId('end-title')).toHaveText('Black wins');
    await expect(page.getByTestId('end-reason')).toHaveText('White resigned.');
  }
  await expect(game.black.getByTestId('end-you')).toHaveText('You won!');
  await expect(game.white.getByTestId('end-you')).toHaveText('You lost.');

  // Both ask for a rematch: a new room opens with colours swapped and both pages go there.
  const oldUrl = game.black.url();
  await game.black.getByTestId('rematch').click();
  await expect(game.black.getByTestId('rematch-status')).toHaveText('Rematch asked. Waiting for the other player…');
  await game.white.getByTestId('rematch').click();
  for (const page of pages) await page.waitForURL((url) => url.href !== oldUrl && /\/r\//.test(url.pathname));
  await expect(game.black.getByTestId('seat')).toHaveText('You play white.');
  await expect(game.white.getByTestId('seat')).toHaveText('You play black.');
  await settle(pages);
  await takeTurn({ black: game.white, white: game.black }, pages);
});
