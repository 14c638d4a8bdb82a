// An invitation is a step, not a seat taken by opening a link (issue 52): the room's link shows
// the visitor which side they are offered and what the game is, and the seat is taken only when
// they press Join (mouse or keyboard). Until then the creator still sees the seat open, and a
// screen reader hears the invitation. A room whose seats are full is watched as before.
import { test, expect } from '../support/fixtures.js';
import { expectNoViolations } from '../support/a11y.js';
import { roomInfo } from '../support/game.js';

const PHONE = { width: 360, height: 740 };

test('the invitation says the side and the game, takes the seat only on Join, by keyboard; in three languages', async ({ open }) => {
  const creator = await open('/');
  await creator.getByTestId('online-form').getByRole('radio', { name: 'Black' }).check();
  await creator.getByTestId('online-clock').selectOption('300+3');
  await creator.getByTestId('create-online').click();
  await creator.waitForURL(/\/r\/[^/]+$/);
  await expect(creator.getByTestId('invite-link')).toHaveValue(creator.url());
  const link = creator.url();

  // Opening the link takes nothing: the visitor watches and is asked.
  const friend = await open(link, { viewport: PHONE });
  await expect(friend.getByTestId('join-step')).toBeVisible();
  await expect(friend.getByTestId('join-title')).toHaveText('You are invited to play White');
  await expect(friend.getByTestId('join-details')).toHaveText('5 min + 3 s · Casual');
  await expect(friend.getByTestId('announcements')).toContainText('You are invited to play White: 5 min + 3 s · Casual. Press Join to take the seat.');
  await expect(friend.getByTestId('seat')).toHaveText('');
  const join = friend.getByRole('button', { name: 'Join' });
  await expect(join).toBeFocused();
  const box = await join.boundingBox();
  expect(box.height).toBeGreaterThanOrEqual(44);
  expect(box.width).toBeGreaterThanOrEqual(44);
  await expectNoViolations(friend, 'an invitation');
  // The creator still waits, the white seat still open.
  for (const page of [creator, friend]) await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'waiting');
  await expect(creator.getByTestId('invite')).toBeVisible();
  await expect(creator.getByTestId('player-white')).toHaveAttribute('data-presence', 'empty');
  await expect(creator.getByTestId('turn')).toHaveText('Waiting for the second player…');

  // In Chinese and Russian, the same step in their words.
  const zh = await open(link, { locale: 'zh-TW' });
  await expect(zh.getByTestId('join-title')).toHaveText('你受邀以白方對弈');
  await expect(zh.getByTestId('join-details')).toHaveText('5 分 + 每回合 3 秒 · 不計分');
  await expect(zh.getByTestId('join')).toHaveText('加入');
  const ru = await open(link, { locale: 'ru-RU' });
  await expect(ru.getByTestId('join-title')).toHaveText('Вас приглашают сыграть: ваша сторона — Белые');
  await expect(ru.getByTestId('join-details')).toHaveText('5 мин + 3 с · Товарищеская');
  await expect(ru.getByTestId('join')).toHaveText('Присоединиться');
  await expectNoViolations(ru, 'an invitation in Russian');

  // Enter on the focused Join takes the seat; the game starts on every page.
  await friend.keyboard.press('Enter');
  for (const page of [creator, friend, zh, ru]) await expect(page.getByTestId('room')).toHaveAttribute('data-phase', 'roll');
  await expect(friend.getByTestId('seat')).toHaveText('You play white.');
  await expect(friend.getByTestId('join-step')).toBeHidden();
  await expect(creator.getByTestId('invite')).toBeHidden();
  expect((await roomInfo(creator)).seat).toBe('black');
  // The seat is taken: the pages that were still asked now only watch.
  for (const page of [zh, ru]) {
    await expect(page.getByTestId('join-step')).toBeHidden();
    expect((await roomInfo(page)).seat).toBe('spectator');
  }
  await expect(zh.getByTestId('seat')).toHaveText('你正在觀戰。');

  // The seat is this browser's: a reload keeps it, with no invitation.
  await friend.reload();
  await expect(friend.getByTestId('seat')).toHaveText('You play white.');
  await expect(friend.getByTestId('join-step')).toBeHidden();
  // A room whose seats are full is watched at once, as before.
  const late = await open(link);
  await expect(late.getByTestId('seat')).toHaveText('You are watching this game.');
  await expect(late.getByTestId('join-step')).toBeHidden();
});
