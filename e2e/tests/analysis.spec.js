// After the game: the engine's chart of black's chances, one point per throw with the labelled
// moves marked, and each point a way into the replay (by click, and by the keyboard), which then
// draws the move played and the best one.
import { test, expect } from '../support/fixtures.js';
import { roomInfo, takeTurn } from '../support/game.js';

/** A same-screen game of a few throws, ended by resigning; answers the page and its analysis. */
async function finishedGame(open) {
  const page = await open('/', { reducedMotion: 'reduce' });
  await page.getByTestId('create-local').click();
  await page.waitForURL(/\/r\/[^/]+$/);
  await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
  let moves = 0;
  while (moves < 6) {
    if ((await takeTurn({ black: page, white: page }, [page])) === 'move') moves += 1;
  }
  // Before the end there is no analysis on the page.
  await expect(page.getByTestId('analysis')).toBeHidden();
  await page.getByTestId('resign').click();
  await page.getByTestId('confirm-yes').click();
  await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'over');
  const room = page.url().split('/').pop();
  const answer = await page.request.get(new URL(`/api/rooms/${room}/analysis`, page.url()).href);
  expect(answer.ok()).toBe(true);
  return { page, analysis: await answer.json() };
}

test('a finished game shows the chart; clicking a point moves the replay there', async ({ open }) => {
  const { page, analysis } = await finishedGame(open);
  const { throws } = analysis;
  expect(throws.length).toBeGreaterThanOrEqual(6);
  await expect(page.getByTestId('analysis')).toBeVisible();
  await expect(page.getByTestId('analysis-status')).toHaveText('');
  const points = page.getByTestId('analysis-point');
  await expect(points).toHaveCount(throws.length);
  // One point per throw, in order; the labelled ones are marked.
  expect(await points.evaluateAll((nodes) => nodes.map((node) => Number(node.dataset.v)))).toEqual(throws.map((row) => row.v));
  const judged = throws.filter((row) => ['inaccuracy', 'mistake', 'blunder'].includes(row.label)).length;
  await expect(page.locator('[data-testid="analysis-chart"] .point.marked')).toHaveCount(judged);
  // Black's chance is drawn between 0% (bottom) and 100% (top) of the chart.
  for (const cy of await points.evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute('cy'))))) {
    expect(cy).toBeGreaterThanOrEqual(40);
    expect(cy).toBeLessThanOrEqual(228);
  }
  await expect(page.getByTestId('analysis-summary')).toContainText(`Black: decisions ${analysis.black.decisions}, `);

  // A click on the last move's point opens the replay at that move, drawn on the board.
  const last = throws.findLastIndex((row) => row.kind !== 'pass');
  await points.nth(last).click();
  const replay = page.getByTestId('replay');
  await expect(replay).toBeVisible();
  await expect(page.getByTestId('replay-step')).toHaveText(`Step ${last + 1} of ${throws.length}`);
  await expect(replay.getByTestId('note-played')).toHaveAttribute('data-from', String(throws[last].played));
  if (throws[last].best !== undefined) {
    await expect(replay.getByTestId('note-best')).toHaveAttribute('data-from', String(throws[last].best));
  } else {
    await expect(replay.getByTestId('note-best')).toHaveCount(0);
  }
  await expect(points.nth(last)).toHaveClass(/current/);

  // A click on a marked move chooses that move, though the next throw's circle overlaps it (issue 52).
  const marked = throws.findIndex((row) => ['inaccuracy', 'mistake', 'blunder'].includes(row.label));
  if (marked >= 0 && marked < throws.length - 1) {
    await points.nth(marked).click({ force: true });
    await expect(page.getByTestId('replay-step')).toHaveText(`Step ${marked + 1} of ${throws.length}`);
  }

  // The keyboard: the chosen point holds the chart's one tab stop; arrows move, Enter shows.
  await points.nth(last).focus();
  await page.keyboard.press('Home');
  await expect(points.nth(0)).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(points.nth(1)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('replay-step')).toHaveText(`Step 2 of ${throws.length}`);
  await expect(points.nth(1)).toHaveAttribute('tabindex', '0');
  await expect(points.nth(0)).toHaveAttribute('tabindex', '-1');

  // Stepping the replay moves the chart's mark along.
  await page.getByTestId('replay-next').click();
  await expect(points.nth(2)).toHaveClass(/current/);

  // In the other languages too.
  await page.getByTestId('language').selectOption('ru');
  await expect(page.locator('#analysis-heading')).toHaveText('Шансы бросок за броском');
  await expect(points.nth(0)).toHaveAttribute('aria-label', /^Бросок 1, (Чёрные|Белые) \d: шансы чёрных \d+%/);
  await page.getByTestId('language').selectOption('zh-Hant');
  await expect(page.locator('#analysis-heading')).toHaveText('逐擲勝率');
  expect((await roomInfo(page)).phase).toBe('over');
});

test('the chart at 360 px: it says whose chance it draws, labels of 12 px, only the marked moves and the cursor drawn, captions that agree', async ({ open }) => {
  const { page, analysis } = await finishedGame(open);
  await page.setViewportSize({ width: 360, height: 740 });
  const chart = page.getByTestId('analysis-chart');
  await expect(chart.locator('text').filter({ hasText: 'Black’s chance of winning' })).toBeVisible();
  const sizes = await chart.locator('text').evaluateAll((texts) => texts.map((text) => parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a));
  for (const size of sizes) expect(size).toBeGreaterThanOrEqual(11.95);
  // Drawn: a visible stroke. Only the labelled moves and the current throw.
  const drawn = await page.getByTestId('analysis-point').evaluateAll((points) => points.filter((point) => getComputedStyle(point).stroke !== 'none').length);
  const judged = analysis.throws.filter((row) => ['inaccuracy', 'mistake', 'blunder'].includes(row.label)).length;
  expect(drawn).toBeLessThanOrEqual(judged + 1);
  // A pointer over the chart moves the cursor, and its line names the throw.
  await chart.scrollIntoViewIfNeeded();
  // A long game keeps room for each throw: the chart scrolls sideways in its box (issue 52).
  const perThrow = await chart.evaluate((node, n) => node.getBoundingClientRect().width / n, analysis.throws.length);
  expect(perThrow).toBeGreaterThanOrEqual(5.9);
  await page.locator('.chart-scroll').evaluate((node) => (node.scrollLeft = node.scrollWidth));
  const box = await chart.boundingBox();
  await page.mouse.move(box.x + box.width - 8, box.y + box.height / 2);
  await expect(page.getByTestId('analysis-cursor')).toHaveText(new RegExp(`^Throw ${analysis.throws.length}, `));
  // Every caption words the loss as winning chance, and never calls a move both best and not.
  for (const language of ['en', 'ru', 'zh-Hant']) {
    await page.getByTestId('language').selectOption(language);
    await page.getByTestId('replay-first').click().catch(() => {});
    for (let i = 0; i < analysis.throws.length; i += 1) {
      await page.getByTestId('analysis-point').nth(i).dispatchEvent('click');
      const caption = await page.getByTestId('replay-caption').textContent();
      expect(caption).not.toMatch(/points lost|п\. п\.|лучший, /);
      if (language === 'ru') expect(caption.match(/лучший/g)?.length ?? 0).toBeLessThanOrEqual(1);
    }
  }
});
