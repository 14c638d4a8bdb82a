// "Your turn" (issue 46): the correspondence games where this browser's player is to move, first
// on the home page and on their own player page, their count in the page's title ("(2) Senet",
// as lichess does). Read from GET /api/me/turns as the page opens, every 20 s while it is in view
// (a background tab's timers are slowed by the browser, which is fine for moves counted in
// days), when it comes back into view, and at once when the service worker says a push came
// (sw.js posts `turns`). A tab in the background that sees the list grow tells the player with
// the Notification API, unless this device is subscribed to Web Push: then the service worker's
// notification already did.

import { el, part, show } from './dom.js';
import { onLanguageChange, t } from './i18n.js';
import { roomPage, yourTurn } from './api.js';
import { nameOf } from './players-view.js';
import { LANGUAGES, STRINGS } from './strings.js';
import { TURNS_STRINGS } from './turns-strings.js';

for (const code of LANGUAGES) Object.assign(STRINGS[code], TURNS_STRINGS[code]);

const EVERY_MS = 20_000;
/** The count last read, for [countTitle]. */
let count = 0;

/** Put the count before the page's title: "(2) Senet" (a page that sets its title calls it after). */
export function countTitle() {
  const base = document.title.replace(/^\(\d+\) /, '');
  document.title = count > 0 ? `(${count}) ${base}` : base;
}

/** @typedef {{room: string, due_at: number, opponent: any}} TurnGame */

/** "in 3 days" in the page's language. */
function dueText(at) {
  const format = new Intl.RelativeTimeFormat(document.documentElement.lang, { numeric: 'auto' });
  const ms = at - Date.now();
  const hours = ms / 3_600_000;
  if (Math.abs(hours) >= 36) return format.format(Math.round(hours / 24), 'day');
  if (Math.abs(hours) >= 1) return format.format(Math.round(hours), 'hour');
  return format.format(Math.max(0, Math.round(ms / 60_000)), 'minute');
}

const opponentName = (game) => (game.opponent ? nameOf(game.opponent) : t('rating.anonymous'));

function item(game) {
  const opponent = opponentName(game);
  return el(
    'li',
    { 'data-testid': 'turn-game', 'data-room': game.room },
    el('span', { class: 'what' }, `${t('turns.against', { opponent })} · ${t('turns.due', { when: dueText(game.due_at) })}`),
    el('a', { class: 'button primary', href: roomPage(game.room), 'aria-label': t('turns.openLabel', { opponent }), text: t('turns.open') }),
  );
}

/** Whether this device's service worker already shows a notification for each push. */
async function pushSubscribed() {
  const registration = await navigator.serviceWorker?.getRegistration();
  return Boolean(await registration?.pushManager.getSubscription());
}

async function notify(games) {
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  if (await pushSubscribed().catch(() => false)) return;
  const game = games[0];
  const notification = new Notification(t('app.name'), { body: t('turns.notification', { opponent: opponentName(game) }), tag: game.room });
  notification.addEventListener('click', () => {
    window.focus();
    location.assign(roomPage(game.room));
  });
}

/**
 * Keep `section` (holding a `[data-testid=turn-list]` list and a `[data-testid=turn-count]` line)
 * showing the player's games where it is their move; hidden while there are none or there is no
 * player. The page's title gets the count.
 * @param {HTMLElement} section
 */
export function mountYourTurn(section) {
  /** @type {TurnGame[]} */
  let games = [];
  /** @type {Set<string> | null} rooms of the last reading; none before the first */
  let seen = null;

  function draw() {
    show(section, games.length > 0);
    section.dataset.count = String(games.length);
    part('turn-count', section).textContent = t('turns.count', { n: games.length });
    part('turn-list', section).replaceChildren(...games.map(item));
    count = games.length;
    countTitle();
  }

  async function read() {
    try {
      games = (await yourTurn()).games;
    } catch {
      return; // the server unreachable: the list stays as it was
    }
    const before = seen;
    const fresh = before ? games.filter((game) => !before.has(game.room)) : [];
    if (fresh.length > 0 && document.visibilityState === 'hidden') notify(fresh);
    seen = new Set(games.map((game) => game.room));
    draw();
  }

  read();
  setInterval(read, EVERY_MS);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') read();
  });
  navigator.serviceWorker?.addEventListener('message', (event) => {
    if (event.data?.type === 'turns') read();
  });
  // addEventListener, unlike onmessage, does not open the worker's message queue by itself.
  navigator.serviceWorker?.startMessages();
  onLanguageChange(draw);
}
