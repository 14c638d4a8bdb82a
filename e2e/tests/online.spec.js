// A whole online game between two browser contexts, clicking only, with a spectator joining
// midway; then the end screen, "verify the throws" and the replay.
import { test, expect } from '../support/fixtures.js';
import { startOnlineGame, playOn, roomInfo, boardOf, takeTurn, settle } from '../support/game.js';

test('two players play a whole online game by clicking; a spectator watches; the throws verify', async ({ open }) => {
  // Without animations, so that a whole game takes minutes, not many; the other tests animate.
  const context = { reducedMotion: 'reduce' };
  const game = await startOnlineGame(open, { context });
  const players = { black: game.black, white: game.white };
  const pages = [game.black, game.white];
  const urls = [];
  for (const page of pages) page.on('request', (request) => urls.push(request.url()));

  let spectator = null;
  const throws = await playOn(players, pages, {
    onAction: async (actions) => {
      if (actions !== 8) return;
      spectator = await open(game.url, context);
      spectator.on('request', (request) => urls.push(request.url()));
      await expect(spectator.getByTestId('seat')).toHaveText('You are watching this game.');
      await settle([...pages, spectator]);
      pages.push(spectator);
      await expect(spectator.getByTestId('throw')).toBeHidden();
      await expect(spectator.getByTestId('resign')).toBeHidden();
      await expect(spectator.getByTestId('offer-draw')).toBeHidden();
      // The spectator's move list comes from the record: the same as the players'.
      await expect(spectator.getByTestId('move')).toHaveText(await game.black.getByTestId('move').allTextContents());
      for (const page of pages) await expect(page.getByTestId('watchers')).toHaveText('1 person watching');
    },
  });
  expect(spectator).not.toBeNull();

  const winner = await game.black.getByTestId('end').getAttribute('data-winner');
  expect(['black', 'white']).toContain(winner);
  for (const page of pages) {
    await expect(page.getByTestId('end')).toBeVisible();
    await expect(page.getByTestId('end')).toHaveAttribute('data-winner', winner);
    await expect(page.getByTestId('end-title')).toHaveText(`${winner === 'black' ? 'Black' : 'White'} wins`);
    await expect(page.getByTestId('end-reason')).toHaveText('All five pieces borne off.');
    await expect(page.getByTestId(`borne-${winner}`)).toHaveAttribute('data-count', '5');
    await expect(page.getByTestId('throw')).toBeHidden();
  }
  const loser = winner === 'black' ? 'white' : 'black';
  await expect(players[winner].getByTestId('end-you')).toHaveText('You won!');
  await expect(players[loser].getByTestId('end-you')).toHaveText('You lost.');
  await expect(spectator.getByTestId('end-you')).toHaveText('');
  await expect(spectator.getByTestId('rematch')).toBeHidden();

  // The seed is revealed, and every throw recomputed in the browser matches the record.
  await expect(spectator.getByTestId('seed')).toHaveText(/^[0-9a-f]{64}$/);
  await spectator.getByTestId('verify').click();
  await expect(spectator.getByTestId('verify-hash')).toHaveText('The revealed seed matches the hash published at the start.');
  await expect(spectator.getByTestId('verify-summary')).toHaveText(`All ${throws} throws match the seed.`);
  await expect(spectator.getByTestId('verify-summary')).toHaveAttribute('data-ok', 'true');
  // Each page sent its own client seed, after the seed hash was logged (docs/PROTOCOL.md).
  await expect(spectator.getByTestId('verify-order')).toHaveText('The hash was published before any player’s seed was known.');
  const roomId = new URL(game.url).pathname.split('/')[2];
  const record = await (await spectator.request.get(new URL(`/api/rooms/${roomId}/record`, game.url).href)).json();
  for (const side of ['black', 'white']) expect(record.client_seeds[side]).toMatch(/^[0-9a-f]{32}$/);
  expect(record.client_seeds.black).not.toBe(record.client_seeds.white);

  // The replay steps from the start to the final position.
  await spectator.getByTestId('open-replay').click();
  const replayBoard = spectator.getByTestId('replay-board');
  await expect(replayBoard).toHaveAttribute('data-position', 'WBWBWBWBWB.................... b');
  await spectator.getByTestId('replay-next').click();
  await expect(spectator.getByTestId('replay-caption')).toHaveText(/^(Black|White) \d: /);
  await spectator.getByTestId('replay-last').click();
  const final = (await boardOf(spectator)).position;
  await expect(replayBoard).toHaveAttribute('data-position', final);
  await expect(spectator.getByTestId('replay-next')).toBeDisabled();

  // Seat tokens never travel in a URL.
  const tokens = await Promise.all([game.black, game.white].map((page) =>
    page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('senet.seat.')).map((key) => JSON.parse(localStorage.getItem(key)).token)),
  ));
  for (const token of tokens.flat()) {
    expect(token.length).toBeGreaterThan(20);
    expect(urls.filter((url) => url.includes(token))).toEqual([]);
  }
});

test('a reloaded page keeps its seat and plays on', async ({ open }) => {
  const game = await startOnlineGame(open, { side: 'white' });
  const players = { black: game.black, white: game.white };
  const pages = [game.black, game.white];
  let actions = 0;
  await playOn(players, pages, { until: async () => (actions += 1) > 6 });
  // Moves are animated (this context does not ask for reduced motion).
  while ((await roomInfo(game.black)).phase !== 'move') await takeTurn(players, pages);
  await takeTurn(players, pages, { animated: true });
  const before = await boardOf(game.white);

  await game.white.reload();
  await expect(game.white.getByTestId('connection')).toHaveAttribute('data-state', 'open');
  await expect(game.white.getByTestId('seat')).toHaveText('You play white.');
  await settle(pages);
  expect((await boardOf(game.white)).position).toBe(before.position);
  // The move list is rebuilt from the record after the reload.
  await expect(game.white.getByTestId('move')).toHaveText(await game.black.getByTestId('move').allTextContents());

  for (let i = 0; i < 10 && (await roomInfo(game.black)).phase !== 'over'; i += 1) await takeTurn(players, pages);
  // Both seats are still taken by the same two pages: nobody became a spectator.
  await expect(game.black.getByTestId('player-white')).toHaveAttribute('data-presence', 'online');
  await expect(game.black.getByTestId('watchers')).toHaveText('0 people watching');
});
