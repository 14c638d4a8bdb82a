// Playing through the page as a person does: read what the room shows, click the throw button
// or a highlighted piece, and check that every page shows the same board afterwards.
import { expect } from './fixtures.js';

/** The room's data attributes: phase, turn, seat, v (event version), busy, legal, mode. */
export function roomInfo(page) {
  return page.getByTestId('room').evaluate((room) => ({ ...room.dataset }));
}

/** The board as drawn (from the piece elements) and as the page's state holds it. */
export function boardOf(page) {
  return page.getByTestId('board').evaluate((board) => {
    const squares = Array(30).fill('.');
    for (const piece of board.querySelectorAll('[data-testid="piece"]')) {
      squares[Number(piece.dataset.square) - 1] = piece.dataset.side === 'black' ? 'B' : 'W';
    }
    return { drawn: squares.join(''), position: board.dataset.position };
  });
}

/**
 * Wait until every page has applied the same events (at least version `minV`), finished its
 * animations, and is not between a throw without moves and the pass that follows it.
 */
export async function settle(pages, minV = 0) {
  await expect
    .poll(
      async () => {
        const infos = await Promise.all(pages.map(roomInfo));
        const versions = infos.map((info) => Number(info.v));
        return (
          infos.every((info) => info.busy !== 'true' && !(info.phase === 'move' && info.legal === '0')) &&
          versions.every((v) => v === versions[0]) &&
          versions[0] >= minV
        );
      },
      { timeout: 20_000, intervals: [20, 20, 40, 40, 80] },
    )
    .toBe(true);
}

/** Every page draws the same board, and draws exactly the position it holds. */
export async function expectSameBoard(pages) {
  const boards = await Promise.all(pages.map(boardOf));
  for (const board of boards) {
    expect(board.drawn).toBe(board.position.slice(0, 30));
    expect(board.position).toBe(boards[0].position);
  }
  return boards[0].position;
}

/**
 * A game against the easy computer, the page's player white, on a server of the test's own
 * (`serve`) whose short --ai-delay-ms keeps it quick: `{ server, page }`, the page in the room.
 */
export async function startComputerGame(open, serve) {
  const server = await serve({ extraArgs: ['--ai-delay-ms', '20'] });
  const page = await open(new URL('/', server.url).href, { reducedMotion: 'reduce' });
  const form = page.getByTestId('ai-form');
  await form.getByRole('radio', { name: 'White' }).check();
  await form.getByRole('combobox').selectOption('easy');
  await page.getByTestId('create-ai').click();
  await page.waitForURL(/\/r\/[^/]+$/);
  return { server, page };
}

/**
 * Accept the invitation the page shows on a room's link (issue 52): the seat is taken only when
 * Join is pressed. Waits until the page holds its seat.
 */
export async function acceptInvitation(page) {
  await expect(page.getByTestId('join-step')).toBeVisible();
  await page.getByTestId('join').click();
  await expect(page.getByTestId('room')).toHaveAttribute('data-seat', /^(black|white)$/);
  await expect(page.getByTestId('join-step')).toBeHidden();
}

/** Open a room's link as the invited second player (`open` as the fixture's) and press Join. */
export async function joinByLink(open, link, context = {}) {
  const page = await open(link, context);
  await acceptInvitation(page);
  return page;
}

/**
 * In the lobby: create an online room as `side`, then open its link in a second context and join.
 * `invitation: false` for a server from before the invitation step (release 0.1.0), whose page
 * takes the seat as the link opens.
 */
export async function startOnlineGame(open, { side = 'black', context = {}, invitation = true } = {}) {
  const creator = await open('/', context);
  await creator.getByTestId('online-form').getByRole('radio', { name: side === 'black' ? 'Black' : 'White' }).check();
  await creator.getByTestId('create-online').click();
  await creator.waitForURL(/\/r\/[^/]+$/);
  await expect(creator.getByTestId('invite')).toBeVisible();
  await expect(creator.getByTestId('turn')).toHaveText('Waiting for the second player…');
  const link = await creator.getByTestId('invite-link').inputValue();
  expect(link).toBe(creator.url());
  await creator.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await creator.getByTestId('copy-link').click();
  await expect(creator.getByTestId('copy-status')).toHaveText('Link copied.');
  expect(await creator.evaluate(() => navigator.clipboard.readText())).toBe(link);
  const friend = invitation ? await joinByLink(open, link, context) : await open(link, context);
  for (const page of [creator, friend]) await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
  await expect(creator.getByTestId('invite')).toBeHidden();
  const other = side === 'black' ? 'white' : 'black';
  await expect(creator.getByTestId('seat')).toHaveText(`You play ${side}.`);
  await expect(friend.getByTestId('seat')).toHaveText(`You play ${other}.`);
  return { [side]: creator, [other]: friend, url: link };
}

/**
 * Note in the page whether a piece starts to travel: the board marks the moving piece, and a
 * Web Animation runs on its `.travel` group. Observed as it happens, so a short animation on a
 * busy machine cannot finish unseen.
 */
function watchForTravel(page) {
  return page.evaluate(() => {
    window.travelSeen = false;
    const observer = new MutationObserver(() => {
      if (!document.getAnimations().some((a) => a.effect?.target?.classList.contains('travel'))) return;
      window.travelSeen = true;
      observer.disconnect();
    });
    observer.observe(document.querySelector('[data-testid="board"]'), { subtree: true, attributeFilter: ['class'] });
  });
}

/**
 * One action by clicking, as the side to move: the throw button, or a highlighted piece (the
 * most advanced one, which ends games sooner). `players` maps each side to its page; `pages`
 * are all pages that must agree; `preview` checks the hover shows the destination, `animated`
 * that the move is animated. Returns "throw", "pass" (a throw without a move) or "move".
 */
export async function takeTurn(players, pages, { preview = false, animated = false, opponentIsComputer = false } = {}) {
  const { phase, turn, v } = await roomInfo(pages[0]);
  const actor = players[turn];
  const others = pages.filter((page) => page !== actor);
  let done;
  if (phase === 'roll') {
    for (const page of others) await expect(page.getByTestId('throw')).toBeHidden();
    await actor.getByTestId('throw').click();
    done = 'throw';
  } else if (phase === 'move') {
    for (const page of others) await expect(page.locator('.piece.movable')).toHaveCount(0);
    await expect(actor.getByTestId('throw')).toBeHidden();
    const movable = actor.locator('[data-testid="board"] .piece.movable');
    const count = await movable.count();
    expect(count).toBeGreaterThan(0);
    const piece = movable.nth(count - 1);
    if (preview) {
      await piece.hover();
      await expect(actor.getByTestId('destination')).toHaveAttribute('data-square', (await piece.getAttribute('data-to')) ?? '');
    }
    if (animated) await watchForTravel(actor);
    await piece.click();
    if (animated) await actor.waitForFunction(() => window.travelSeen === true, null, { timeout: 5_000 });
    done = 'move';
  } else {
    throw new Error(`no action in phase ${phase}`);
  }
  await settle(pages, Number(v) + 1);
  await expectSameBoard(pages);
  // (Against the computer the next events come by themselves, so the page may have moved on.)
  if (done === 'throw' && !opponentIsComputer && (await roomInfo(actor)).phase === 'roll') {
    // The throw had no legal move: every page says so, and the turn passed.
    for (const page of pages) {
      await expect(page.getByTestId('message')).toHaveText(/ and cannot move: the turn passes to /);
      await expect(page.getByTestId('move').last()).toHaveText(/: no move$/);
    }
    expect((await roomInfo(actor)).turn).not.toBe(turn);
    done = 'pass';
  }
  return done;
}

/** Take turns until the game is over (or `until()` says stop); returns the number of throws. */
export async function playOn(players, pages, { until = async () => false, maxActions = 4000, onAction = async () => {} } = {}) {
  let throws = 0;
  for (let actions = 0; actions < maxActions; actions += 1) {
    if ((await roomInfo(pages[0])).phase === 'over' || (await until())) return throws;
    const done = await takeTurn(players, pages, { preview: actions % 9 === 3 });
    if (done !== 'move') throws += 1;
    await onAction(actions + 1);
  }
  throw new Error(`game not over after ${maxActions} actions`);
}
