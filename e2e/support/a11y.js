// Accessibility checks shared by the specs: axe-core's WCAG 2.2 A and AA rules on the page as it
// is now, and a WebSocket the test can cut to show the page without its server.
import AxeBuilder from '@axe-core/playwright';
import { expect } from './fixtures.js';

/** axe-core's tags for every WCAG 2.0, 2.1 and 2.2 rule at levels A and AA. */
export const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'];

/** No WCAG A/AA violation on `page` now; `where` names the page and state in the failure. */
export async function expectNoViolations(page, where) {
  const { violations } = await new AxeBuilder({ page }).withTags(WCAG_AA).analyze();
  const found = violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 4).join(' | ')}`);
  expect(found, `axe on ${where}`).toEqual([]);
}

/**
 * Route `page`'s room WebSockets through the test: they reach the server until `cut()` closes
 * them, after which every new one is closed at once (the page keeps retrying) until `mend()`.
 */
export async function cuttableSocket(page) {
  const open = [];
  let cut = false;
  await page.routeWebSocket(/\/ws\/rooms\//, (ws) => {
    if (cut) {
      ws.close();
      return;
    }
    ws.connectToServer();
    open.push(ws);
  });
  return {
    async cut() {
      cut = true;
      for (const ws of open.splice(0)) await ws.close();
    },
    mend() {
      cut = false;
    },
  };
}
