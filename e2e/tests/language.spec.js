// Languages (picked from the browser, switched and remembered, every string translated), the
// 360-pixel phone layout, and screenshots of the lobby and of a game in progress.
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../support/fixtures.js';
import { startOnlineGame, takeTurn, roomInfo } from '../support/game.js';

const screenshots = process.env.SCREENSHOT_DIR ?? path.join(import.meta.dirname, '..', 'screenshots');
const PHONE = { width: 360, height: 740 };

/** The tables, loaded in the page from the served module. */
function tables(page) {
  return page.evaluate(async () => {
    const src = document.querySelector('script[type="module"]').src;
    const module = await import(new URL('strings.js', src).href);
    return { languages: module.LANGUAGES, strings: module.STRINGS };
  });
}

/** English texts (of two words or more) that appear on the page: none should in zh or ru. */
async function englishLeftovers(page, strings) {
  const english = Object.values(strings.en)
    .flatMap((value) => (typeof value === 'object' ? Object.values(value) : [value]))
    .map((text) => text.split('{')[0].trim())
    .filter((text) => text.split(' ').length >= 2);
  const visible = await page.evaluate(() => document.body.innerText);
  return english.filter((text) => visible.includes(text));
}

/** Every strings module of the client (`strings.js` and the pages' `*-strings.js`), by file name. */
const STRINGS_MODULES = readdirSync(path.join(import.meta.dirname, '..', '..', 'web', 'js')).filter((name) =>
  /(^|-)strings\.js$/.test(name),
);

/** The `{name}` placeholders of a text or of each plural form, sorted. */
function placeholders(value) {
  const texts = typeof value === 'object' ? Object.values(value) : [value];
  return [...new Set(texts.flatMap((text) => text.match(/\{[a-zA-Z]+\}/g) ?? []))].sort();
}

test('every strings module has every key in every language, with the same placeholders', async ({ open }) => {
  const page = await open('/');
  const { languages } = await tables(page);
  expect(languages).toEqual(['en', 'zh-Hant', 'ru']);
  expect(STRINGS_MODULES.length).toBeGreaterThanOrEqual(6);
  for (const file of STRINGS_MODULES) {
    // Each module exports one table, `{ en, 'zh-Hant': zhHant, ru }`, merged into strings.js's.
    const table = await page.evaluate(async (file) => {
      const src = document.querySelector('script[type="module"]').src;
      const module = await import(new URL(file, src).href);
      const exported = Object.entries(module).filter(([name]) => name.endsWith('STRINGS'));
      return exported.length === 1 ? exported[0][1] : null;
    }, file);
    expect(table, `${file} exports one *STRINGS table`).not.toBeNull();
    expect(Object.keys(table), file).toEqual(languages);
    const keys = Object.keys(table.en).sort();
    for (const language of languages) {
      expect(Object.keys(table[language]).sort(), `${file}: ${language}`).toEqual(keys);
      for (const key of keys) {
        expect(placeholders(table[language][key]), `${file}: ${language} ${key}`).toEqual(placeholders(table.en[key]));
      }
    }
  }
});

test('the language follows the browser, switches, and is remembered', async ({ open }) => {
  const chinese = await open('/', { locale: 'zh-TW' });
  await expect(chinese.locator('html')).toHaveAttribute('lang', 'zh-Hant');
  await expect(chinese.getByRole('heading', { level: 1 })).toHaveText('塞尼特對弈');
  const rules = chinese.getByTestId('rules');
  for (const house of ['幸福屋', '水屋', '再生屋']) await expect(rules).toContainText(house);
  const { strings } = await tables(chinese);
  expect(await englishLeftovers(chinese, strings)).toEqual([]);

  await chinese.getByTestId('language').selectOption('ru');
  await expect(chinese.getByRole('heading', { level: 1 })).toHaveText('Играть в сенет');
  for (const house of ['Дом счастья', 'Дом воды', 'Дом возрождения']) await expect(rules).toContainText(house);
  expect(await englishLeftovers(chinese, strings)).toEqual([]);
  await chinese.reload();
  await expect(chinese.getByRole('heading', { level: 1 })).toHaveText('Играть в сенет');
  await expect(chinese.getByTestId('language')).toHaveValue('ru');

  const russian = await open('/', { locale: 'ru-RU' });
  await expect(russian.getByTestId('create-online')).toHaveText('Создать комнату');
});

test('a game in Russian and Chinese shows no English', async ({ open }) => {
  const game = await startOnlineGame(open);
  const players = { black: game.black, white: game.white };
  const pages = [game.black, game.white];
  for (let i = 0; i < 6; i += 1) await takeTurn(players, pages);
  const { strings } = await tables(game.black);
  await game.black.getByTestId('language').selectOption('ru');
  await expect(game.black.getByTestId('seat')).toHaveText('Вы играете чёрными.');
  await expect(game.black.getByTestId('board')).toHaveAttribute('aria-label', 'Доска для сенета');
  expect(await englishLeftovers(game.black, strings)).toEqual([]);
  await game.white.getByTestId('language').selectOption('zh-Hant');
  await expect(game.white.getByTestId('seat')).toHaveText('你執白方。');
  expect(await englishLeftovers(game.white, strings)).toEqual([]);
  // Translated pages still play.
  await takeTurn(players, pages);
});

test('the phone layout at 360 px: screenshots of the lobby and a game in progress', async ({ open }) => {
  mkdirSync(screenshots, { recursive: true });
  const lobby = await open('/', { viewport: PHONE });
  await expect(lobby.getByTestId('rules')).toBeVisible();
  expect(await lobby.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  await lobby.screenshot({ path: path.join(screenshots, 'lobby-360.png'), fullPage: true });

  const game = await startOnlineGame(open, { context: { viewport: PHONE } });
  const players = { black: game.black, white: game.white };
  const pages = [game.black, game.white];
  // Play until a player has highlighted pieces to choose from, and photograph that moment.
  for (let i = 0; i < 60; i += 1) {
    const { phase, turn } = await roomInfo(game.black);
    if (i >= 6 && phase === 'move') {
      const page = players[turn];
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      await page.locator('.piece.movable').last().hover();
      await page.screenshot({ path: path.join(screenshots, 'game-360.png'), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.screenshot({ path: path.join(screenshots, 'game-desktop.png'), fullPage: true });
      return;
    }
    await takeTurn(players, pages);
  }
  throw new Error('no position with a choice of moves within 60 actions');
});
