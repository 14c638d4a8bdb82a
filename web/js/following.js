// The players this browser's player follows, /following (issue 46): for each, online now or not,
// playing now (a Watch link to the room), their last results (each a link to its replay), and
// Unfollow. Read from GET /api/me/follows as the page opens and every 30 s while it is in view.

import { el, part, show } from './dom.js';
import { hasText, mountLanguageSwitch, onLanguageChange, t } from './i18n.js';
import { follows, roomPage, setListed } from './api.js';
import { nameOf, playerHref } from './players-view.js';
import { ErrorCode } from './protocol.js';
import { LANGUAGES, STRINGS } from './strings.js';
import { SOCIAL_STRINGS } from './social-strings.js';

for (const code of LANGUAGES) Object.assign(STRINGS[code], SOCIAL_STRINGS[code]);

const EVERY_MS = 30_000;
const root = part('following');
/** `{follows, max}` as last read; null before. */
let list = null;
/** The last status, re-worded on a language switch; null for none.
 * @type {[string, Record<string, unknown>] | null} */
let said = ['follows.loading', {}];

function say(key, params = {}) {
  said = [key, params];
  part('following-status').textContent = t(key, params);
}

function result(entry, name) {
  const what = t(`follows.result.${entry.result}`, { opponent: entry.opponent ?? t('follows.someone') });
  return el('li', {}, el('a', { href: roomPage(entry.room), 'aria-label': t('follows.replayLabel', { what: `${name} ${what}` }), text: what }));
}

function item(followed) {
  const name = nameOf(followed.player);
  const presence = [t(followed.online ? 'follows.online' : 'follows.offline')];
  if (followed.playing) presence.push(t('follows.playing'));
  const unfollow = el('button', { type: 'button', 'data-testid': 'unfollow', 'aria-label': t('follows.unfollowLabel', { name }), text: t('social.unfollow') });
  unfollow.addEventListener('click', async () => {
    unfollow.disabled = true;
    try {
      await setListed('follows', followed.player.id, false);
      list.follows = list.follows.filter((other) => other !== followed);
      say('social.unfollowed', { name });
      draw();
      part('follows-count').focus();
    } catch (err) {
      unfollow.disabled = false;
      say(hasText(`social.error.${err.code}`) ? `social.error.${err.code}` : 'social.problem', { message: err.message });
    }
  });
  const recent = followed.recent.length
    ? el('ul', { class: 'results', 'data-testid': 'followed-results' }, followed.recent.map((entry) => result(entry, name)))
    : el('p', { class: 'hint', text: t('follows.noResults') });
  return el(
    'li',
    { 'data-testid': 'followed', 'data-player': followed.player.id, 'data-online': String(followed.online) },
    el(
      'div',
      { class: 'what' },
      el('a', { class: 'name', href: playerHref(followed.player), text: name }),
      el('span', { class: `presence${followed.online ? ' online' : ''}`, 'data-testid': 'presence', text: ` · ${presence.join(' · ')}` }),
      recent,
    ),
    el(
      'div',
      { class: 'incoming-actions' },
      followed.playing && el('a', { class: 'button primary', 'data-testid': 'watch', href: roomPage(followed.playing), 'aria-label': t('follows.watchLabel', { name }), text: t('follows.watch') }),
      unfollow,
    ),
  );
}

function draw() {
  part('following-status').textContent = said ? t(...said) : '';
  show(part('follows-card'), Boolean(list));
  if (!list) return;
  part('follows-count').textContent = list.follows.length ? t('follows.count', { n: list.follows.length, max: list.max }) : t('follows.none');
  part('follows-list').replaceChildren(...list.follows.map(item));
}

async function read() {
  try {
    list = await follows();
    root.dataset.state = 'ready';
    if (said && ['follows.loading', 'follows.failed'].includes(said[0])) said = null;
  } catch (err) {
    root.dataset.state = err.code === ErrorCode.NoPlayer ? 'none' : 'failed';
    if (err.code === ErrorCode.NoPlayer) say('follows.noIdentity');
    else say('follows.failed', { message: err.message });
  }
  draw();
}

function start() {
  mountLanguageSwitch(part('language'));
  onLanguageChange(draw);
  part('follows-count').tabIndex = -1;
  draw();
  read();
  setInterval(() => {
    if (document.visibilityState === 'visible' && root.dataset.state === 'ready') read();
  }, EVERY_MS);
}

start();
