// The room page's controller (web/js/room.js) apart from the server: the real room page, view and
// language tables in Chromium, with the socket, the HTTP API and the navigation replaced by a
// script, so each test says exactly which messages arrive in which order and checks what the page
// shows and sends. (The other specs drive the same controller against the real server.)
import { test, expect } from '../support/fixtures.js';

const ROOM = '0123456789abcdef0123456789abcdef';
const START = 'WBWBWBWBWB.................... b';
const SEED_HASH = 'ab'.repeat(32);
const STICKS = [true, true, true, false];

/** A `State` as the server sends it (docs/PROTOCOL.md), with `changes` on top. */
function serverState(changes = {}) {
  const player = { seated: true, connected: true, claim_at: null };
  return {
    room: ROOM,
    mode: 'online',
    position: START,
    turn: 'black',
    phase: 'roll',
    throw: null,
    legal: [],
    players: { black: { ...player }, white: { ...player } },
    spectators: 0,
    draw_offer: null,
    result: null,
    seed_hash: SEED_HASH,
    rematch_offers: [],
    rematch: null,
    v: 1,
    ...changes,
  };
}

const STARTED = { v: 1, at: 0, t: 'started', d: { position: START, turn: 'black', seed_hash: SEED_HASH } };

/**
 * Open the room page without its entry module, then start `createRoom` on it with scripted deps.
 * `world` says what the outside answers: `seat` (the stored seat, or null), `summary` and
 * `summaryStatus` (an HTTP error status instead), `joined` and `joinError` (an error code),
 * `record`, and `holdAnimations` (each move's animation waits for `finishAnimation`).
 * Everything the controller does to the outside is kept in `window.harness`.
 */
async function mountController(page, world = {}) {
  await page.route('**/js/room-page.js', (route) => route.fulfill({ contentType: 'text/javascript', body: '' }));
  await page.goto(new URL(`/r/${ROOM}`, page.url()).href);
  const defaults = { seat: { seat: 'black', token: 'token-black' }, record: { room: ROOM, seed_hash: SEED_HASH, events: [STARTED] } };
  await page.evaluate(async (world) => {
    const base = document.querySelector('script[type="module"]').src;
    const load = (name) => import(new URL(name, base).href);
    const [{ createRoom }, { createRoomView }, { mountLanguageSwitch, onLanguageChange }, { part }] = await Promise.all(
      ['room.js', 'room-view.js', 'i18n.js', 'dom.js'].map(load),
    );
    const failure = (status, code) => Object.assign(new Error(code), { status, code });
    const harness = { sent: [], saved: [], forgotten: [], navigated: [], animations: [], connected: null, tookSeat: null, handlers: null };
    window.harness = harness;
    const room = createRoom(part('room'), {
      roomId: world.room,
      api: {
        roomSummary: async () => {
          if (world.summaryStatus) throw failure(world.summaryStatus, 'http');
          return world.summary;
        },
        joinRoom: async () => {
          if (world.joinError) throw failure(409, world.joinError);
          return world.joined;
        },
        roomRecord: async () => world.record,
        saveSeat: (roomId, seat) => harness.saved.push({ roomId, seat: seat.seat, token: seat.token }),
        loadSeat: () => world.seat,
        forgetSeat: (roomId) => harness.forgotten.push(roomId),
      },
      connect: (roomId, token, handlers) => {
        harness.handlers = handlers;
        return {
          start: () => {
            harness.connected = { roomId, token: token ?? null };
          },
          send: (type, data) => harness.sent.push({ type, data }),
          takeSeat: (token) => {
            harness.tookSeat = token;
          },
        };
      },
      createView: (root, options) => {
        const view = createRoomView(root, options);
        if (!world.holdAnimations) return view;
        return { ...view, animateMove: (moved) => new Promise((finish) => harness.animations.push({ from: moved.from, finish })) };
      },
      navigate: (url) => harness.navigated.push(url),
    });
    mountLanguageSwitch(part('language'));
    onLanguageChange(room.relabel);
    await room.start();
  }, { room: ROOM, ...defaults, ...world });
}

/** The scripted server says something: `handler` is a RoomSocket handler name. */
function serverSays(page, handler, ...args) {
  return page.evaluate(([handler, args]) => window.harness.handlers[handler](...args), [handler, args]);
}

/** The controller is connected and welcomed as `seat` into `state`. */
async function welcome(page, seat, state) {
  await serverSays(page, 'status', 'open', {});
  await serverSays(page, 'welcome', { seat, state });
  await expect(page.getByTestId('room')).toHaveAttribute('data-v', String(state.v));
}

const harness = (page) => page.evaluate(() => ({ ...window.harness, animations: window.harness.animations.length }));

test('events are applied in order, each move after the animation of the one before', async ({ open }) => {
  const page = await open('/');
  await mountController(page, { holdAnimations: true });
  await welcome(page, 'black', serverState());
  expect((await harness(page)).connected).toEqual({ roomId: ROOM, token: 'token-black' });

  const afterBlack = 'WBWBWBWBW...B................. w';
  const afterWhite = 'WBWBWBWB..WB.................. b';
  const events = [
    ['rolled', { side: 'black', n: 0, sticks: STICKS, value: 3, legal: [{ from: 10, to: 13 }], v: 2 }],
    ['moved', { side: 'black', from: 10, to: 13, effect: 'step', position: afterBlack, next: 'white', extra: false, v: 3 }],
    ['rolled', { side: 'white', n: 1, sticks: [true, true, false, false], value: 2, legal: [{ from: 9, to: 11 }], v: 4 }],
    ['moved', { side: 'white', from: 9, to: 11, effect: 'step', position: afterWhite, next: 'black', extra: false, v: 5 }],
    ['rolled', { side: 'black', n: 2, sticks: [false, false, false, false], value: 5, legal: [], v: 6 }],
    ['passed', { side: 'black', value: 5, next: 'white', v: 7 }],
  ];
  for (const [type, d] of events) await serverSays(page, 'event', type, d);

  const room = page.getByTestId('room');
  const moves = page.getByTestId('move');
  // The first move waits for its animation; nothing after it is applied yet.
  await expect(room).toHaveAttribute('data-v', '2');
  await expect(room).toHaveAttribute('data-busy', 'true');
  await expect(page.getByTestId('throw-value')).toHaveText('Black threw 3');
  expect((await harness(page)).animations).toBe(1);
  await expect(moves).toHaveCount(0);

  await page.evaluate(() => window.harness.animations[0].finish());
  await expect(room).toHaveAttribute('data-v', '4');
  await expect(page.getByTestId('board')).toHaveAttribute('data-position', afterBlack);
  await expect(moves).toHaveText(['Black 3: 10 → 13']);
  // The move just made is marked on the board, from and to, its way along the track (issue 52).
  const last = page.getByTestId('board').getByTestId('last-move');
  await expect(last).toHaveAttribute('data-from', '10');
  await expect(last).toHaveAttribute('data-to', '13');
  await expect(last.getByTestId('last-path')).toHaveCount(1);
  await expect(page.getByTestId('throw-value')).toHaveText('White threw 2');
  expect((await harness(page)).animations).toBe(2);

  await page.evaluate(() => window.harness.animations[1].finish());
  await expect(room).toHaveAttribute('data-v', '7');
  await expect(room).toHaveAttribute('data-busy', 'false');
  await expect(room).toHaveAttribute('data-turn', 'white');
  await expect(page.getByTestId('board')).toHaveAttribute('data-position', afterWhite);
  // Each entry has the value of the throw before it.
  await expect(moves).toHaveText(['Black 3: 10 → 13', 'White 2: 9 → 11', 'Black 5: no move']);
  // A pass leaves the last move marked.
  await expect(last).toHaveAttribute('data-from', '9');
  await expect(last).toHaveAttribute('data-to', '11');
  await expect(page.getByTestId('message')).toHaveText('Black threw 5 and cannot move: the turn passes to White.');
});

test('an action waits for its answer; an error answer is shown in words', async ({ open }) => {
  const page = await open('/');
  await mountController(page);
  await welcome(page, 'black', serverState());
  const throwButton = page.getByTestId('throw');
  const movable = page.locator('[data-testid="board"] .piece.movable');

  await throwButton.click();
  expect((await harness(page)).sent).toEqual([{ type: 'roll', data: {} }]);
  await expect(throwButton).toBeDisabled();
  await serverSays(page, 'event', 'rolled', { side: 'black', n: 0, sticks: STICKS, value: 3, legal: [{ from: 10, to: 13 }], v: 2 });
  await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'move');
  // The throw is not answered yet: the piece is not offered until the ack clears the action.
  await expect(movable).toHaveCount(0);
  await serverSays(page, 'reply', 'ack', { id: 1, v: 2 });
  await expect(movable).toHaveCount(1);

  // Each refusal of the move, in words; the piece is offered again after each.
  const refusals = [
    [{ code: 'illegal_move', reason: 'blocked' }, 'A block of enemy pieces is in the way.'],
    [{ code: 'illegal_move', reason: 'game_over' }, 'That move is not allowed.'],
    [{ code: 'not_your_turn' }, 'It is not your turn.'],
    [{ code: 'internal' }, 'The server refused that (internal).'],
  ];
  let shown = '';
  for (const [index, [error, sentence]] of refusals.entries()) {
    const id = index + 2;
    await movable.click();
    expect((await harness(page)).sent.at(-1)).toEqual({ type: 'move', data: { from: 10 } });
    await expect(movable).toHaveCount(0);
    // An answer to another action changes nothing.
    await serverSays(page, 'reply', 'error', { ...error, message: 'refused', id: id + 100 });
    await serverSays(page, 'reply', 'pong', { id });
    await expect(movable).toHaveCount(0);
    await expect(page.getByTestId('message')).toHaveText(shown);
    await serverSays(page, 'reply', 'error', { ...error, message: 'refused', id });
    await expect(page.getByTestId('message')).toHaveText(sentence);
    await expect(movable).toHaveCount(1);
    shown = sentence;
  }
});

test('the client seed is sent once the seed hash is logged, once, and is fresh on every page', async ({ open }) => {
  const page = await open('/');
  await mountController(page);
  await welcome(page, 'black', serverState({ phase: 'waiting', v: 0 }));
  expect((await harness(page)).sent).toEqual([]);
  await serverSays(page, 'event', 'started', { ...STARTED.d, v: 1 });
  await expect(page.getByTestId('room')).toHaveAttribute('data-v', '1');
  const { sent } = await harness(page);
  expect(sent).toHaveLength(1);
  expect(sent[0].type).toBe('seed');
  const mine = sent[0].data.client_seed;
  expect(mine).toMatch(/^[0-9a-f]{32}$/);
  // Logged: not sent again, neither on later events nor on a fresh state that holds it.
  await serverSays(page, 'event', 'client-seed', { side: 'black', client_seed: mine, v: 2 });
  await serverSays(page, 'event', 'client-seed', { side: 'white', client_seed: 'theirs', v: 3 });
  const seeds = { black: mine, white: 'theirs' };
  await serverSays(page, 'state', serverState({ client_seeds: seeds, client_seeds_open: true, v: 3 }));
  await expect(page.getByTestId('room')).toHaveAttribute('data-v', '3');
  expect((await harness(page)).sent).toHaveLength(1);

  // Another page (a rematch opens one) makes another seed; after the first throw it sends none.
  await mountController(page);
  await welcome(page, 'white', serverState({ client_seeds: seeds, client_seeds_open: true, v: 3 }));
  const again = (await harness(page)).sent;
  expect(again).toHaveLength(1);
  expect(again[0].data.client_seed).toMatch(/^[0-9a-f]{32}$/);
  expect(again[0].data.client_seed).not.toBe(mine);
  await mountController(page);
  await welcome(page, 'white', serverState({ client_seeds: seeds, client_seeds_open: false, v: 4 }));
  expect((await harness(page)).sent).toEqual([]);
});

test('a draw offer is drawn from the server state and its events', async ({ open }) => {
  const page = await open('/');
  await mountController(page);
  await welcome(page, 'black', serverState({ draw_offer: 'white', v: 4 }));
  await expect(page.getByTestId('draw-status')).toHaveText('White offers a draw.');
  for (const id of ['accept-draw', 'decline-draw']) await expect(page.getByTestId(id)).toBeVisible();
  for (const id of ['offer-draw', 'withdraw-draw']) await expect(page.getByTestId(id)).toBeHidden();

  await page.getByTestId('decline-draw').click();
  expect((await harness(page)).sent).toEqual([{ type: 'draw-decline', data: {} }]);
  await serverSays(page, 'event', 'draw-cancelled', { side: 'white', why: 'declined', v: 5 });
  await serverSays(page, 'reply', 'ack', { id: 1, v: 5 });
  await expect(page.getByTestId('message')).toHaveText('The draw offer was declined.');
  await expect(page.getByTestId('draw-status')).toHaveText('');
  await expect(page.getByTestId('offer-draw')).toBeVisible();
  await expect(page.getByTestId('offer-draw')).toBeEnabled();

  await page.getByTestId('offer-draw').click();
  await serverSays(page, 'event', 'draw-offered', { side: 'black', v: 6 });
  await serverSays(page, 'reply', 'ack', { id: 2, v: 6 });
  await expect(page.getByTestId('draw-status')).toHaveText('You offered a draw.');
  await expect(page.getByTestId('withdraw-draw')).toBeVisible();
  await expect(page.getByTestId('accept-draw')).toBeHidden();
});

test('with no stored seat the page offers the free one and takes it only on Join, or watches when there is none', async ({ open }) => {
  const free = { status: 'waiting', players: { black: { seated: true }, white: { seated: false } } };
  const waiting = serverState({ phase: 'waiting', turn: null, players: { black: { seated: true, connected: true, claim_at: null }, white: { seated: false, connected: false, claim_at: null } } });
  const joined = { seat: 'white', token: 'token-white' };
  const page = await open('/');
  await mountController(page, { seat: null, summary: free, joined });
  // It watches (no token) and shows the invitation; nothing is taken yet.
  expect((await harness(page)).connected).toEqual({ roomId: ROOM, token: null });
  await welcome(page, 'spectator', waiting);
  await expect(page.getByTestId('join-title')).toHaveText('You are invited to play White');
  await expect(page.getByTestId('join-details')).toHaveText('Untimed · Casual');
  await expect(page.getByTestId('join')).toBeFocused();
  expect((await harness(page)).saved).toEqual([]);
  await page.getByTestId('join').click();
  await expect.poll(async () => (await harness(page)).tookSeat).toBe('token-white');
  expect((await harness(page)).saved).toEqual([{ roomId: ROOM, ...joined }]);
  await expect(page.getByTestId('join-step')).toBeHidden();

  // Taken by someone else in the meantime: the page says so and watches.
  const late = await open('/');
  await mountController(late, { seat: null, summary: free, joinError: 'room_full' });
  await welcome(late, 'spectator', waiting);
  await late.getByTestId('join').click();
  await expect(late.getByTestId('message')).toHaveText('Someone else took the seat first: you are watching this game.');
  await expect(late.getByTestId('join-step')).toBeHidden();
  expect((await harness(late)).tookSeat).toBeNull();

  // A room whose seats are full: it watches, with no invitation.
  const full = await open('/');
  await mountController(full, { seat: null, summary: { status: 'playing', players: { black: { seated: true }, white: { seated: true } } } });
  await welcome(full, 'spectator', serverState());
  await expect(full.getByTestId('join-step')).toBeHidden();
  expect((await harness(full)).connected).toEqual({ roomId: ROOM, token: null });

  const missing = await open('/');
  await mountController(missing, { seat: null, summaryStatus: 404 });
  await expect(missing.getByTestId('problem')).toHaveText('This room does not exist. Check the link, or start a new game from the lobby.');
  await expect(missing.getByTestId('connection')).toHaveText('Not connected');
  expect((await harness(missing)).connected).toBeNull();
});

test('a refused token is forgotten; a rematch seat is kept and followed', async ({ open }) => {
  const page = await open('/');
  await mountController(page);
  await serverSays(page, 'tokenRejected');
  await expect(page.getByTestId('problem')).toHaveText('The seat this browser held in this room is no longer valid, so you are watching.');
  expect((await harness(page)).forgotten).toEqual([ROOM]);

  const next = 'fedcba9876543210fedcba9876543210';
  await serverSays(page, 'seat', { room: next, url: `/r/${next}`, seat: 'white', token: 'token-next' });
  const after = await harness(page);
  expect(after.saved).toEqual([{ roomId: next, seat: 'white', token: 'token-next' }]);
  expect(after.navigated).toEqual([`/r/${next}`]);
});

test('a server newer than the page (an upgrade while it was open): play goes on, a reload keeps the seat', async ({ open }) => {
  const page = await open('/');
  await mountController(page);
  const protocol = await page.evaluate(async () => {
    const base = document.querySelector('script[type="module"]').src;
    return (await import(new URL('protocol.js', base).href)).PROTOCOL;
  });
  await serverSays(page, 'status', 'open', {});
  await serverSays(page, 'welcome', { seat: 'black', state: serverState(), protocol });
  await expect(page.getByTestId('updated')).toBeHidden();

  // The same protocol on a reconnect: nothing to say. A newer one: the offer, and the board plays.
  await serverSays(page, 'welcome', { seat: 'black', state: serverState(), protocol: protocol + 1 });
  await expect(page.getByTestId('updated')).toBeVisible();
  await expect(page.getByTestId('updated')).toContainText('your seat is kept');
  await expect(page.getByTestId('throw')).toBeEnabled();
  await page.getByTestId('throw').click();
  expect((await harness(page)).sent.map((message) => message.type)).toContain('roll');
  await page.getByTestId('reload').click();
  const after = await harness(page);
  expect(after.navigated).toEqual([`/r/${ROOM}`]);
  expect(after.forgotten).toEqual([]);
});

test('every word of the server vocabulary the page shows is in every language', async ({ open }) => {
  const page = await open('/');
  const missing = await page.evaluate(async () => {
    const base = document.querySelector('script[type="module"]').src;
    const { STRINGS, LANGUAGES } = await import(new URL('strings.js', base).href);
    const { IllegalReason, EndReason, CancelReason, Level } = await import(new URL('protocol.js', base).href);
    // A finished game is refused with the game_over code before any move is judged.
    const reasons = Object.values(IllegalReason).filter((reason) => reason !== IllegalReason.GameOver);
    const keys = [
      ...reasons.map((reason) => `illegal.${reason}`),
      ...Object.values(EndReason).map((reason) => `reason.${reason}`),
      ...Object.values(CancelReason).map((why) => `draw.${why}`),
      ...Object.values(Level).map((level) => `ai.${level}`),
    ];
    return LANGUAGES.flatMap((language) => keys.filter((key) => !(key in STRINGS[language])).map((key) => `${language}:${key}`));
  });
  expect(missing).toEqual([]);
  // The lobby offers the server's levels, its default chosen.
  const levels = page.getByTestId('ai-level');
  await expect(levels.locator('option')).toHaveText(['Easy', 'Medium', 'Hard']);
  await expect(levels).toHaveValue('medium');
});

test('the absent opponent whose clock runs out before the claim: the page names the clock, whichever comes first', async ({ open }) => {
  const page = await open('/');
  await mountController(page);
  const now = await page.evaluate(() => Date.now());
  const clock = { control: { initial: 180, increment: 2 }, remaining: { black: 150_000, white: 12_000 }, running: 'white' };
  const gone = { seated: true, connected: false, claim_at: now + 44_000 };
  await welcome(page, 'black', serverState({ turn: 'white', clock, players: { black: { seated: true, connected: true, claim_at: null }, white: gone }, v: 9 }));
  await expect(page.getByTestId('claim-status')).toHaveText(/^White has left; their clock runs out in 1[0-2] s\.$/);
  // With more time on the clock than the claim needs, the claim comes first and is named.
  await serverSays(page, 'state', serverState({ turn: 'white', clock: { ...clock, remaining: { black: 150_000, white: 120_000 } }, players: { black: { seated: true, connected: true, claim_at: null }, white: gone }, v: 10 }));
  await expect(page.getByTestId('claim-status')).toHaveText(/^White has left\. You may claim victory in (4[0-4]) s\.$/);
});

test('the last move is marked: a swap shows both ways, the water the way back to 15', async ({ open }) => {
  const page = await open('/');
  await mountController(page);
  await welcome(page, 'white', serverState());
  const last = page.getByTestId('board').getByTestId('last-move');
  await expect(last.getByTestId('last-path')).toHaveCount(0);
  const swapped = 'WBWBWBWBBW.................... w';
  await serverSays(page, 'event', 'rolled', { side: 'black', n: 0, sticks: [true, false, false, false], value: 1, legal: [{ from: 8, to: 9 }], v: 2 });
  await serverSays(page, 'event', 'moved', { side: 'black', from: 8, to: 9, effect: 'swap', swapped: 8, position: swapped, next: 'black', extra: true, v: 3 });
  await expect(last).toHaveAttribute('data-effect', 'swap');
  const paths = last.getByTestId('last-path');
  await expect(paths).toHaveCount(2);
  expect(await paths.evaluateAll((nodes) => nodes.map((node) => [node.dataset.kind, node.dataset.from, node.dataset.to]))).toEqual([
    ['move', '8', '9'],
    ['swap', '9', '8'],
  ]);
  const watered = 'WBWBWBWBBW.................... w'.replace(/^(.{14})./, '$1B');
  await serverSays(page, 'event', 'rolled', { side: 'black', n: 1, sticks: [true, true, false, false], value: 2, legal: [{ from: 10, to: 12 }], v: 4 });
  await serverSays(page, 'event', 'moved', { side: 'black', from: 25, to: 27, effect: 'water', rest: 15, position: watered, next: 'white', extra: false, v: 5 });
  await expect(last).toHaveAttribute('data-effect', 'water');
  await expect(last).toHaveAttribute('data-to', '15');
  expect(await paths.evaluateAll((nodes) => nodes.map((node) => [node.dataset.kind, node.dataset.from, node.dataset.to]))).toEqual([
    ['move', '25', '27'],
    ['water', '27', '15'],
  ]);
});

test('the move list holds the whole game, scrolled to the newest line, and scrolls by keyboard', async ({ open }) => {
  const page = await open('/');
  await mountController(page);
  await welcome(page, 'white', serverState());
  const sides = ['black', 'white'];
  let v = 1;
  for (let n = 0; n < 16; n += 1) {
    const side = sides[n % 2];
    await serverSays(page, 'event', 'rolled', { side, n, sticks: [false, false, false, false], value: 5, legal: [], v: (v += 1) });
    await serverSays(page, 'event', 'passed', { side, value: 5, next: sides[(n + 1) % 2], v: (v += 1) });
  }
  const list = page.getByTestId('move-list');
  await expect(list.getByTestId('move')).toHaveCount(16);
  await expect(list.getByTestId('move').first()).toHaveText('Black 5: no move');
  const at = () => list.evaluate((node) => ({ top: node.scrollTop, bottom: node.scrollHeight - node.clientHeight }));
  expect((await at()).top).toBeGreaterThanOrEqual((await at()).bottom - 1);
  await list.focus();
  await page.keyboard.press('Home');
  await expect.poll(async () => (await at()).top).toBe(0);
});
