// The /learn page as a newcomer uses it: every lesson completed by clicking (in English), the
// first and the last in Chinese and in Russian, a wrong answer explained without moving on,
// progress kept across a reload, the keyboard, and the 360-pixel layout. The right answers are
// worked out here from lessons/lessons.json and `senet legal` (the engine through the command
// line), never read from the page: the page must accept what the engine says.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../support/fixtures.js';
import { serverBinary } from '../support/server.js';

const repo = path.resolve(import.meta.dirname, '..', '..');
const SPECS = JSON.parse(readFileSync(path.join(repo, 'lessons', 'lessons.json'), 'utf8')).lessons;
const FIRST = SPECS[0];
const LAST = SPECS.at(-1);
const THROWS = [1, 2, 3, 4, 5];
const screenshots = process.env.SCREENSHOT_DIR ?? path.join(import.meta.dirname, '..', 'screenshots');

/** `senet legal <position> <throw>`: every legal move with the position after it. */
function legal(position, value) {
  return JSON.parse(execFileSync(serverBinary(), ['legal', position, String(value)], { encoding: 'utf8' }));
}

/** The lesson's throw: its value, or the marked sticks counted (four blank faces are 5). */
const throwOf = (spec) => spec.throw ?? (spec.sticks.filter(Boolean).length || 5);

/** Squares holding `letter` (B or W) in `after` but not in `before`. */
function arrived(before, after, letter) {
  const squares = [];
  for (let i = 0; i < 30; i += 1) if (after[i] === letter && before[i] !== letter) squares.push(i + 1);
  return squares;
}

/** The right answer as the clicks that give it: `{kind, picks}`; no picks means "no legal move". */
function answerOf(spec) {
  const { position, ask } = spec;
  const turn = position.at(-1);
  const mine = turn === 'b' ? 'B' : 'W';
  const theirs = turn === 'b' ? 'W' : 'B';
  if (ask === 'pieces') return { kind: 'pieces', picks: legal(position, throwOf(spec)).map((move) => move.from) };
  if (ask === 'bears_off') {
    return { kind: 'throws', picks: THROWS.filter((value) => legal(position, value).some((move) => move.to === 'off')) };
  }
  const [[question, piece]] = Object.entries(ask);
  if (question === 'again') {
    const again = (value) => legal(position, value).some((move) => move.from === piece && move.after.at(-1) === turn);
    return { kind: 'throws', picks: THROWS.filter(again) };
  }
  const kind = question === 'path' ? 'path' : 'square';
  const move = legal(position, throwOf(spec)).find((candidate) => candidate.from === piece);
  if (!move) return { kind, picks: [] };
  if (question === 'path') {
    const last = move.to === 'off' ? 30 : move.to;
    const squares = Array.from({ length: last - piece }, (_, i) => piece + 1 + i);
    return { kind, picks: move.to === 'off' ? [...squares, 'off'] : squares };
  }
  if (question === 'lands') {
    const landed = arrived(position, move.after, mine);
    return { kind, picks: landed.length ? landed : ['off'] };
  }
  return { kind, picks: arrived(position, move.after, theirs) };
}

/** Give `answer` by clicking, then check it. */
async function give(page, { kind, picks }) {
  const board = page.getByTestId('board');
  if (picks.length === 0 && kind !== 'throws') {
    await page.getByTestId('no-move').click();
    return;
  }
  for (const value of picks) {
    if (kind === 'pieces') await board.locator(`.piece[data-square="${value}"]`).click();
    else if (kind === 'throws') await page.locator(`[data-testid="throw-choice"][data-value="${value}"]`).click();
    else await board.locator(`.cell[data-square="${value}"]`).click();
  }
  await page.getByTestId('check').click();
}

/** The page's text tables for this page: strings.js merged with learn-strings.js. */
function tables(page) {
  return page.evaluate(async () => {
    const src = document.querySelector('script[type="module"]').src;
    const [main, learn] = await Promise.all([import(new URL('strings.js', src).href), import(new URL('learn-strings.js', src).href)]);
    const merged = {};
    for (const code of main.LANGUAGES) merged[code] = { ...main.STRINGS[code], ...learn.LEARN_STRINGS[code] };
    return { languages: main.LANGUAGES, strings: merged, learn: learn.LEARN_STRINGS };
  });
}

async function expectLesson(page, spec) {
  await expect(page.getByTestId('learn')).toHaveAttribute('data-state', 'lesson');
  await expect(page.getByTestId('lesson')).toHaveAttribute('data-lesson', spec.id);
}

/** Answer the open lesson right and check the page says so. */
async function solve(page, spec, strings) {
  await expectLesson(page, spec);
  const answer = answerOf(spec);
  await expect(page.getByTestId('lesson')).toHaveAttribute('data-kind', answer.kind);
  await give(page, answer);
  await expect(page.getByTestId('feedback')).toHaveAttribute('data-result', 'right');
  await expect(page.getByTestId('verdict')).toHaveText(strings['learn.right']);
  await expect(page.getByTestId('why')).toHaveText(strings[`lesson.${spec.id}.why`]);
  await expect(page.getByTestId('next')).toBeVisible();
  await expect(page.getByTestId('next')).toBeFocused();
}

/** Open a lesson from the list of lessons. */
async function openFromList(page, spec) {
  const nav = page.getByTestId('lesson-nav');
  if ((await nav.getAttribute('open')) === null) await page.getByTestId('lesson-summary').click();
  await page.locator(`[data-testid="lesson-list"] button[data-lesson="${spec.id}"]`).click();
  await expectLesson(page, spec);
}

test('every text exists in every language and states the same numbers', async ({ open }) => {
  const page = await open('/learn');
  const { languages, learn } = await tables(page);
  const keys = Object.keys(learn.en).sort();
  for (const language of languages) expect(Object.keys(learn[language]).sort(), language).toEqual(keys);
  const numbers = (text) => (text.match(/\d+/g) ?? []).map(Number).sort((a, b) => a - b);
  for (const spec of SPECS) {
    for (const field of ['title', 'setup', 'why']) {
      const key = `lesson.${spec.id}.${field}`;
      expect(learn.en[key], key).toBeTruthy();
      for (const language of languages) expect(numbers(learn[language][key]), `${language} ${key}`).toEqual(numbers(learn.en[key]));
    }
  }
});

test('a newcomer completes every lesson by clicking, and the progress is kept', async ({ open }) => {
  const page = await open('/');
  await page.getByTestId('learn-link').click();
  await page.waitForURL(/\/learn$/);
  const { strings } = await tables(page);
  const en = strings.en;
  await expectLesson(page, FIRST);
  await expect(page.getByTestId('lesson-summary')).toHaveText(`All lessons (0 of ${SPECS.length} done)`);
  for (const [index, spec] of SPECS.entries()) {
    await expect(page.getByTestId('lesson-count')).toHaveText(`Lesson ${index + 1} of ${SPECS.length}`);
    await expect(page.getByTestId('lesson-title')).toHaveText(en[`lesson.${spec.id}.title`]);
    await expect(page.getByTestId('lesson-setup')).toHaveText(en[`lesson.${spec.id}.setup`]);
    await solve(page, spec, en);
    await expect(page.getByTestId('next')).toHaveText(index + 1 < SPECS.length ? 'Next lesson' : 'Finish');
    await page.getByTestId('next').click();
    if (index + 1 < SPECS.length) await expect(page.getByTestId('lesson-title')).toBeFocused();
  }
  await expect(page.getByTestId('learn')).toHaveAttribute('data-state', 'finished');
  await expect(page.getByTestId('finished')).toBeVisible();
  await expect(page.getByTestId('lesson')).toBeHidden();

  await page.reload();
  await expect(page.getByTestId('learn')).toHaveAttribute('data-state', 'finished');
  await expect(page.getByTestId('lesson-summary')).toHaveText(`All lessons (${SPECS.length} of ${SPECS.length} done)`);
  await expect(page.locator('[data-testid="lesson-list"] button.done')).toHaveCount(SPECS.length);
  await page.getByTestId('restart').click();
  await expectLesson(page, FIRST);
  await expect(page.getByTestId('lesson-summary')).toHaveText(`All lessons (0 of ${SPECS.length} done)`);
});

test('a wrong answer shows the explanation and does not advance', async ({ open }) => {
  const page = await open('/learn');
  const en = (await tables(page)).strings.en;
  await expectLesson(page, FIRST);
  const right = answerOf(FIRST);
  expect(right.kind).toBe('path');

  // Checking with nothing chosen is not an answer.
  await page.getByTestId('check').click();
  await expect(page.getByTestId('feedback')).toHaveAttribute('data-result', 'empty');
  await expect(page.getByTestId('why')).toBeHidden();

  // The right squares in the wrong order.
  await give(page, { kind: 'path', picks: [...right.picks].reverse() });
  await expect(page.getByTestId('picked')).toHaveText(`Your answer: ${[...right.picks].reverse().join(' → ')}`);
  await expect(page.getByTestId('feedback')).toHaveAttribute('data-result', 'wrong');
  await expect(page.getByTestId('verdict')).toHaveText('Not quite — try again.');
  // The first wrong try gets a hint, not the answer (issue 52).
  await expect(page.getByTestId('why')).toHaveText(en['learn.hint.path']);
  await expect(page.getByTestId('next')).toBeHidden();
  await expectLesson(page, FIRST);

  // "No legal move" where the piece can move is wrong too: the second wrong try is explained.
  await page.getByTestId('no-move').click();
  await expect(page.getByTestId('feedback')).toHaveAttribute('data-result', 'wrong');
  await expect(page.getByTestId('why')).toHaveText(en[`lesson.${FIRST.id}.why`]);
  await expect(page.getByTestId('next')).toBeHidden();

  // Not counted as done: a reload opens the same lesson, nothing done.
  await page.reload();
  await expectLesson(page, FIRST);
  await expect(page.getByTestId('lesson-summary')).toHaveText(`All lessons (0 of ${SPECS.length} done)`);

  // The seed's worked position: choosing the piece on 24 (as if 24 + 3 reached 27) is wrong.
  const seed = SPECS.find((spec) => spec.position[23] === 'B' && spec.throw === 3 && spec.ask === 'pieces');
  await openFromList(page, seed);
  const movable = answerOf(seed).picks;
  expect(movable).not.toContain(24);
  await give(page, { kind: 'pieces', picks: [...movable, 24] });
  await expect(page.getByTestId('feedback')).toHaveAttribute('data-result', 'wrong');
  await expect(page.getByTestId('why')).toHaveText(en['learn.hint.pieces']);
  await expect(page.getByTestId('next')).toBeHidden();
  // Taking the wrong piece back gives the right answer.
  await page.getByTestId('board').locator('.piece[data-square="24"]').click();
  await page.getByTestId('check').click();
  await expect(page.getByTestId('feedback')).toHaveAttribute('data-result', 'right');
});

for (const { locale, language } of [
  { locale: 'zh-TW', language: 'zh-Hant' },
  { locale: 'ru-RU', language: 'ru' },
]) {
  test(`in ${language}: the first and the last lesson, with no English left`, async ({ open }) => {
    const page = await open('/learn', { locale });
    await expect(page.locator('html')).toHaveAttribute('lang', language);
    const { strings } = await tables(page);
    const texts = strings[language];
    const english = Object.values(strings.en)
      .filter((text) => typeof text === 'string')
      .map((text) => text.split('{')[0].trim())
      .filter((text) => text.split(' ').length >= 3);
    const leftovers = async () => {
      const visible = await page.evaluate(() => document.body.innerText);
      return english.filter((text) => visible.includes(text));
    };

    await expect(page.getByRole('heading', { level: 1 })).toHaveText(texts['learn.heading']);
    await expect(page.getByTestId('lesson-title')).toHaveText(texts[`lesson.${FIRST.id}.title`]);
    await expect(page.getByTestId('lesson-setup')).toHaveText(texts[`lesson.${FIRST.id}.setup`]);
    expect(await leftovers()).toEqual([]);
    await solve(page, FIRST, texts);
    expect(await leftovers()).toEqual([]);

    await openFromList(page, LAST);
    await expect(page.getByTestId('lesson-title')).toHaveText(texts[`lesson.${LAST.id}.title`]);
    await solve(page, LAST, texts);
    await expect(page.getByTestId('next')).toHaveText(texts['learn.finish']);
    expect(await leftovers()).toEqual([]);
    await page.getByTestId('next').click();
    await expect(page.getByTestId('finished')).toBeVisible();
    await expect(page.getByTestId('finished-heading')).toHaveText(texts['learn.finishedHeading']);
    await expect(page.getByTestId('lesson-summary')).toHaveText(texts['learn.listSummary'].replace('{done}', '2').replace('{total}', SPECS.length));
  });
}

test('played with the keyboard alone, with names for a screen reader', async ({ open }) => {
  const page = await open('/learn');
  await expectLesson(page, FIRST);
  const board = page.getByTestId('board');
  await expect(page.getByTestId('feedback')).toHaveAttribute('aria-live', 'polite');
  await expect(board.locator('.cell[data-square="10"]')).toHaveAttribute('role', 'button');
  await expect(board.locator('.cell[data-square="10"]')).toHaveAttribute('aria-label', 'Square 10');
  await expect(board.locator(`.cell[data-square="${FIRST.ask.path}"]`)).toHaveAttribute('aria-label', `Square ${FIRST.ask.path}: Black piece on ${FIRST.ask.path}`);

  // Tab from the language switch reaches the squares; Enter and Space pick them.
  const { picks } = answerOf(FIRST);
  for (const [i, square] of picks.entries()) {
    const cell = board.locator(`.cell[data-square="${square}"]`);
    await cell.focus();
    await page.keyboard.press(i % 2 ? ' ' : 'Enter');
    await expect(cell).toHaveAttribute('aria-label', `Square ${square} (your choice number ${i + 1})`);
  }
  await page.getByTestId('check').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('feedback')).toHaveAttribute('data-result', 'right');
  await expect(page.getByTestId('next')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('lesson-title')).toBeFocused();

  // A lesson about pieces: the learner's pieces are toggle buttons, white's are not.
  const pieces = SPECS.find((spec) => spec.ask === 'pieces' && answerOf(spec).picks.length > 0);
  await openFromList(page, pieces);
  const mine = board.locator('.piece[data-side="black"]');
  await expect(mine.first()).toHaveAttribute('role', 'button');
  await expect(board.locator('.piece[data-side="white"]').first()).toHaveAttribute('role', 'img');
  for (const square of answerOf(pieces).picks) {
    const piece = board.locator(`.piece[data-square="${square}"]`);
    await piece.focus();
    await page.keyboard.press(' ');
    await expect(piece).toHaveAttribute('aria-pressed', 'true');
  }
  await page.getByTestId('check').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('feedback')).toHaveAttribute('data-result', 'right');

  // A lesson about throws: five toggle buttons.
  const throws = SPECS.find((spec) => answerOf(spec).kind === 'throws');
  await openFromList(page, throws);
  const choice = page.locator('[data-testid="throw-choice"][data-value="4"]');
  await expect(page.getByTestId('throw-choice')).toHaveCount(5);
  await choice.focus();
  await page.keyboard.press('Enter');
  await expect(choice).toHaveAttribute('aria-pressed', 'true');
  await expect(choice).toHaveAttribute('aria-label', 'Throw 4');
});

test('the sticks of the blank-faces lesson do not give the value away', async ({ open }) => {
  const page = await open('/learn');
  const blank = SPECS.find((spec) => spec.sticks);
  await openFromList(page, blank);
  await expect(page.getByTestId('stick')).toHaveCount(4);
  await expect(page.locator('[data-testid="stick"][data-marked="false"]')).toHaveCount(4);
  await expect(page.getByTestId('sticks')).toHaveAttribute('aria-label', 'Sticks: blank, blank, blank, blank.');
  await expect(page.getByTestId('throw-value')).toHaveText('Read the value from the sticks yourself.');
  await give(page, answerOf(blank));
  await expect(page.getByTestId('throw-value')).toHaveText(`Thrown: ${throwOf(blank)}`);
});

test('the room page links to the lessons', async ({ open }) => {
  const page = await open('/');
  await page.getByTestId('create-local').click();
  await page.waitForURL(/\/r\/[^/]+$/);
  await expect(page.getByTestId('learn-link')).toHaveAttribute('href', '/learn');
});

test('at 360 px: nothing overflows, and a lesson is answered by tapping', async ({ open }) => {
  mkdirSync(screenshots, { recursive: true });
  const page = await open('/learn', { viewport: { width: 360, height: 740 }, hasTouch: true });
  await expectLesson(page, FIRST);
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(await overflow()).toBeLessThanOrEqual(0);
  const { picks } = answerOf(FIRST);
  for (const square of picks) await page.getByTestId('board').locator(`.cell[data-square="${square}"]`).tap();
  await page.getByTestId('check').tap();
  await expect(page.getByTestId('feedback')).toHaveAttribute('data-result', 'right');
  expect(await overflow()).toBeLessThanOrEqual(0);
  await page.screenshot({ path: path.join(screenshots, 'learn-360.png'), fullPage: true });
  await page.getByTestId('lesson-summary').tap();
  expect(await overflow()).toBeLessThanOrEqual(0);
});

test('the board is one tab stop: arrow keys move along the track, Home and End to its ends', async ({ open }) => {
  const page = await open('/learn');
  await expectLesson(page, FIRST);
  const board = page.getByTestId('board');
  await expect(board.locator('[tabindex="0"]')).toHaveCount(1);
  await board.locator('[tabindex="0"]').focus();
  await expect(board.locator('.cell[data-square="1"]')).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(board.locator('.cell[data-square="2"]')).toBeFocused();
  // The last choice is the way off the board, after 30.
  await page.keyboard.press('End');
  await expect(board.locator('.cell[data-square="off"]')).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(board.locator('.cell[data-square="30"]')).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(board.locator('.cell[data-square="29"]')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(board.locator('.cell[data-square="29"]')).toHaveAttribute('aria-label', /\(your choice number 1\)$/);
  await expect(board.locator('[tabindex="0"]')).toHaveCount(1);
  await page.keyboard.press('Home');
  await expect(board.locator('.cell[data-square="1"]')).toBeFocused();
  // Tab leaves the board at once, not after thirty squares.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement.closest('[data-testid="board"]'))).toBeNull();
});
