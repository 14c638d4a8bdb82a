// The room's chat (issue 33): two players whose pages speak different languages greet each other
// with preset messages — each reads the other's in their own language — with the keyboard, at
// 360 px, heard politely by a screen reader; a spectator's message stays with the spectators.
import { test, expect } from '../support/fixtures.js';
import { expectNoViolations } from '../support/a11y.js';

const PHONE = { width: 360, height: 800 };

test('two players greet in two languages and each reads the other in their own', async ({ open }) => {
  const anna = await open('/');
  await anna.getByTestId('online-form').getByRole('radio', { name: 'Black' }).check();
  await anna.getByTestId('create-online').click();
  await anna.waitForURL(/\/r\/[^/]+$/);
  const boris = await open(anna.url(), { locale: 'ru-RU', viewport: PHONE });
  for (const page of [anna, boris]) await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
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

  // A spectator's message stays on the spectators' channel until a player turns it on.
  const watcher = await open(anna.url());
  await expect(watcher.getByTestId('chat-line')).toHaveText(['Black: Hello!', 'White: Good luck!']);
  await watcher.getByTestId('chat-preset-have-fun').click();
  await expect(watcher.getByTestId('chat-line').last()).toHaveText('Spectator: Have fun!');
  await anna.getByTestId('chat-preset-thank-you').click();
  await expect(anna.getByTestId('chat-line').last()).toHaveText('You: Thank you!');
  await expect(anna.getByTestId('chat-line')).toHaveCount(3);
  await anna.getByTestId('chat-spectators').check();
  await expect(anna.getByTestId('chat-line').filter({ hasText: 'Have fun!' })).toHaveText(['Spectator: Have fun!']);

  // At 360 px nothing overflows sideways, and the chat passes axe's WCAG A/AA rules.
  const overflow = await boris.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await expectNoViolations(boris, 'the room with its chat at 360 px, in Russian');
});
