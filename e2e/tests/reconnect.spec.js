// The server goes away mid-game and comes back on the same address and database: the pages show
// the lost connection, reconnect by themselves with their tokens, and the game goes on.
import { test, expect } from '../support/fixtures.js';
import { startServer, newDataDir, removeDataDir } from '../support/server.js';
import { startOnlineGame, takeTurn, boardOf, roomInfo, settle, expectSameBoard } from '../support/game.js';

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

/**
 * Swap the server's welcome on `page`'s room sockets, on the wire (Playwright's WebSocket
 * routing), for the error `{code, message}`: on the first socket only, or on `every` one.
 * Returns the sockets the page opens.
 */
async function answerHelloWith(page, error, { every = false } = {}) {
  const sockets = [];
  await page.routeWebSocket(/\/ws\/rooms\//, (ws) => {
    const swap = every || sockets.length === 0;
    sockets.push(ws);
    const server = ws.connectToServer();
    server.onMessage((message) => {
      const welcome = JSON.parse(message).t === 'welcome';
      ws.send(swap && welcome ? JSON.stringify({ t: 'error', d: { ...error, id: null } }) : message);
    });
  });
  return sockets;
}

/** A game four actions in, and a spectator's page (not yet in the room) in a context of its own. */
async function gameAndSpectator(open) {
  const context = { reducedMotion: 'reduce' };
  const game = await startOnlineGame(open, { context });
  const players = { black: game.black, white: game.white };
  const pages = [game.black, game.white];
  for (let i = 0; i < 4; i += 1) await takeTurn(players, pages);
  return { game, players, pages, spectator: await open('/', context) };
}

// Issue 30, item 11: a page opened mid-game (a spectator) whose hello the server answers
// `unavailable` (the room did not answer within the server's 1.5 s deadline: a loaded machine)
// holds no seat and no state. Before the page said hello again on such an answer, it sat there
// with an empty board for as long as the socket lived.
test('a page whose first hello is answered unavailable says hello again and draws the game', async ({ open }) => {
  const { game, players, pages, spectator } = await gameAndSpectator(open);
  const sockets = await answerHelloWith(spectator, { code: 'unavailable', message: 'the room did not answer in time' });
  await spectator.goto(game.url);
  // At once, not only when the page gives up on a handshake that was never welcomed (4 s).
  await expect(spectator.getByTestId('seat')).toHaveText('You are watching this game.', { timeout: 3_500 });
  expect(sockets.length).toBe(2);
  await settle([...pages, spectator]);
  await expectSameBoard([...pages, spectator]);
  pages.push(spectator);
  await takeTurn(players, pages);
});

// A hello refused for a reason that asking again would not change (the room removed between the
// handshake and the hello): the page says why and stops, rather than ask every few seconds
// under an empty board and "Connecting…".
test('a page whose hello is refused for good says why and does not ask again', async ({ open }) => {
  const { game, spectator } = await gameAndSpectator(open);
  const sockets = await answerHelloWith(spectator, { code: 'room_not_found', message: 'no such room' }, { every: true });
  await spectator.goto(game.url);
  await expect(spectator.getByTestId('problem')).toHaveText('This room does not exist. Check the link, or start a new game from the lobby.');
  await expect(spectator.getByTestId('connection')).toHaveAttribute('data-state', 'closed');
  // Past the 4 s after which an unwelcomed handshake is given up and tried again.
  await spectator.waitForTimeout(5_000);
  expect(sockets.length).toBe(1);
  await expect(spectator.getByTestId('connection')).toHaveText('Not connected');
});
