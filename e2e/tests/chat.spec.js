// The room's chat (issue 33): two players whose pages speak different languages greet each other
// with preset messages — each reads the other's in their own language — with the keyboard, at
// 360 px, heard politely by a screen reader; a spectator chats under an identity the page offers
// (one click or key), and their message stays with the spectators.
// Typed messages only between identified players who both allow them, never announced while
// the reader is typing a message of their own.
import { execFileSync } from 'node:child_process';
import { test, expect } from '../support/fixtures.js';
import { acceptInvitation } from '../support/game.js';
import { expectNoViolations } from '../support/a11y.js';
import { serverBinary } from '../support/server.js';

const PHONE = { width: 360, height: 800 };

/** Anna (English) creates an online game as black; Boris (Russian, on a phone) takes white. */
async function seatBoth(open, { identities = false } = {}) {
  const anna = await open('/');
  const identify = (page) => identities && page.request.post(new URL('/api/me', page.url()).href);
  await identify(anna);
  await anna.getByTestId('online-form').getByRole('radio', { name: 'Black' }).check();
  await anna.getByTestId('create-online').click();
  await anna.waitForURL(/\/r\/[^/]+$/);
  const boris = await open('/', { locale: 'ru-RU', viewport: PHONE });
  await identify(boris);
  await boris.goto(anna.url());
  await acceptInvitation(boris);
  for (const page of [anna, boris]) await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
  return { anna, boris };
}

test('two players greet in two languages and each reads the other in their own', async ({ open }) => {
  const { anna, boris } = await seatBoth(open);
  await expect(boris.getByRole('heading', { name: 'Чат' })).toBeVisible();

  // Anna, in English, greets from the keyboard; Boris reads it in Russian.
  await anna.getByTestId('chat-preset-hello').focus();
  await anna.keyboard.press('Enter');
  await expect(anna.getByTestId('chat-line')).toHaveText(['You: Hello!']);
  await expect(boris.getByTestId('chat-line')).toHaveText(['Чёрные: Привет!']);
  await expect(boris.getByTestId('announcements').getByTestId('said').last()).toHaveText('Чёрные: Привет!');

  // Boris answers in Russian; Anna reads it in English, and her screen reader hears it once.
  await boris.getByRole('button', { name: 'Удачи!' }).click();
  await expect(boris.getByTestId('chat-line').last()).toHaveText('Вы: Удачи!');
  await expect(anna.getByTestId('chat-line').last()).toHaveText('White: Good luck!');
  await expect(anna.getByTestId('announcements').getByTestId('said').filter({ hasText: 'Good luck!' })).toHaveText(['White says: Good luck!']);

  // The server's refusals are said in the page's language: a repeat of the last message.
  await boris.getByRole('button', { name: 'Удачи!' }).click();
  await expect(boris.getByTestId('chat-status')).toHaveText('Вы только что это написали.');

  // A spectator without an identity is offered one in place of the presets, from the keyboard.
  const watcher = await open(anna.url());
  await expect(watcher.getByTestId('chat-line')).toHaveText(['Black: Hello!', 'White: Good luck!']);
  await expect(watcher.getByTestId('chat-identify')).toHaveText('Take an identity and chat');
  await expect(watcher.getByTestId('chat-presets')).toBeHidden();
  await watcher.getByTestId('chat-identify').focus();
  await watcher.keyboard.press('Enter');
  await expect(watcher.getByTestId('chat-status')).toHaveText(/^You now chat as anon-\S+\.$/);
  await expect(watcher.getByTestId('chat-identity')).toBeHidden();
  await expect(watcher.getByTestId('chat-preset-hello')).toBeFocused();
  const spectator = (await (await watcher.request.get(new URL('/api/me', watcher.url()).href)).json()).name;

  // Their message stays on the spectators' channel until a player turns it on.
  await watcher.getByTestId('chat-preset-have-fun').click();
  await expect(watcher.getByTestId('chat-line').last()).toHaveText(`${spectator}: Have fun!`);
  await anna.getByTestId('chat-preset-thank-you').click();
  await expect(anna.getByTestId('chat-line').last()).toHaveText('You: Thank you!');
  await expect(anna.getByTestId('chat-line')).toHaveCount(3);
  await anna.getByTestId('chat-spectators').check();
  const spectatorLine = anna.getByTestId('chat-line').filter({ hasText: 'Have fun!' });
  await expect(spectatorLine).toHaveCount(1);
  await expect(spectatorLine).toContainText(`${spectator}: Have fun!`);
  // A player may mute a spectator who spoke; the spectator page offers no muting.
  await expect(spectatorLine.getByTestId('chat-mute-line')).toHaveText(`Mute ${spectator}`);
  await expect(watcher.getByTestId('chat-mute-line')).toHaveCount(0);
  await expect(watcher.getByTestId('chat-mute')).toBeHidden();

  // The replay says the messages in each reader's language.
  await anna.getByTestId('resign').click();
  await anna.getByTestId('confirm-yes').click();
  await boris.getByTestId('open-replay').click();
  await expect(boris.getByTestId('replay-caption')).toContainText('Чёрные: Привет! · Белые: Удачи!');
  await expect(boris.getByTestId('replay-caption')).toContainText(`${spectator}: Приятной игры!`);

  // At 360 px nothing overflows sideways, and the chat passes axe's WCAG A/AA rules.
  const overflow = await boris.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await expectNoViolations(boris, 'the room with its chat at 360 px, in Russian');
});

test('typed messages between identified players who allow them, announced after typing', async ({ open }) => {
  const { anna, boris } = await seatBoth(open, { identities: true });
  await expect(anna.getByTestId('chat-form')).toBeHidden();
  await anna.getByTestId('chat-free-text').check();
  await expect(boris.getByTestId('chat-free-text')).not.toBeChecked();
  await expect(anna.getByTestId('chat-form')).toBeHidden();
  await boris.getByTestId('chat-free-text').check();
  for (const page of [anna, boris]) await expect(page.getByTestId('chat-form')).toBeVisible();

  // Anna is typing when Boris's message comes: it is shown at once, said once she has sent hers.
  await anna.getByTestId('chat-input').fill('Hi Boris <b>!</b>');
  await boris.getByTestId('chat-input').fill('Привет, Анна');
  await boris.getByTestId('chat-input').press('Enter');
  await expect(anna.getByTestId('chat-line').last()).toHaveText('White: Привет, Анна');
  const heard = anna.getByTestId('announcements').getByTestId('said').filter({ hasText: 'Привет' });
  await expect(heard).toHaveCount(0);
  await anna.getByTestId('chat-input').press('Enter');
  await expect(anna.getByTestId('chat-line').last()).toHaveText('You: Hi Boris <b>!</b>');
  await expect(heard).toHaveText(['White says: Привет, Анна']);
  // Text is text: the markup arrives as characters, never as an element.
  await expect(boris.getByTestId('chat-line').last()).toHaveText('Чёрные: Hi Boris <b>!</b>');
  await expect(boris.getByTestId('chat-lines').locator('b')).toHaveCount(0);
});

test('a player mutes the other side and a spectator, and anyone reports the chat once', async ({ open }) => {
  const { anna, boris } = await seatBoth(open);
  await boris.getByRole('button', { name: 'Привет!' }).click();
  await expect(anna.getByTestId('chat-line')).toHaveText(['White: Hello!']);

  // Anna mutes White from the keyboard: told so, and White's next message is refused in Russian.
  await expect(anna.getByTestId('chat-mute')).toHaveText('Mute White for this game');
  await anna.getByTestId('chat-mute').focus();
  await anna.keyboard.press('Enter');
  await expect(anna.getByTestId('chat-status')).toHaveText('You muted White for this game: their messages no longer reach you.');
  await expect(anna.getByTestId('chat-mute')).toBeHidden();
  await boris.getByRole('button', { name: 'Пока!' }).click();
  await expect(boris.getByTestId('chat-status')).toHaveText('Соперник отключил ваши сообщения в этой партии.');
  await expect(anna.getByTestId('chat-line')).toHaveText(['White: Hello!']);
  // Boris may still mute Anna (in his language).
  await expect(boris.getByTestId('chat-mute')).toHaveText('Отключить сообщения: Чёрные, до конца партии');

  // A spectator without an identity reads the offer in their language (Chinese here).
  const reader = await open(anna.url(), { locale: 'zh-TW' });
  await expect(reader.getByTestId('chat-identify')).toHaveText('取得身分並聊天');
  await expect(reader.getByTestId('chat-presets')).toBeHidden();
  await expectNoViolations(reader, 'the spectator\'s offer of an identity, in Chinese');

  // A spectator takes an identity and speaks; Anna lets the spectators' chat in and mutes them.
  const watcher = await open(anna.url());
  await watcher.getByTestId('chat-identify').click();
  await watcher.getByTestId('chat-preset-have-fun').click();
  await anna.getByTestId('chat-spectators').check();
  const line = anna.getByTestId('chat-line').filter({ hasText: 'Have fun!' });
  await line.getByTestId('chat-mute-line').click();
  await expect(anna.getByTestId('chat-status')).toHaveText(/^You muted anon-\S+ for this game: their messages no longer reach you\.$/);
  await expect(line.getByTestId('chat-mute-line')).toHaveCount(0);

  // The spectator reports the chat: a form opened by a button, a reason, sent once.
  const open_ = watcher.getByTestId('chat-report-open');
  await expect(open_).toHaveAttribute('aria-expanded', 'false');
  await open_.click();
  await expect(open_).toHaveAttribute('aria-expanded', 'true');
  await expect(watcher.getByTestId('chat-report-reason')).toBeFocused();
  await watcher.getByTestId('chat-report-reason').fill('rude messages');
  await watcher.getByTestId('chat-report-reason').press('Enter');
  await expect(watcher.getByTestId('chat-status')).toHaveText('Report sent: the operators will read the last messages. Thank you.');
  await expect(watcher.getByTestId('chat-report-open')).toBeHidden();
  await expect(watcher.getByTestId('chat-report')).toBeHidden();
  await expectNoViolations(anna, 'the room after muting, in English');
});

test('a message the operator hides leaves the open pages with nothing else happening', async ({ open, serve }) => {
  const server = await serve();
  const { anna, boris } = await seatBoth((path, options) => open(new URL(path, server.url).href, options));
  await anna.getByTestId('chat-preset-hello').click();
  await expect(boris.getByTestId('chat-line')).toHaveText(['Чёрные: Привет!']);
  const room = new URL(anna.url()).pathname.split('/').pop();
  const record = await (await anna.request.get(new URL(`/api/rooms/${room}/record`, server.url).href)).json();
  const said = record.events.find((event) => event.t === 'said');
  execFileSync(serverBinary(), [
    'admin', 'hide', room, String(said.v), '--reason', 'test', '--as', 'olga', '--database-url', `sqlite://${server.dataDir}/senet.db`,
  ]);
  // SQLite's instance reads the operator's appends every 2 s.
  for (const page of [anna, boris]) await expect(page.getByTestId('chat-line')).toHaveCount(0, { timeout: 10_000 });
});

// Issue 44: the message box takes the server's 140 characters, emoji included (its `maxlength`
// counted UTF-16 units, so 70 emoji were the most); and a ban closes the open pages, which say
// why they stopped, each in its language, and do not try again.
test('a box of 140 emoji, then a ban closes the open pages with a sentence that says so', async ({ open, serve }) => {
  const server = await serve();
  const openHere = (path, options) => open(new URL(path, server.url).href, { ...options, allowNetworkErrors: true });
  const { anna, boris } = await seatBoth(openHere, { identities: true });
  await anna.getByTestId('chat-free-text').check();
  await boris.getByTestId('chat-free-text').check();
  const box = anna.getByTestId('chat-input');
  await box.pressSequentially('😀'.repeat(141));
  expect([...(await box.inputValue())].length).toBe(140);
  await box.press('Enter');
  await expect(boris.getByTestId('chat-line').last()).toHaveText(`Чёрные: ${'😀'.repeat(140)}`);

  execFileSync(serverBinary(), [
    'admin', 'ban', '127.0.0.1', '--for', '1h', '--reason', 'test', '--as', 'olga', '--database-url', `sqlite://${server.dataDir}/senet.db`,
  ]);
  // Every instance reads the bans every 2 s.
  await expect(anna.getByTestId('connection')).toHaveText(/^An operator barred your address from this server/, { timeout: 10_000 });
  await expect(boris.getByTestId('connection')).toHaveText(/^Оператор заблокировал ваш адрес/, { timeout: 10_000 });
  await expect(anna.getByTestId('room')).toHaveAttribute('data-connection', 'banned');
});
