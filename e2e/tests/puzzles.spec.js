// The /puzzles page (issue 49) as a solver uses it: in English a puzzle solved right by clicking
// the piece on the board, in Chinese one answered wrong by the keyboard (the text command box),
// in Russian at 360 px with every target at least 44 px; each time every move's chance and the
// theme's explanation shown, the result announced, and axe finding nothing. The answers are read
// here from puzzles/shipped.jsonl (the page itself is never sent them before the answer). Then a
// mistake of one's own finished game, offered under its analysis, is solved on the same page.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../support/fixtures.js';
import { expectNoViolations } from '../support/a11y.js';
import { playOn } from '../support/game.js';

const repo = path.resolve(import.meta.dirname, '..', '..');
const SET = new Map(
  readFileSync(path.join(repo, 'puzzles', 'shipped.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line))
    .map((puzzle) => [puzzle.id, puzzle]),
);
const screenshots = process.env.SCREENSHOT_DIR ?? path.join(import.meta.dirname, '..', 'screenshots');

/** The puzzle the page shows, from the shipped set. */
async function shownPuzzle(page) {
  await expect(page.getByTestId('puzzles')).toHaveAttribute('data-state', 'question');
  const id = await page.getByTestId('puzzle').getAttribute('data-puzzle');
  const puzzle = SET.get(id ?? '');
  expect(puzzle, `puzzle ${id} is shipped`).toBeTruthy();
  return puzzle;
}

/** The page's question holds no answer: no chance, best move or theme anywhere in it. */
async function expectNoAnswerShown(page) {
  await expect(page.getByTestId('chances')).toBeHidden();
  await expect(page.getByTestId('verdict')).toHaveText('');
  await expect(page.getByTestId('explanation')).toHaveText('');
}

/** After the answer: the chances table has every move, best first, marked exact or estimated. */
async function expectChances(page, puzzle) {
  await expect(page.getByTestId('puzzles')).toHaveAttribute('data-state', 'answered');
  const rows = page.getByTestId('chance-row');
  await expect(rows).toHaveCount(puzzle.moves.length);
  await expect(rows.first()).toHaveAttribute('data-from', String(puzzle.best));
  await expect(page.getByTestId('chances')).toHaveAttribute('data-exact', String(puzzle.exact));
  const best = puzzle.moves.find(([from]) => from === puzzle.best)[1];
  // In the page's language: "48.6%", "48,6 %".
  const shown = async () => (await rows.first().getByTestId('chance').textContent())?.replace(',', '.');
  await expect.poll(shown).toContain((best * 100).toFixed(1));
}

/** Every button, select and summary in the page's main part smaller than 44×44 px. */
function smallControls(page) {
  return page.locator('main').evaluate((main) =>
    [...main.querySelectorAll('button, select, summary, a.button, [role="button"]')]
      .filter((node) => !node.closest('[hidden]'))
      .map((node) => ({ node, box: node.getBoundingClientRect() }))
      .filter(({ box }) => box.width > 0 && (box.width < 43.95 || box.height < 43.95))
      .map(({ node, box }) => `${node.getAttribute('data-testid') ?? node.tagName} ${box.width.toFixed(0)}×${box.height.toFixed(0)}`),
  );
}

test('in English the daily puzzle is solved by clicking the best piece; chances and explanation follow', async ({ open }) => {
  const page = await open('/puzzles', { reducedMotion: 'reduce', colorScheme: 'dark' });
  const puzzle = await shownPuzzle(page);
  await expect(page.getByTestId('puzzle-title')).toHaveText('Daily puzzle');
  await expect(page.getByTestId('puzzle-task')).toContainText(`threw ${puzzle.throw}`);
  await expect(page.getByTestId('move-choice')).toHaveCount(puzzle.moves.length);
  await expect(page.locator('nav.site-nav a[aria-current="page"]')).toHaveText('Puzzles');
  await expectNoAnswerShown(page);
  await expectNoViolations(page, '/puzzles, a question (dark)');
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: path.join(screenshots, 'puzzles-1280-en-question.png'), fullPage: true });

  await page.locator(`[data-testid="board"] .piece.movable[data-square="${puzzle.best}"]`).click();
  await expectChances(page, puzzle);
  await expect(page.getByTestId('verdict')).toHaveText(/^Right! /);
  // The board shows the best move as an arrow.
  await expect(page.getByTestId('note-best')).toHaveAttribute('data-from', String(puzzle.best));
  await expect(page.getByTestId('note-played')).toHaveCount(0);
  await expect(page.getByTestId('explanation')).not.toHaveText('');
  await expect(page.getByTestId('rating-change')).toContainText('first try');
  await expect(page.getByTestId('said').last()).toContainText('Right!');
  await expect(page.getByTestId('next')).toBeFocused();
  await expectNoViolations(page, '/puzzles, answered (dark)');
  await page.screenshot({ path: path.join(screenshots, 'puzzles-1280-en-answered.png'), fullPage: true });

  // "Next puzzle" hands out another one, again without its answer.
  await page.getByTestId('next').click();
  const next = await shownPuzzle(page);
  expect(next.id).not.toBe(puzzle.id);
  await expect(page.getByTestId('puzzle-title')).toBeFocused();
  await expectNoAnswerShown(page);

  // An unknown puzzle: said plainly, with the ways on still there.
  const unknown = await open('/puzzles?id=0000000000', { allowNetworkErrors: true });
  await expect(unknown.getByTestId('puzzles-error')).toHaveText('There is no such puzzle. Choose the daily puzzle or a theme.');
  await expect(unknown.getByTestId('puzzles')).toHaveAttribute('data-state', 'error');
  await expect(unknown.getByTestId('daily')).toBeEnabled();
  await expectNoViolations(unknown, '/puzzles, an unknown puzzle');
});

test('in Chinese a swap puzzle answered wrong by the keyboard is explained in Chinese', async ({ open }) => {
  const page = await open('/puzzles?theme=swap', { locale: 'zh-TW', reducedMotion: 'reduce' });
  const puzzle = await shownPuzzle(page);
  expect(puzzle.theme).toBe('swap');
  await expect(page.getByTestId('theme')).toHaveValue('swap');
  const wrong = puzzle.moves.map(([from]) => from).find((from) => from !== puzzle.best);
  // The text commands, opened with "/": "m" lists the moves, a square number answers.
  await page.getByTestId('puzzle-title').press('/');
  await expect(page.getByTestId('command')).toBeFocused();
  await page.keyboard.type('m');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('command-answer')).toContainText(`${puzzle.best} →`);
  await page.keyboard.type(String(wrong));
  await page.keyboard.press('Enter');
  await expectChances(page, puzzle);
  await expect(page.getByTestId('verdict')).toContainText('不是最佳的一步');
  await expect(page.getByTestId('note-played')).toHaveAttribute('data-from', String(wrong));
  await expect(page.getByTestId('explanation')).toContainText('交換：');
  await expect(page.getByTestId('said').last()).toContainText('不是最佳的一步');
  await expect(page.locator(`[data-testid="chance-row"][data-from="${wrong}"]`)).toContainText('你的選擇');
  await expect(page.getByTestId('chances')).toContainText(puzzle.exact ? '（精確）' : '（估計）');
  await expectNoViolations(page, '/puzzles in Chinese, answered');
  await page.screenshot({ path: path.join(screenshots, 'puzzles-1280-zh-answered.png'), fullPage: true });
  // Switching the language redraws the verdict and the explanation in it.
  await page.getByTestId('language').selectOption('en');
  await expect(page.getByTestId('verdict')).toContainText('Not the best move');
  await expect(page.getByTestId('explanation')).toContainText('Swap: ');
  await expect(page.getByTestId('note-best')).toHaveAttribute('data-from', String(puzzle.best));
});

test('in Russian at 360 px every target is 44 px and an identified player’s rating moves', async ({ open }) => {
  const page = await open('/puzzles', { locale: 'ru-RU', viewport: { width: 360, height: 740 }, reducedMotion: 'reduce' });
  const created = await page.evaluate(() => fetch('/api/me', { method: 'POST' }).then((r) => r.status));
  expect(created).toBe(201);
  // The puzzle is handed out again to this player (the ticket names the player).
  await page.reload();
  const puzzle = await shownPuzzle(page);
  await expect(page.getByTestId('board')).toHaveAttribute('data-layout', 'upright');
  expect(await smallControls(page)).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await expectNoViolations(page, '/puzzles at 360 px in Russian');
  await page.screenshot({ path: path.join(screenshots, 'puzzles-360-ru-question.png'), fullPage: true });

  await page.locator(`[data-testid="move-choice"][data-from="${puzzle.best}"]`).click();
  await expectChances(page, puzzle);
  await expect(page.getByTestId('verdict')).toHaveText(/^Верно! /);
  await expect(page.getByTestId('rating-change')).toContainText('Ваш рейтинг в задачах');
  await expect(page.getByTestId('rating-change')).toContainText('→');
  expect(await smallControls(page)).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await expectNoViolations(page, '/puzzles at 360 px in Russian, answered');
  await page.screenshot({ path: path.join(screenshots, 'puzzles-360-ru-answered.png'), fullPage: true });
});

test('a mistake of one’s own finished game is offered under its analysis and solved on /puzzles', async ({ open }) => {
  const page = await open('/', { reducedMotion: 'reduce' });
  await page.getByTestId('create-local').click();
  await page.waitForURL(/\/r\/[^/]+$/);
  // A whole game, the most advanced piece every time: careless enough to make mistakes.
  await playOn({ black: page, white: page }, [page]);
  await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'over');
  const room = page.url().split('/').pop();
  const analysis = await (await page.request.get(new URL(`/api/rooms/${room}/analysis`, page.url()).href)).json();
  const mistakes = analysis.throws.filter((row) => row.label === 'mistake' || row.label === 'blunder');
  expect(mistakes.length, 'the most advanced piece every time makes mistakes').toBeGreaterThan(0);
  const offered = page.getByTestId('puzzle-from-game');
  await expect(offered).toHaveCount(Math.min(3, mistakes.length));
  const biggest = mistakes.reduce((a, b) => (b.loss > a.loss ? b : a));
  await expect(offered.first()).toHaveAttribute('data-v', String(biggest.v));
  await expectNoViolations(page, 'the analysis with its mistakes offered');
  mkdirSync(screenshots, { recursive: true });
  await page.getByTestId('analysis').screenshot({ path: path.join(screenshots, 'puzzles-from-game-offer.png') });
  await offered.first().click();
  await page.waitForURL(/\/puzzles\?game=/);
  await expect(page.getByTestId('puzzles')).toHaveAttribute('data-state', 'question');
  await expect(page.getByTestId('puzzle-title')).toHaveText('From your game');
  await expectNoAnswerShown(page);
  await page.locator(`[data-testid="move-choice"][data-from="${biggest.played}"]`).click();
  await expect(page.getByTestId('puzzles')).toHaveAttribute('data-state', 'answered');
  await expect(page.getByTestId('verdict')).toContainText(`the best was ${biggest.best} →`);
  await expect(page.getByTestId('rating-change')).toContainText('does not move your puzzle rating');
  await expectNoViolations(page, '/puzzles, a game’s mistake answered');
  await page.screenshot({ path: path.join(screenshots, 'puzzles-1280-from-game-answered.png'), fullPage: true });
});
