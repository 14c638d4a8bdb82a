// Issue 52, "a board people love to play on": anonymous players named in words (never "null"),
// the upright phone board with 44-px targets, and the small things that made the site feel
// unfinished.
import { test, expect } from '../support/fixtures.js';
import { boardOf, roomInfo, settle, startOnlineGame, joinByLink } from '../support/game.js';
import { expectNoViolations } from '../support/a11y.js';

const LANGUAGES = [
  { locale: 'en-US', anonymous: 'anonymous' },
  { locale: 'zh-TW', anonymous: '匿名' },
  { locale: 'ru-RU', anonymous: 'аноним' },
];

for (const { locale, anonymous } of LANGUAGES) {
  test(`in ${locale} an anonymous player is "${anonymous}" to players and spectators, and the computer has no name`, async ({ open }) => {
    const context = { locale };
    const creator = await open('/', context);
    await creator.getByTestId('create-online').click();
    await creator.waitForURL(/\/r\/[^/]+$/);
    const friend = await joinByLink(open, creator.url(), context);
    const spectator = await open(creator.url(), context);
    for (const page of [creator, friend, spectator]) {
      await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
      for (const side of ['black', 'white']) {
        await expect(page.getByTestId(`name-${side}`)).toHaveText(anonymous);
        await expect(page.getByTestId(`player-${side}`)).not.toContainText('null');
      }
    }

    const player = await open('/', context);
    await player.getByTestId('ai-form').locator('input[value="white"]').check();
    await player.getByTestId('create-ai').click();
    await player.waitForURL(/\/r\/[^/]+$/);
    await expect(player.getByTestId('computer-black')).toBeVisible();
    await expect(player.getByTestId('name-white')).toHaveText(anonymous);
    await expect(player.getByTestId('name-black')).toBeHidden();
    for (const side of ['black', 'white']) await expect(player.getByTestId(`player-${side}`)).not.toContainText('null');
  });
}

/**
 * Every tappable thing on the page smaller than 44×44 px (WCAG 2.5.5): buttons, pieces, links
 * styled as buttons, selects, the toggles' labels (a checkbox is tapped through its label), and
 * the board's squares.
 */
function smallTargets(page) {
  return page.evaluate(() => {
    const small = [];
    const targets = document.querySelectorAll('button, [role="button"], a.button, select, summary, input[type="checkbox"], input[type="radio"], main.room [data-testid="board"] .cell rect');
    for (const node of targets) {
      if (node.closest('[hidden], dialog:not([open])') || (node.matches('input') && !node.checkVisibility())) continue;
      const target = node.matches('input') ? (node.closest('label') ?? node) : node;
      const box = target.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.width < 43.95 || box.height < 43.95) {
        const name = node.dataset?.testid ?? node.closest('[data-testid]')?.dataset.testid ?? node.tagName;
        small.push(`${name} "${(target.textContent ?? '').trim().slice(0, 20)}": ${box.width.toFixed(0)}×${box.height.toFixed(0)}`);
      }
    }
    return small;
  });
}

for (const { locale } of LANGUAGES) {
  test(`at 360×740 in ${locale} the board stands upright and every piece, square and button is at least 44×44 px`, async ({ open }) => {
    const phone = { viewport: { width: 360, height: 740 }, locale, reducedMotion: 'reduce' };
    const creator = await open('/', phone);
    expect(await smallTargets(creator), 'home').toEqual([]);
    await creator.getByTestId('create-online').click();
    await creator.waitForURL(/\/r\/[^/]+$/);
    const friend = await joinByLink(open, creator.url(), phone);
    const pages = [creator, friend];
    for (const page of pages) await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
    await expect(creator.getByTestId('board')).toHaveAttribute('data-layout', 'upright');
    // Ten rows of three: square 1 above square 10, square 11 right of 10, square 21 top right.
    const squareBox = (n) => creator.locator(`[data-testid="board"] .cell[data-square="${n}"] rect`).boundingBox();
    const [one, ten, eleven, twentyOne] = await Promise.all([1, 10, 11, 21].map(squareBox));
    expect(ten.y).toBeGreaterThan(one.y + 8 * one.height);
    expect(Math.abs(ten.x - one.x)).toBeLessThan(1);
    expect(eleven.x).toBeGreaterThan(ten.x + ten.width / 2);
    expect(Math.abs(eleven.y - ten.y)).toBeLessThan(1);
    expect(Math.abs(twentyOne.y - one.y)).toBeLessThan(1);
    // The text command box is closed, out of the way, and not between the board and Resign.
    await expect(creator.getByTestId('command')).toBeHidden();

    const turn = await creator.getByTestId('room').getAttribute('data-turn');
    const seat = await creator.getByTestId('room').getAttribute('data-seat');
    const actor = turn === seat ? creator : friend;
    await expect(actor.getByTestId('throw')).toBeVisible();
    for (const page of pages) expect(await smallTargets(page), 'a room before the throw').toEqual([]);
    const { v } = await roomInfo(actor);
    await actor.getByTestId('throw').click();
    await settle(pages, Number(v) + 1);
    if ((await roomInfo(actor)).phase === 'move') await expect(actor.locator('.piece.movable').first()).toBeVisible();
    for (const page of pages) expect(await smallTargets(page), 'a room after the throw').toEqual([]);
    const play = await open('/play', phone);
    expect(await smallTargets(play), '/play').toEqual([]);
  });
}

test('an unknown address and /p/ get our 404 page with a way home, in the page language', async ({ open, server }) => {
  for (const [path, locale, heading] of [
    ['/nowhere/at/all', 'en-US', 'Page not found'],
    ['/p/', 'zh-TW', '找不到頁面'],
    ['/r/', 'ru-RU', 'Страница не найдена'],
  ]) {
    const page = await open('/settings', { locale, allowNetworkErrors: true });
    const response = await page.goto(new URL(path, server.url).href);
    expect(response.status(), path).toBe(404);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(heading);
    await page.getByTestId('not-found-home').click();
    await expect(page).toHaveURL(`${server.url}/`);
    await expectNoViolations(page, `404 ${path}`);
  }
  const api = await (await open('/')).request.get(`${server.url}/api/nothing`);
  expect(api.status()).toBe(404);
  expect(await api.text()).toBe('not found');
});

test('a missing room shows no greyed board but the way to the lobby', async ({ open }) => {
  const page = await open('/r/00000000000000000000000000000000', { allowNetworkErrors: true });
  await expect(page.getByTestId('problem')).toHaveText(/This room does not exist/);
  await expect(page.getByTestId('board')).toBeHidden();
  await page.getByTestId('back-to-lobby').click();
  await expect(page).toHaveURL(/\/play$/);
});

test('small things: the Chinese /play title, no "0 people watching" against the computer, no Mute for an empty seat, no box round the end title', async ({ open }) => {
  const chinese = await open('/play', { locale: 'zh-TW' });
  await expect(chinese).toHaveTitle('塞尼特 — 尋找對手');

  const player = await open('/');
  await player.getByTestId('create-ai').click();
  await player.waitForURL(/\/r\/[^/]+$/);
  await expect(player.getByTestId('room')).toHaveAttribute('data-phase', /roll|move/);
  await expect(player.getByTestId('watchers')).toHaveText('');
  await expect(player.getByTestId('watchers')).toBeHidden();

  // Waiting for the second player, the creator has nobody to mute; once they come, Mute is offered.
  const creator = await open('/');
  await creator.getByTestId('online-form').locator('input[value="black"]').check();
  await creator.getByTestId('create-online').click();
  await creator.waitForURL(/\/r\/[^/]+$/);
  await expect(creator.getByTestId('invite')).toBeVisible();
  await expect(creator.getByTestId('chat')).toBeVisible();
  await expect(creator.getByTestId('chat-mute')).toBeHidden();
  const friend = await joinByLink(open, creator.url());
  await expect(creator.getByTestId('chat-mute')).toHaveText('Mute White for this game');

  // A spectator sees the end card's title focused without a box drawn round it.
  const spectator = await open(creator.url());
  await expect(spectator.getByTestId('seat')).toHaveText('You are watching this game.');
  await friend.getByTestId('resign').click();
  await friend.getByTestId('confirm-yes').click();
  const title = spectator.getByTestId('end-title');
  await expect(title).toBeFocused();
  expect(await title.evaluate((node) => getComputedStyle(node).outlineStyle)).toBe('none');
});

test('a draw offer arrives as a banner above the board with Accept and Decline; the end card sums up', async ({ open }) => {
  const game = await startOnlineGame(open);
  await game.black.getByTestId('offer-draw').click();
  const banner = game.white.getByTestId('draw-banner');
  await expect(banner).toBeVisible();
  await expect(banner).toHaveAttribute('data-incoming', 'true');
  await expect(banner.getByTestId('draw-status')).toHaveText('Black offers a draw.');
  // Above the board, with both answers in it.
  const [bannerBox, boardBox] = await Promise.all([banner.boundingBox(), game.white.getByTestId('board').boundingBox()]);
  expect(bannerBox.y + bannerBox.height).toBeLessThanOrEqual(boardBox.y + 1);
  await expect(banner.getByTestId('accept-draw')).toBeVisible();
  await expect(banner.getByTestId('decline-draw')).toBeVisible();
  // The one who offered reads a quiet line.
  await expect(game.black.getByTestId('draw-banner')).toHaveAttribute('data-incoming', 'false');
  await expectNoViolations(game.white, 'a draw offer banner');

  await banner.getByTestId('accept-draw').click();
  for (const page of [game.black, game.white]) {
    await expect(page.getByTestId('end')).toBeVisible();
    await expect(page.getByTestId('draw-banner')).toBeHidden();
    await expect(page.getByTestId('end-length')).toHaveText('0 moves played.');
    await expect(page.getByTestId('end-analysis')).toHaveAttribute('href', '#after-heading');
    await expect(page.getByTestId('rematch')).toBeVisible();
  }
});

test('one palette for every page: a dark theme follows the system, and axe finds nothing in it', async ({ open }) => {
  const dark = { colorScheme: 'dark', reducedMotion: 'reduce' };
  const background = (page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  for (const path of ['/', '/play', '/nowhere']) {
    const page = await open(path, { ...dark, allowNetworkErrors: true });
    await page.waitForLoadState('networkidle');
    expect(await background(page), path).toBe('rgb(27, 23, 18)');
    await expectNoViolations(page, `${path} in the dark`);
  }
  const player = await open('/', dark);
  await player.getByTestId('create-ai').click();
  await player.waitForURL(/\/r\/[^/]+$/);
  await expect(player.getByTestId('room')).toHaveAttribute('data-phase', /roll|move/);
  expect(await background(player)).toBe('rgb(27, 23, 18)');
  await expectNoViolations(player, 'a room in the dark');
  const light = await open('/');
  expect(await background(light)).toBe('rgb(246, 240, 227)');
});

for (const { locale } of LANGUAGES) {
  test(`at 360 px in ${locale} the first action is on the first screen: the computer one tap away, the lobby beside it`, async ({ open }) => {
    const home = await open('/', { locale, viewport: { width: 360, height: 740 } });
    const playNow = home.getByTestId('play-now');
    const box = await playNow.boundingBox();
    expect(box.y + box.height).toBeLessThanOrEqual(740);
    const lobby = await home.getByTestId('play-link').boundingBox();
    expect(lobby.y + lobby.height).toBeLessThanOrEqual(740);
    await playNow.click();
    await home.waitForURL(/\/r\/[^/]+$/);
    await expect(home.getByTestId('room')).toHaveAttribute('data-mode', 'ai');
    await expect(home.getByTestId('room')).toHaveAttribute('data-phase', /roll|move/);
  });
}

/**
 * The piece a same-screen game moves to hear every sound soon: into the water while it is
 * unheard, then bearing off, then a swap while unheard, else the most advanced piece that is
 * not waiting on 26 for a 1. Returns the piece and the sound its move must make, read from the
 * board (the page itself chooses by the server's `effect`).
 */
async function nextPiece(page, heard) {
  const { position } = await boardOf(page);
  const moves = [];
  for (const piece of await page.locator('[data-testid="board"] .piece.movable').all()) {
    const from = Number(await piece.getAttribute('data-square'));
    const to = await piece.getAttribute('data-to');
    const side = (await piece.getAttribute('data-side')) === 'black' ? 'B' : 'W';
    const onTo = to === 'off' ? '.' : position[Number(to) - 1];
    const sound = to === '27' ? 'water' : to === 'off' ? 'off' : onTo !== '.' && onTo !== side ? 'swap' : 'move';
    moves.push({ piece, from, sound });
  }
  const wanted = (sound) => moves.find((move) => move.sound === sound && (sound === 'off' || !heard.has(sound)));
  const advanced = [...moves].sort((a, b) => b.from - a.from);
  const waiting = heard.has('water') ? [] : advanced.filter((move) => move.from !== 26);
  return wanted('water') ?? wanted('off') ?? wanted('swap') ?? waiting[0] ?? advanced[0];
}

/** Do `action` and return the sound the page played for it (null after `quiet` ms of none). */
async function soundAfter(page, action, quiet = 0) {
  const room = page.getByTestId('room');
  const count = Number((await room.getAttribute('data-sounds')) ?? 0);
  const { v } = await roomInfo(page);
  await action();
  await settle([page], Number(v) + 1);
  if (quiet) {
    await page.waitForTimeout(quiet);
    expect(Number((await room.getAttribute('data-sounds')) ?? 0)).toBe(count);
    return null;
  }
  await expect(room).toHaveAttribute('data-sounds', String(count + 1));
  return room.getAttribute('data-sound');
}

test('sounds: a throw, a move, a swap, the water and bearing off each play their own, and the switch silences them', async ({ open }) => {
  const page = await open('/', { reducedMotion: 'reduce' });
  await page.getByTestId('create-local').click();
  await page.waitForURL(/\/r\/[^/]+$/);
  await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
  // The files are ours, served by the binary as WAV under the versioned assets.
  const files = await page.evaluate(async () => {
    const base = document.querySelector('script[type="module"]')?.getAttribute('src')?.replace(/js\/[^/]+$/, '') ?? '';
    return Promise.all(['throw', 'move', 'swap', 'water', 'off'].map(async (name) => {
      const response = await fetch(`${base}sounds/${name}.wav`);
      return { name, type: response.headers.get('content-type'), size: (await response.arrayBuffer()).byteLength };
    }));
  });
  for (const file of files) {
    expect(file.type, file.name).toBe('audio/wav');
    expect(file.size, file.name).toBeLessThan(12_000);
  }
  const heard = new Set();
  for (let actions = 0; heard.size < 5; actions += 1) {
    expect(actions, `heard only ${[...heard]}`).toBeLessThan(1500);
    const { phase } = await roomInfo(page);
    if (phase === 'over') {
      const oldUrl = page.url();
      await page.getByTestId('rematch').click();
      await page.waitForURL((url) => url.href !== oldUrl);
      await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
      continue;
    }
    if (phase === 'roll') {
      expect(await soundAfter(page, () => page.getByTestId('throw').click())).toBe('throw');
      heard.add('throw');
    } else {
      const { piece, sound } = await nextPiece(page, heard);
      expect(await soundAfter(page, () => piece.click()), `a move meant to ${sound}`).toBe(sound);
      heard.add(sound);
    }
  }
  // Switched off: a throw and whatever follows play nothing; switched on again, they do.
  await page.getByTestId('sound').uncheck();
  for (let actions = 0; actions < 4 && (await roomInfo(page)).phase !== 'over'; actions += 1) {
    const { phase } = await roomInfo(page);
    const act = phase === 'roll' ? () => page.getByTestId('throw').click() : async () => (await nextPiece(page, heard)).piece.click();
    await soundAfter(page, act, 300);
  }
  await page.getByTestId('sound').check();
  if ((await roomInfo(page)).phase === 'roll') expect(await soundAfter(page, () => page.getByTestId('throw').click())).toBe('throw');
});

test('home shows how many are in games or the lobby and how many game rooms are in use, in three languages', async ({ open, serve }) => {
  const server = await serve();
  const home = await open(new URL('/', server.url).href);
  const counts = home.getByTestId('counts');
  await expect(counts).toHaveText('0 people in games or the lobby · 0 game rooms in use');
  // Not a live region: a screen reader is not interrupted by every new figure.
  await expect(counts).not.toHaveAttribute('aria-live', /./);
  const creator = await open(new URL('/', server.url).href);
  await creator.getByTestId('create-online').click();
  await creator.waitForURL(/\/r\/[^/]+$/);
  const friend = await joinByLink(open, creator.url());
  await expect(friend.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
  // The server answers one reading for two seconds; the page reads again when shown.
  await expect(async () => {
    await home.reload();
    await expect(counts).toHaveAttribute('data-online', '2', { timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  await expect(counts).toHaveText('2 people in games or the lobby · 1 game room in use');
  await home.getByTestId('language').selectOption('zh-Hant');
  await expect(counts).toHaveText('2 人在對局或大廳中 · 1 間對局房間使用中');
  await home.getByTestId('language').selectOption('ru');
  await expect(counts).toHaveText('В партиях и в лобби: 2 · занято игровых комнат: 1');
  await expectNoViolations(home, 'home with the counts');
});
