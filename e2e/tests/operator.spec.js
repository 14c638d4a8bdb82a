// A game the server's operator ends from the command line (`senet admin end`, talking to the
// database, not to the server): both players' pages and a spectator's show the end and the
// operator's words, each in its own language, and offer no rematch.
import { execFileSync } from 'node:child_process';
import { test, expect } from '../support/fixtures.js';
import { serverBinary } from '../support/server.js';
import { startOnlineGame, takeTurn } from '../support/game.js';

const NOTE = 'abusive chat <b>';

test('a game the operator ends shows why, in every language, and ends for good', async ({ open, serve }) => {
  const server = await serve();
  const at = (path, options) => open(new URL(path, server.url).href, options);
  const game = await startOnlineGame((path, options) => at(path, { ...options, locale: 'en-US' }));
  const players = { black: game.black, white: game.white };
  await takeTurn(players, [game.black, game.white]);
  // The white player reads Russian; a spectator reads Chinese.
  await game.white.getByTestId('language').selectOption('ru');
  const watcher = await at(game.url, { locale: 'zh-TW' });
  await expect(watcher.getByTestId('seat')).not.toHaveText('');

  const room = new URL(game.url).pathname.split('/').pop();
  const printed = execFileSync(serverBinary(), [
    'admin', 'end', room, '--reason', NOTE, '--as', 'alice', '--database-url', `sqlite://${server.dataDir}/senet.db`,
  ]);
  expect(JSON.parse(printed).ended).toBe(room);

  // SQLite's instance reads the operator's ends every 2 s.
  const expected = [
    [game.black, 'Game ended', `The server’s operator ended the game: ${NOTE}`],
    [game.white, 'Партия прекращена', `Администратор сервера прекратил партию: ${NOTE}`],
    [watcher, '對局已終止', `伺服器管理員終止了這局：${NOTE}`],
  ];
  for (const [page, title, reason] of expected) {
    await expect(page.getByTestId('end')).toBeVisible({ timeout: 10_000 });
    await expect(page.getByTestId('end')).toHaveAttribute('data-winner', 'none');
    await expect(page.getByTestId('end-title')).toHaveText(title);
    await expect(page.getByTestId('end-reason')).toHaveText(reason);
    await expect(page.getByTestId('end-you')).toHaveText('');
    await expect(page.getByTestId('rematch')).toBeHidden();
  }
  // A page opened afterwards reads the same from the state.
  const later = await at(game.url, { locale: 'en-US' });
  await expect(later.getByTestId('end-reason')).toHaveText(`The server’s operator ended the game: ${NOTE}`);
});
