// The settings page's per-device switch "Tell me when it's my turn (even with the site closed)"
// (issue 46): on asks the browser for notifications, registers the service worker (/sw.js, scope
// the whole site), subscribes with the server's VAPID key and gives the server the subscription;
// off takes it back from the server and unsubscribes. On load it shows this device's real state
// (a subscription here, given to the server again: the server may have dropped it, or another
// identity may have taken this browser), and each refusal in words. With notifications allowed
// but no subscription, pages still tell a player in another tab (your-turn.js).

import { part } from './dom.js';
import { hasText, onLanguageChange, t } from './i18n.js';
import { forgetPush, pushKey, savePush } from './api.js';
import { LANGUAGES, STRINGS } from './strings.js';
import { PUSH_STRINGS } from './push-strings.js';

for (const code of LANGUAGES) Object.assign(STRINGS[code], PUSH_STRINGS[code]);

/** How long the browser's push service may take to subscribe: offline, Chromium's tries to
 * reach its servers for minutes. */
const PATIENCE_MS = 20_000;

/** The last thing said: `[key, params]`, re-worded on a language switch. */
let said = ['settings.push.off', {}];

function say(key, params = {}) {
  said = [key, params];
  part('push-status').textContent = t(key, params);
}

const supported = () => 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

/** The worker, registered (again) in the page's language, which its notifications speak. */
async function register() {
  const lang = encodeURIComponent(document.documentElement.lang);
  await navigator.serviceWorker.register(`/sw.js?lang=${lang}`, { type: 'module', scope: '/' });
  return navigator.serviceWorker.ready;
}

/** A worker registered before speaks the page's language from now on. */
function relanguage() {
  if (!supported()) return;
  navigator.serviceWorker
    .getRegistration('/')
    .then((registration) => registration && register())
    .catch(() => {});
}

/** This device's subscription, if it has one. */
async function current() {
  const registration = await navigator.serviceWorker.getRegistration('/');
  return registration ? registration.pushManager.getSubscription() : null;
}

/** Gives the server `subscription`; a refusal takes it back here too and is said. */
async function keep(subscription) {
  try {
    await savePush(subscription.toJSON());
    return true;
  } catch (err) {
    await subscription.unsubscribe();
    const key = `settings.push.error.${err.code}`;
    say(hasText(key) ? key : 'settings.push.error.other', { code: err.code });
    return false;
  }
}

async function turnOn() {
  if ((await Notification.requestPermission()) !== 'granted') {
    say('settings.push.denied');
    return false;
  }
  const registration = await register();
  let subscription;
  try {
    const { key } = await pushKey();
    const subscribed = registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    subscription = await Promise.race([subscribed, new Promise((resolve) => setTimeout(resolve, PATIENCE_MS, null))]);
  } catch (err) {
    say('settings.push.failed', { reason: err.message || err.name });
    return false;
  }
  if (!subscription) {
    say('settings.push.noAnswer', { seconds: PATIENCE_MS / 1000 });
    return false;
  }
  if (!(await keep(subscription))) return false;
  say('settings.push.on');
  return true;
}

async function turnOff() {
  const subscription = await current();
  if (subscription) {
    await forgetPush(subscription.endpoint).catch(() => {});
    await subscription.unsubscribe();
  }
  say('settings.push.off');
  return false;
}

/** Set the switch from this device's state; wire it. Call with a player (subscriptions are theirs). */
export async function mountPushSwitch() {
  const toggle = part('push-switch');
  onLanguageChange(() => {
    part('push-status').textContent = t(...said);
    relanguage();
  });
  if (!supported()) {
    toggle.disabled = true;
    say('settings.push.unsupported');
    return;
  }
  const subscription = Notification.permission === 'granted' ? await current() : null;
  toggle.checked = Boolean(subscription) && (await keep(subscription));
  relanguage();
  if (toggle.checked) {
    say('settings.push.on');
  } else if (Notification.permission === 'denied') say('settings.push.denied');
  else if (!subscription) say('settings.push.off');
  toggle.dataset.ready = 'true';
  toggle.addEventListener('change', async () => {
    toggle.disabled = true;
    say('settings.push.asking');
    try {
      toggle.checked = toggle.checked ? await turnOn() : await turnOff();
    } catch (err) {
      say('settings.push.failed', { reason: err.message || err.name });
      toggle.checked = Boolean(await current().catch(() => null));
    }
    toggle.disabled = false;
    toggle.focus();
  });
}
