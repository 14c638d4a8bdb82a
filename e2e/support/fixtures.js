// Test fixtures: one server per worker, and `open(path)` for pages in fresh browser contexts
// (separate localStorage, like separate people) whose console errors fail the test.
import { test as base, expect } from '@playwright/test';
import { startServer } from './server.js';
import { watchBlankBoard } from './blank-board.js';

/** Console messages that are expected when a test cuts a connection or asks for a missing room on purpose. */
const NETWORK_NOISE = /WebSocket connection to .* failed|Failed to load resource|net::ERR_/;

export const test = base.extend({
  server: [
    async ({}, use) => {
      const server = await startServer();
      await use(server);
      await server.stop();
    },
    { scope: 'worker' },
  ],

  /** Problems seen in any page: console errors, uncaught exceptions, CSP violations. */
  problems: async ({}, use) => {
    const problems = [];
    await use(problems);
    expect(problems, 'console errors or page errors').toEqual([]);
  },

  /**
   * `serve(options)` → a server of the test's own (`startServer`'s options), stopped only once
   * the test's pages are closed: a page that outlives its server tries its socket again and
   * logs the refusal as an error (a test failed so at load 11).
   */
  serve: async ({}, use) => {
    const started = [];
    await use(async (options) => {
      const server = await startServer(options);
      started.push(server);
      return server;
    });
    for (const server of started) await server.stop();
  },

  /**
   * `open(path, contextOptions)` → a page in a new context, already navigated. It depends on
   * `serve` so that its pages are closed before the test's own servers stop.
   */
  open: async ({ browser, server, problems, serve: _ }, use, testInfo) => {
    const contexts = [];
    const open = async (path = '/', options = {}) => {
      const { allowNetworkErrors = false, ...contextOptions } = options;
      const context = await browser.newContext({ locale: 'en-US', ...contextOptions });
      contexts.push(context);
      await context.addInitScript(watchBlankBoard);
      const page = await context.newPage();
      const name = `page ${contexts.length}`;
      page.on('console', (message) => {
        if (message.type() !== 'error') return;
        if (allowNetworkErrors && NETWORK_NOISE.test(message.text())) return;
        problems.push(`${name}: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`${name}: ${error.message}`));
      await page.goto(new URL(path, server.url).href);
      return page;
    };
    await use(open);
    for (const context of contexts) await context.close();
    if (testInfo.status !== testInfo.expectedStatus) {
      await testInfo.attach('server.log', { body: server.logs(), contentType: 'text/plain' });
    }
  },
});

export { expect };
