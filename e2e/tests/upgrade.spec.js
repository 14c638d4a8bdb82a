// An upgrade while pages are open (issue 47, docs/UPGRADES.md): a game is started on the previous
// release's binary, the binary is replaced by this one on the same database and address, and the
// pages opened on the old one reconnect by themselves and play on; a reload keeps the seat and
// brings the new page. The previous release is the binary scripts/release-bin.sh builds from the
// commit CHANGELOG.md names ($SENET_OLD_BIN, which .ci/run sets; `cargo test` builds it first).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '../support/fixtures.js';
import { startServer, newDataDir, removeDataDir } from '../support/server.js';
import { startOnlineGame, takeTurn, boardOf } from '../support/game.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const OLD_BINARY = process.env.SENET_OLD_BIN ?? path.join(repo, 'target', 'releases', 'bin', 'senet-0.1.0-dev');
// 0.1.0 had no --identify-burst.
const OLD_QUOTAS = ['--create-burst', '0', '--join-burst', '0'];

test('a game started on the previous release plays on after the upgrade, and a reload keeps the seat', async ({ open }) => {
  test.skip(!process.env.SENET_OLD_BIN && !existsSync(OLD_BINARY), `no previous release's binary: build it with scripts/release-bin.sh and set SENET_OLD_BIN`);
  const dataDir = newDataDir();
  let server = await startServer({ dataDir, binary: OLD_BINARY, quotas: OLD_QUOTAS });
  try {
    // 0.1.0's page takes the seat as the link opens: no invitation step to go through.
    const onOld = (address, options) => open(new URL(address, server.url).href, { ...options, allowNetworkErrors: true });
    const game = await startOnlineGame(onOld, { invitation: false });
    const players = { black: game.black, white: game.white };
    const pages = [game.black, game.white];
    for (let i = 0; i < 4; i += 1) await takeTurn(players, pages);
    const before = await boardOf(game.black);

    await server.stop();
    server = await startServer({ dataDir, listen: new URL(server.url).host });
    for (const page of pages) await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'open', { timeout: 20_000 });
    expect((await boardOf(game.white)).position).toBe(before.position);
    for (let i = 0; i < 4; i += 1) await takeTurn(players, pages);

    // Black reloads: the new page, the same seat, the same game, and it plays on.
    const position = (await boardOf(game.black)).position;
    await game.black.reload();
    await expect(game.black.getByTestId('connection')).toHaveAttribute('data-state', 'open');
    await expect(game.black.getByTestId('seat')).toHaveText('You play black.');
    await expect(game.black.getByTestId('updated')).toBeHidden();
    expect((await boardOf(game.black)).position).toBe(position);
    for (let i = 0; i < 4; i += 1) await takeTurn(players, pages);
  } finally {
    await server.stop();
    removeDataDir(dataDir);
  }
});
