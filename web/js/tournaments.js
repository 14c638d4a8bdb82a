// The /tournaments page: the lists (tournament-list.js) and the form that creates a tournament
// (POST /api/tournaments, for a player with an identity). The form says the bounds the server
// checks; whatever the server refuses is shown as it words it, and a created tournament opens.

import './players-view.js';
import { el, part, show } from './dom.js';
import { mountLanguageSwitch, onLanguageChange, t } from './i18n.js';
import { isIdentified } from './api.js';
import { PRESETS } from './clock.js';
import { clockText, mountTournamentList, tournamentHref } from './tournament-list.js';

/** The clocks offered: the lobby's presets (a tournament's games always have one). */
const CLOCKS = PRESETS.filter((preset) => preset !== null);
const form = /** @type {HTMLFormElement} */ (part('create-form'));
const problem = part('create-error');

function fillClocks() {
  const select = /** @type {HTMLSelectElement} */ (part('create-clock'));
  const chosen = select.value || '1';
  select.replaceChildren(...CLOCKS.map((clock, i) => el('option', { value: String(i), text: clockText(clock) })));
  select.value = chosen;
}

/** Shows the field of the format chosen. */
function showFormat() {
  const arena = new FormData(form).get('format') === 'arena';
  show(part('minutes-field'), arena);
  show(part('rounds-field'), !arena);
}

/** The request the form asks for. */
function request() {
  const data = new FormData(form);
  const format = String(data.get('format'));
  const body = {
    name: String(data.get('name') ?? '').trim(),
    format,
    clock: CLOCKS[Number(data.get('clock'))],
    starts_at: Date.now() + Number(data.get('startsIn') ?? 0) * 60_000,
    rated: data.get('rated') === 'true',
  };
  if (format === 'arena') body.minutes = Number(data.get('minutes'));
  else body.rounds = Number(data.get('rounds'));
  return body;
}

async function create() {
  const button = /** @type {HTMLButtonElement} */ (part('create'));
  button.disabled = true;
  show(problem, false);
  try {
    const response = await fetch('/api/tournaments', {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify(request()),
    });
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      const key = data?.error === 'too_many_tournaments' ? 'tournaments.tooMany' : 'tournaments.refused';
      throw new Error(t(key, { message: data?.message ?? response.status }));
    }
    location.assign(tournamentHref(data.id));
  } catch (err) {
    problem.textContent = err instanceof TypeError ? t('tournaments.unreachable') : err.message;
    show(problem, true);
    button.disabled = false;
    problem.focus?.();
  }
}

async function start() {
  mountLanguageSwitch(part('language'));
  mountTournamentList(part('tournament-lists'));
  fillClocks();
  onLanguageChange(fillClocks);
  showFormat();
  form.addEventListener('change', showFormat);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    create();
  });
  const identified = await isIdentified();
  show(part('create-needs-player'), !identified);
  show(form, identified);
}

start();
