// What the server sends with the pages: Content-Security-Policy, cache headers, module types.
import { test, expect } from '../support/fixtures.js';

test('pages are revalidated, assets cached for a year, and the policy is strict', async ({ open, server }) => {
  const page = await open('/');
  const response = await page.request.get(`${server.url}/`);
  expect(response.status()).toBe(200);
  const headers = response.headers();
  expect(headers['cache-control']).toBe('no-cache');
  expect(headers['x-content-type-options']).toBe('nosniff');
  const policy = headers['content-security-policy'];
  expect(policy).toContain("script-src 'self'");
  expect(policy).toContain("style-src 'self'");
  expect(policy).toContain("connect-src 'self'");
  expect(policy).not.toContain('unsafe');

  const moduleUrl = await page.evaluate(() => document.querySelector('script[type="module"]').src);
  expect(moduleUrl).toMatch(/\/assets\/[0-9a-f]{16}\/js\/home\.js$/);
  const asset = await page.request.get(moduleUrl);
  expect(asset.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
  expect(asset.headers()['content-type']).toMatch(/^text\/javascript/);

  const room = await page.request.get(`${server.url}/r/0123456789abcdef0123456789abcdef`);
  expect(room.headers()['content-type']).toMatch(/^text\/html/);
});

test('an unknown room says so', async ({ open }) => {
  const page = await open('/r/00000000000000000000000000000000', { allowNetworkErrors: true });
  await expect(page.getByTestId('problem')).toHaveText('This room does not exist. Check the link, or start a new game from the lobby.');
});

test('a seat token the server refuses leaves the page watching, and says so', async ({ open }) => {
  const creator = await open('/');
  await creator.getByTestId('create-online').click();
  await creator.waitForURL(/\/r\/[^/]+$/);
  const room = new URL(creator.url()).pathname.split('/')[2];
  const stale = await open('/');
  await stale.evaluate((key) => localStorage.setItem(key, JSON.stringify({ seat: 'white', token: 'ab'.repeat(32) })), `senet.seat.${room}`);
  await stale.goto(creator.url());
  await expect(stale.getByTestId('problem')).toHaveText('The seat this browser held in this room is no longer valid, so you are watching.');
  await expect(stale.getByTestId('seat')).toHaveText('You are watching this game.');
  expect(await stale.evaluate((key) => localStorage.getItem(key), `senet.seat.${room}`)).toBeNull();
});
