// The server goes away mid-game and comes back on the same address and database: the pages show
// the lost connection, reconnect by themselves with their tokens, and the game goes on.
import { test, expect } from '../support/fixtures.js';
import { startServer, newDataDir, removeDataDir } from '../support/server.js';
import { startOnlineGame, takeTurn, boardOf, roomInfo } from '../support/game.js';

test('pages reconnect by themselves after a server restart and play on', async ({ open }) => {
  const dataDir = newDataDir();
  let server = await startServer({ dataDir });
  try {
    const game = await startOnlineGame((path, options) => open(new URL(path, server.url).href, { ...options, allowNetworkErrors: true }));
    const players = { black: game.black, white: game.white };
    const pages = [game.black, game.white];
    for (let i = 0; i < 4; i += 1) await takeTurn(players, pages);
    const before = await boardOf(game.black);

    await server.stop();
    for (const page of pages) {
      await expect(page.getByTestId('connection')).toHaveAttribute('data-state', /retrying|connecting/);
      await expect(page.getByTestId('connection')).toHaveText(/^(Connection lost\. Reconnecting…|Connecting…)$/);
      await expect(page.getByTestId('throw')).toBeDisabled();
    }
    server = await startServer({ dataDir, listen: new URL(server.url).host });
    for (const page of pages) await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'open', { timeout: 20_000 });
    await expect(game.black.getByTestId('seat')).toHaveText('You play black.');
    await expect(game.white.getByTestId('seat')).toHaveText('You play white.');
    expect((await boardOf(game.white)).position).toBe(before.position);
    for (let i = 0; i < 4; i += 1) await takeTurn(players, pages);
  } finally {
    await server.stop();
    removeDataDir(dataDir);
  }
});

// A stopped server (SIGSTOP: a paused container, a hung host) closes nothing: its kernel holds the
// socket, so the browser notices nothing. The page does, from the silence after its own action.
test('a page whose server stops answering says so after its next action and is back when it answers', async ({ open }) => {
  const server = await startServer();
  try {
    const game = await startOnlineGame((path, options) => open(new URL(path, server.url).href, { ...options, allowNetworkErrors: true }));
    const players = { black: game.black, white: game.white };
    const pages = [game.black, game.white];
    for (let i = 0; i < 2 || (await roomInfo(game.black)).phase !== 'roll'; i += 1) await takeTurn(players, pages);
    const { turn, v } = await roomInfo(game.black);
    const actor = players[turn];

    server.pause();
    await actor.getByTestId('throw').click();
    const connection = actor.getByTestId('connection');
    // Nothing heard 2.5 s after the throw (connection.js ANSWER_LIMIT_MS): the page lets the socket go.
    await expect(connection).toHaveAttribute('data-state', /retrying|connecting/, { timeout: 4_000 });
    await expect(connection).toHaveText(/^(Connection lost\. Reconnecting…|Connecting…)$/);
    server.resume();
    for (const page of pages) await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'open', { timeout: 20_000 });
    // The throw reached the server before it stopped: it was applied as it woke.
    await expect.poll(async () => Number((await roomInfo(actor)).v)).toBeGreaterThan(Number(v));
    for (let i = 0; i < 4; i += 1) await takeTurn(players, pages);
  } finally {
    await server.stop();
  }
});
