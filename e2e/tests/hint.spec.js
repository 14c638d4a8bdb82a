// The hint of practice rooms: after a throw with a choice, the button shows the engine's move in
// words and on the board; the record keeps the `hinted` event, and the analysis of the finished
// game calls the hinted move the best one (the hint is that analysis's choice, issue 14).
import { test, expect } from '../support/fixtures.js';
import { roomInfo, settle, takeTurn } from '../support/game.js';

test('a hint names the engine\'s move, marks it, is recorded, and the analysis agrees', async ({ open }) => {
  const page = await open('/', { reducedMotion: 'reduce' });
  await page.getByTestId('create-local').click();
  await page.waitForURL(/\/r\/[^/]+$/);
  const players = { black: page, white: page };
  const movable = page.locator('[data-testid="board"] .piece.movable');
  // Play on until a throw leaves a choice of at least two pieces.
  for (let actions = 0; actions < 200; actions += 1) {
    const { phase } = await roomInfo(page);
    if (phase === 'move' && (await movable.count()) >= 2) break;
    await takeTurn(players, [page]);
  }
  expect(await movable.count()).toBeGreaterThanOrEqual(2);
  const { v, turn } = await roomInfo(page);

  const button = page.getByTestId('hint');
  await expect(button).toBeVisible();
  await button.click();
  await settle([page], Number(v) + 1);
  const text = page.getByTestId('hint-text');
  await expect(text).toHaveText(/^Hint: the engine would move the piece on \d+\.$/);
  const from = Number((await text.textContent()).match(/\d+/)[0]);
  // The hinted piece is one that can move, marked on the board; the button has done its job.
  const hinted = page.locator('[data-testid="board"] .piece.hinted');
  await expect(hinted).toHaveCount(1);
  await expect(hinted).toHaveAttribute('data-square', String(from));
  await expect(hinted).toHaveClass(/movable/);
  await expect(button).toBeHidden();

  // Follow the hint, then end the game.
  await hinted.click();
  await settle([page], Number(v) + 2);
  await expect(text).toHaveText('');
  await page.getByTestId('resign').click();
  await page.getByTestId('confirm-yes').click();
  await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'over');

  const room = page.url().split('/').pop();
  const api = (path) => page.request.get(new URL(`/api/rooms/${room}/${path}`, page.url()).href);
  const record = await (await api('record')).json();
  const events = record.events.filter((event) => event.t === 'hinted');
  expect(events).toHaveLength(1);
  expect(events[0].d).toMatchObject({ side: turn, from });

  // The analysis judges that throw, the game's last: the move played (the hint) was the best.
  const analysis = await (await api('analysis')).json();
  const last = analysis.throws[analysis.throws.length - 1];
  expect(last).toMatchObject({ side: turn, kind: 'decision', played: from, label: 'best' });
  expect(last.best).toBeUndefined();
});
