// The tournaments, upcoming, running and finished (GET /api/tournaments), as lists of links to
// their pages: on the home page and on /tournaments. Also merges the tournament pages' strings.

import { el, show } from './dom.js';
import { onLanguageChange, t } from './i18n.js';
import { LANGUAGES, STRINGS } from './strings.js';
import { TOURNAMENTS_STRINGS } from './tournaments-strings.js';

for (const code of LANGUAGES) Object.assign(STRINGS[code], TOURNAMENTS_STRINGS[code]);

/** The parts of the list, in the order shown. */
export const PARTS = ['upcoming', 'running', 'finished'];

/** A tournament's page. */
export const tournamentHref = (id) => `/t/${encodeURIComponent(id)}`;

/** "Arena, 30 min" / "Swiss, 5 rounds". */
export function formatText(settings) {
  return settings.format === 'arena' ? t('tournaments.arena', { minutes: settings.minutes }) : t('tournaments.swiss', { rounds: settings.rounds });
}

/** "3+2" for a clock of 3 minutes and 2 seconds a move; seconds alone when under a minute. */
export function clockText(clock) {
  const initial = clock.initial % 60 === 0 ? String(clock.initial / 60) : `${clock.initial}s`;
  return `${initial}+${clock.increment}`;
}

/** A date and time in the page's language. */
export const timeText = (ms) => new Intl.DateTimeFormat(document.documentElement.lang, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(ms));

function item(tournament) {
  const { settings } = tournament;
  const details = [formatText(settings), clockText(settings.clock), t('tournaments.players', { n: tournament.players })];
  if (tournament.status === 'upcoming') details.push(t('tournaments.startsAt', { time: timeText(settings.starts_at) }));
  return el(
    'li',
    { 'data-testid': 'tournament-item', 'data-id': tournament.id },
    el('a', { href: tournamentHref(tournament.id), text: settings.name }),
    el('span', { class: 'hint', text: ` · ${details.join(' · ')}` }),
  );
}

/**
 * Fills `root` (a container with `[data-part=upcoming|running|finished]` lists, each with its
 * heading, and a `[data-part=status]` line) from the server, at most `limit` of each; answers a
 * function that loads them again.
 */
export function mountTournamentList(root, limit = 50) {
  let lists = null;
  const status = /** @type {HTMLElement} */ (root.querySelector('[data-part=status]'));
  const draw = () => {
    status.textContent = lists ? '' : t(status.dataset.failed ? 'tournaments.unreachable' : 'tournaments.loading');
    for (const name of PARTS) {
      const list = /** @type {HTMLElement} */ (root.querySelector(`[data-part=${name}]`));
      const items = (lists?.[name] ?? []).slice(0, limit);
      list.replaceChildren(...(items.length ? items.map(item) : [el('li', { class: 'hint', text: t('tournaments.none') })]));
      show(list, Boolean(lists));
    }
  };
  const load = async () => {
    try {
      const response = await fetch('/api/tournaments', { headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(String(response.status));
      lists = await response.json();
      delete status.dataset.failed;
    } catch {
      status.dataset.failed = 'yes';
    }
    draw();
  };
  onLanguageChange(draw);
  draw();
  load();
  return load;
}
