// The home page's live line: how many people are in a game or the lobby, and how many game
// rooms are in use (GET /api/counts: this server's figures, "on this server" when it is one of
// several). Read again every half minute while the page is in view. Not a live region: a screen
// reader reads it where it stands and is never interrupted by an update.

import { el } from './dom.js';
import { onLanguageChange, t } from './i18n.js';
import { serverCounts } from './api.js';

const EVERY_MS = 30_000;

/** Keep `element` saying the server's counts; it stays empty until the first answer. */
export function mountCounts(element) {
  /** @type {{online: number, rooms: number, scope: string} | null} */
  let last = null;

  function draw() {
    if (!last) return;
    // Each figure with its words stays on one line; a narrow screen breaks between them.
    const parts = [t('counts.online', { n: last.online }), t('counts.rooms', { n: last.rooms })];
    if (last.scope === 'instance') parts.push(t('counts.instance'));
    element.replaceChildren(...parts.flatMap((text, i) => [i > 0 ? ' · ' : '', el('span', { text })]).filter(Boolean));
    element.dataset.online = String(last.online);
    element.dataset.rooms = String(last.rooms);
  }

  async function read() {
    if (document.visibilityState !== 'visible') return;
    try {
      last = await serverCounts();
    } catch {
      return; // the line keeps its last figures; it is not worth an error on the page
    }
    draw();
  }

  read();
  setInterval(read, EVERY_MS);
  document.addEventListener('visibilitychange', read);
  onLanguageChange(draw);
}
