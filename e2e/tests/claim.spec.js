// Claiming victory when the opponent has gone on their own turn, against a server started with a
// short --abandon-after.
import { test, expect } from '../support/fixtures.js';
import { startOnlineGame, takeTurn, roomInfo } from '../support/game.js';

test('the player left alone may claim victory once the server allows it', async ({ open, serve }) => {
  const server = await serve({ extraArgs: ['--abandon-after', '2'] });
  const game = await startOnlineGame((path, options) => open(new URL(path, server.url).href, options));
  const players = { black: game.black, white: game.white };
  const pages = [game.black, game.white];
  // Play until it is white's turn to throw, then white goes away.
  for (let i = 0; i < 40; i += 1) {
    const { phase, turn } = await roomInfo(game.black);
    if (phase === 'roll' && turn === 'white') break;
    await takeTurn(players, pages);
  }
  expect(await roomInfo(game.black)).toMatchObject({ phase: 'roll', turn: 'white' });
  await expect(game.black.getByTestId('claim-victory')).toBeHidden();
  await game.white.context().close();

  await expect(game.black.getByTestId('player-white')).toHaveAttribute('data-presence', 'away');
  await expect(game.black.getByTestId('claim-status')).toHaveText(/^White has left/);
  await expect(game.black.getByTestId('claim-victory')).toBeVisible({ timeout: 10_000 });
  await game.black.getByTestId('claim-victory').click();
  await expect(game.black.getByTestId('end')).toHaveAttribute('data-winner', 'black');
  await expect(game.black.getByTestId('end-reason')).toHaveText('White left the game.');
});
