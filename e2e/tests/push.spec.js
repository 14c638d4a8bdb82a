// Web Push in the browser (issue 46): the settings page's per-device switch and the service
// worker, in Debian's Chromium. What runs for real: /sw.js registers with the whole site as its
// scope; a push delivered to it through the DevTools protocol (ServiceWorker.deliverPushMessage,
// what Chromium's own push service would hand it) becomes a notification saying whose turn in
// which game, in the page's language; the switch asks for permission, registers the worker and
// asks Chromium's push service for a subscription. That needs a profile of its own (Playwright's
// contexts are incognito, where Chromium has no Push API at all: crbug.com/41124656); offline,
// Chromium cannot reach its push service (Firebase Cloud Messaging) and never answers, so the
// page gives up after 20 s: the test asserts the clear message the player then reads and the
// switch left off, not a faked subscription. The server's
// half (encrypt, sign, send to a push service, 404/410 removal) is tests/push.rs against the npm
// push service `web-push-testing`. axe, three languages, 360 px.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { test, expect } from '../support/fixtures.js';
import { expectNoViolations } from '../support/a11y.js';

const PHONE = { width: 360, height: 740 };
const screenshots = process.env.SCREENSHOT_DIR ?? path.join(import.meta.dirname, '..', 'screenshots');
const SWITCH = 'Tell me when it’s my turn (even with the site closed)';

/** `path` on the server `page` is on. */
const at = (page, path) => new URL(path, page.url()).href;

/** The service worker's registration ids, as the DevTools protocol tells them. */
async function workerSession(page) {
  const cdp = await page.context().newCDPSession(page);
  const registrations = new Map();
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: updated }) => {
    for (const registration of updated) {
      if (registration.isDeleted) registrations.delete(registration.registrationId);
      else registrations.set(registration.registrationId, registration.scopeURL);
    }
  });
  await cdp.send('ServiceWorker.enable');
  return {
    /** Deliver `data` as a push message to the site's worker. */
    async push(data) {
      await expect.poll(() => registrations.size).toBeGreaterThan(0);
      const [registrationId] = [...registrations.keys()];
      const origin = new URL(page.url()).origin;
      await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data: JSON.stringify(data) });
    },
  };
}

/**
 * Watch what the site's active worker shows: its `showNotification` (still Chromium's, called
 * through) also notes each call. `registration.getNotifications()` would be the direct reading,
 * but headless Chromium here sometimes drops a notification from that list at once although
 * `showNotification` resolved (2 runs in 5, also with Chromium's own notification centre instead of the desktop's):
 * so the test reads what the worker passed to it. Answers a function reading the notes.
 */
async function watchShown(page) {
  const context = page.context();
  const url = await page.evaluate(async () => (await navigator.serviceWorker.ready).active?.scriptURL);
  await expect.poll(() => context.serviceWorkers().some((worker) => worker.url() === url)).toBe(true);
  const worker = context.serviceWorkers().find((candidate) => candidate.url() === url);
  await worker.evaluate(() => {
    const scope = /** @type {any} */ (self);
    if (scope.shown) return;
    scope.shown = [];
    const show = scope.registration.showNotification.bind(scope.registration);
    scope.registration.showNotification = (title, options) => {
      scope.shown.push({ title, body: options.body, room: options.data?.room });
      return show(title, options);
    };
  });
  return () => worker.evaluate(() => /** @type {any} */ (self).shown);
}

test('the switch registers the worker, says why Chromium offline cannot subscribe, and a push becomes a notification of whose turn in which game', async ({ server }, testInfo) => {
  // A profile of its own: Chromium's Push API exists outside incognito only.
  const profile = mkdtempSync(path.join(os.tmpdir(), 'senet-push-'));
  const { launchOptions } = testInfo.project.use;
  const context = await chromium.launchPersistentContext(profile, { ...launchOptions, headless: true, locale: 'en-US', viewport: PHONE, permissions: ['notifications'] });
  // The profile goes, also after a failure.
  try {
    const problems = [];
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(new URL('/', server.url).href);
    expect((await page.request.post(at(page, '/api/me'))).status()).toBe(201);
    await page.goto(at(page, '/settings'));
    const toggle = page.getByRole('switch', { name: SWITCH });
    await expect(toggle).toHaveAttribute('data-ready', 'true');
    await expect(toggle).not.toBeChecked();
    const status = page.getByTestId('push-status');
    await expect(status).toHaveText('Off: this device will not be told.');
    expect(await page.evaluate(() => navigator.serviceWorker.getRegistration('/'))).toBeUndefined();

    // On: permission (granted to this context), the worker, then Chromium's push service.
    const worker = await workerSession(page);
    await toggle.focus();
    await page.keyboard.press('Space');
    await expect(status).toHaveText('Asking this browser…');
    await expect(status).toHaveText(
      'This browser’s push service did not answer within 20 seconds: is this device offline? Try again later. While the site is open in another tab, you will still be told.',
      { timeout: 30_000 },
    );
    await expect(toggle).not.toBeChecked();
    await expect(toggle).toBeEnabled();
    await expect(toggle).toBeFocused();
    const registered = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.ready;
      return { scope: registration.scope, script: registration.active?.scriptURL };
    });
    expect(registered.scope).toBe(at(page, '/'));
    expect(registered.script).toBe(at(page, '/sw.js?lang=en'));
    const served = await page.request.get(at(page, '/sw.js'));
    expect(served.headers()['content-type']).toBe('text/javascript; charset=utf-8');
    expect(served.headers()['content-security-policy']).toContain("script-src 'self'");
    await expectNoViolations(page, 'the settings page with the push switch refused');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    mkdirSync(screenshots, { recursive: true });
    await page.getByTestId('push-section').screenshot({ path: path.join(screenshots, 'push-switch-360.png') });

    // The server's payload, as tests/push.rs decrypts it: whose turn, in which game; no secret.
    let shown = await watchShown(page);
    await worker.push({ room: '/r/abcdefghij', opponent: 'Boris' });
    await expect.poll(shown).toEqual([{ title: 'Your turn — Senet', body: 'Your move against Boris', room: '/r/abcdefghij' }]);
    // An open page of the site hears of the push from the worker and reads its list again at
    // once (it would by itself only 20 s after it opened).
    const home = await context.newPage();
    const firstRead = home.waitForRequest((request) => request.url().endsWith('/api/me/turns'));
    await home.goto(at(page, '/'));
    await firstRead;
    const reread = home.waitForRequest((request) => request.url().endsWith('/api/me/turns'), { timeout: 5000 });
    await worker.push({ room: '/r/abcdefghij', opponent: 'Boris' });
    await reread;
    await home.close();
    // A payload that names something else than a room's page leads home, never elsewhere.
    await worker.push({ room: 'https://elsewhere.example/', opponent: null });
    await expect.poll(shown).toContainEqual({ title: 'Your turn — Senet', body: 'Your move against anonymous', room: '/' });

    // In the page's language: the worker is registered again in it.
    for (const [lang, title, body, words] of [
      ['ru', 'Ваш ход — Сенет', 'Ваш ход против Boris', 'Выключено: это устройство не будет сообщать.'],
      ['zh-Hant', '輪到你了 — 塞尼特', '對 Boris，輪到你走', '已關閉：不會通知這部裝置。'],
    ]) {
      await page.evaluate((lang) => localStorage.setItem('senet.lang', lang), lang);
      await page.reload();
      await expect(status).toHaveText(words);
      await expect
        .poll(() => page.evaluate(async () => (await navigator.serviceWorker.getRegistration('/'))?.active?.scriptURL))
        .toBe(at(page, `/sw.js?lang=${lang}`));
      shown = await watchShown(page);
      await worker.push({ room: `/r/${lang.replace('-', '')}game`, opponent: 'Boris' });
      await expect.poll(shown).toContainEqual({ title, body, room: `/r/${lang.replace('-', '')}game` });
      await expectNoViolations(page, `the settings page in ${lang}`);
    }
    expect(problems).toEqual([]);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

test('a browser that blocks notifications is told how to allow them', async ({ open }) => {
  const page = await open('/settings', { allowNetworkErrors: true });
  expect((await page.request.post(at(page, '/api/me'))).status()).toBe(201);
  await page.reload();
  const toggle = page.getByRole('switch', { name: SWITCH });
  await expect(toggle).toHaveAttribute('data-ready', 'true');
  // No permission granted: headless Chromium answers the request "denied" without a prompt.
  await toggle.click();
  await expect(page.getByTestId('push-status')).toHaveText('Notifications are blocked for this site in this browser. Allow them in the browser’s site settings, then turn the switch on again.');
  await expect(toggle).not.toBeChecked();
});
