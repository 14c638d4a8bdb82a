// Playing as a blind player does: a whole game against the computer typed into the command field
// (`t` throws, `m` lists the moves, a square number moves), reading nothing but what the page's
// live regions say: the announcement log and the command's answer. Every throw of ours, every
// move of the computer's and the result must have been said, once, checked against the server's
// record of the game.
import { test, expect } from '../support/fixtures.js';
import { startComputerGame } from '../support/game.js';

/** Every entry the log region gets, kept in order as it is added (the region keeps only the last few). */
function listen(page) {
  return page.evaluate(() => {
    window.heard = [];
    const log = document.querySelector('[data-testid="announcements"]');
    for (const entry of log.children) window.heard.push(entry.textContent);
    new MutationObserver((changes) => {
      for (const change of changes) for (const node of change.addedNodes) window.heard.push(node.textContent);
    }).observe(log, { childList: true });
  });
}

/** The sentences said after the first `from`, once there is at least one. */
async function heardAfter(page, from) {
  await expect.poll(() => page.evaluate(() => window.heard.length), { timeout: 20_000, intervals: [20, 50, 100] }).toBeGreaterThan(from);
  return page.evaluate((from) => window.heard.slice(from), from);
}

/** Type a command and press Enter, as a person in the field does. */
async function type(page, text) {
  await page.getByTestId('command').fill(text);
  await page.getByTestId('command').press('Enter');
}

const MY_THROW = 'Your turn: throw the sticks.';

test('a whole game against the computer by text commands, reading only the live regions', async ({ open, serve }) => {
  const { server, page } = await startComputerGame(open, serve);
  const room = page.url().split('/r/')[1];
  await listen(page);
  // Commands answer "Connecting…" until the socket is open (slow on a loaded machine).
  await expect(page.getByTestId('room')).toHaveAttribute('data-connection', 'open');
  // The command box is closed out of the way; "/" opens it with the cursor in the field.
  await expect(page.getByTestId('command')).toBeHidden();
  await page.locator('body').press('/');
  await expect(page.getByTestId('command')).toBeFocused();

  // The help and the board are read on demand.
  await type(page, 'h');
  await expect(page.getByTestId('command-answer')).toHaveText(/^Commands: t throws; a square number moves/);
  await type(page, 'b');
  await expect(page.getByTestId('command-answer')).toHaveText(/^Squares 1 to 10: .*Squares 11 to 20, right to left: .*Borne off: black 0, white 0\.$/);
  await type(page, 'c');
  await expect(page.getByTestId('command-answer')).toHaveText('This game is untimed.');

  let read = 0;
  let myThrows = 0;
  for (let step = 0; step < 3000; step += 1) {
    const news = await heardAfter(page, read);
    read += news.length;
    const last = news[news.length - 1];
    if (/^You (won|lost)/.test(last) || /^Neither side lost/.test(last)) break;
    if (!last.endsWith(MY_THROW)) continue;
    // Our turn to throw: `t`, then the throw is announced.
    await type(page, 't');
    const [thrown] = await heardAfter(page, read);
    read += 1;
    const match = /^You threw ([1-5])(\.|: throw again after the move\.|: no piece can move\.)$/.exec(thrown);
    expect(match, `the announcement of our throw, got "${thrown}"`).not.toBeNull();
    myThrows += 1;
    if (match[2] === ': no piece can move.') continue;
    // `m` lists the moves for this throw; the first one is played by its square number.
    await type(page, 'm');
    const answer = page.getByTestId('command-answer');
    await expect(answer).toHaveText(new RegExp(`^With ${match[1]}: \\d+ → `));
    const from = /^With \d: (\d+) → /.exec(await answer.textContent())[1];
    await type(page, from);
    const [moved] = await heardAfter(page, read);
    read += 1;
    expect(moved).toMatch(new RegExp(`^You (moved ${from} → |moved ${from} into the water|bore off from ${from}\\.)`));
    // Our own move ends with whose turn it is; the computer's next sentences follow.
    if (moved.endsWith(MY_THROW)) read -= 1; // an extra throw: handled by the next round
  }
  const heard = await page.evaluate(() => window.heard);
  const result = heard[heard.length - 1];
  expect(result).toMatch(/^You (won!|lost\.) All five pieces borne off\.$/);
  await expect(page.getByTestId('end-title')).toBeFocused();

  // Against the record: each of our throws and each of the computer's throws and moves was said.
  const record = await (await page.request.get(new URL(`/api/rooms/${room}/record`, server.url).href)).json();
  const events = record.events;
  const whiteThrows = events.filter((e) => e.t === 'rolled' && e.d.side === 'white');
  expect(whiteThrows.length).toBe(myThrows);
  expect(heard.filter((s) => /^You threw /.test(s)).length).toBe(whiteThrows.length);
  const blackThrows = events.filter((e) => e.t === 'rolled' && e.d.side === 'black');
  expect(heard.filter((s) => /^Black threw /.test(s)).map((s) => Number(/threw (\d)/.exec(s)[1]))).toEqual(blackThrows.map((e) => e.d.value));
  const blackMoves = events.filter((e) => e.t === 'moved' && e.d.side === 'black');
  const spokenBlackMoves = heard.filter((s) => /^Black (moved|bore off)/.test(s));
  expect(spokenBlackMoves.map((s) => Number(/(\d+)/.exec(s)[1]))).toEqual(blackMoves.map((e) => e.d.from));
  for (const [i, move] of blackMoves.entries()) {
    const said = spokenBlackMoves[i];
    if (move.d.effect === 'off') expect(said).toMatch(`Black bore off from ${move.d.from}.`);
    else if (move.d.effect === 'water') expect(said).toMatch(`Black moved ${move.d.from} into the water: back to ${move.d.rest}.`);
    else if (move.d.effect === 'swap') expect(said).toMatch(`Black moved ${move.d.from} → ${move.d.to} and swapped your piece back to ${move.d.swapped}.`);
    else expect(said).toMatch(`Black moved ${move.d.from} → ${move.d.to}.`);
  }
  // The result is said once.
  expect(heard.filter((s) => /^You (won|lost)/.test(s))).toHaveLength(1);
});

test('the commands answer in Chinese and Russian with their own letters', async ({ open }) => {
  for (const [locale, letters, help] of [
    ['zh-TW', ['助', '盤'], /^指令：/],
    ['ru-RU', ['с', 'д'], /^Команды:/],
  ]) {
    const page = await open('/', { locale });
    await page.getByTestId('create-local').click();
    await page.waitForURL(/\/r\/[^/]+$/);
    await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
    await page.getByTestId('command-toggle').click();
    await type(page, letters[0]);
    await expect(page.getByTestId('command-answer')).toHaveText(help);
    await type(page, letters[1]);
    await expect(page.getByTestId('command-answer')).toHaveText(locale === 'ru-RU' ? /^Поля 1–10: 1 белые, 2 чёрные/ : /^第 1 至 10 格：1 白方, 2 黑方/);
    // The Latin letter works in every language: `t` throws, and the throw is announced.
    await type(page, 't');
    await expect(page.getByTestId('announcements').locator('p').last()).toHaveText(locale === 'ru-RU' ? /^Чёрные: бросок [1-5]/ : /^黑方擲出 [1-5]/);
  }
});
