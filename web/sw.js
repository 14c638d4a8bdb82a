// The service worker (issue 46), served at /sw.js so that its scope is the whole site, and only
// for Web Push: it caches nothing and answers no fetch. A push (the server's payload is
// `{"room": "/r/…", "opponent": name or null}`, no secret) becomes a notification "Your turn —
// your move against Boris"; clicking it focuses a tab already on that game or opens one. The
// open pages hear of each push (`{type: 'turns'}`) and read their "your turn" list again.
//
// A module worker: it imports the pages' string tables (src/web/worker.rs puts in the assets'
// versioned path). The language is the one the page registered it with (`/sw.js?lang=ru`, see
// settings.js): a worker has no localStorage to read the page's choice from.

import { LANGUAGES, STRINGS } from '{{assets}}/js/strings.js';
import { PLAYERS_STRINGS } from '{{assets}}/js/players-strings.js';
import { TURNS_STRINGS } from '{{assets}}/js/turns-strings.js';

const asked = new URL(self.location.href).searchParams.get('lang') ?? '';
const language = LANGUAGES.includes(asked) ? asked : 'en';
const table = { ...STRINGS[language], ...PLAYERS_STRINGS[language], ...TURNS_STRINGS[language] };
/** A room's page, as the server's payload names it; anything else is not followed. */
const ROOM_PATH = /^\/r\/[A-Za-z0-9_-]{1,64}$/;

/** The text for `key` with `{name}` placeholders filled (i18n.js's `t`, without plurals). */
const t = (key, params = {}) => String(table[key]).replace(/\{(\w+)\}/g, (_, name) => params[name] ?? '');

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

/** The payload, or `{}` when a push came without one or with something else. */
function payload(data) {
  try {
    const value = data?.json();
    return value && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}

async function notify(message) {
  const room = ROOM_PATH.test(message.room) ? message.room : '/';
  const opponent = typeof message.opponent === 'string' && message.opponent ? message.opponent : t('rating.anonymous');
  await self.registration.showNotification(`${t('turns.heading')} — ${t('app.name')}`, {
    body: t('turns.notification', { opponent }),
    tag: room,
    lang: language,
    data: { room },
  });
  const pages = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const page of pages) page.postMessage({ type: 'turns' });
}

/** Focus a tab already on `path`, or open one. */
async function open(path) {
  const url = new URL(path, self.location.origin).href;
  const pages = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const there = pages.find((page) => page.url === url);
  if (there) return there.focus();
  return self.clients.openWindow(url);
}

self.addEventListener('push', (event) => event.waitUntil(notify(payload(event.data))));

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const room = event.notification.data?.room;
  event.waitUntil(open(ROOM_PATH.test(room) ? room : '/'));
});
