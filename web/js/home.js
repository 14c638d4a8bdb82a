// The home page: create an online, same-screen or computer room, keep its seat token, and go
// there. The games waiting for the player's move come first (your-turn.js). The how-to-play panel shows the starting position on a real board drawing.

import { el, part, show } from './dom.js';
import { mountLanguageSwitch, onLanguageChange, t } from './i18n.js';
import { newRoom, saveSeat } from './api.js';
import { createBoard } from './board.js';
import { CORRESPONDENCE, PRESETS, parsePreset, presetLabel, presetValue } from './clock.js';
import { DEFAULT_LEVEL, ErrorCode, Level, Mode } from './protocol.js';
import { mountCounts } from './counts.js';
import { mountYourTurn } from './your-turn.js';
import './players-view.js';
import { mountTournamentList } from './tournament-list.js';

const START = 'WBWBWBWBWB.................... b';
const problem = part('lobby-error');

async function create(form) {
  const fields = new FormData(form);
  const options = { mode: form.dataset.mode, side: fields.get('side') ?? 'random' };
  if (options.mode === Mode.Ai) options.level = fields.get('level');
  else options.clock = parsePreset(fields.get('clock'));
  // Sent only when chosen: casual is the server's default.
  if (fields.get('rated') === 'true') options.rated = true;
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  show(problem, false);
  try {
    const room = await newRoom(options);
    saveSeat(room.room, room);
    location.assign(room.url);
  } catch (err) {
    const key = err.code === ErrorCode.RatedNeedsPlayer ? 'rating.needsPlayer' : err.status === 0 ? 'lobby.unreachable' : 'lobby.refused';
    problem.textContent = t(key, { code: err.code });
    show(problem, true);
    button.disabled = false;
  }
}

/** The computer's levels, as the server knows them, its default chosen. */
function fillLevels(select) {
  select.replaceChildren(
    ...Object.values(Level).map((level) => el('option', { value: level, 'data-i18n': `ai.${level}`, selected: level === DEFAULT_LEVEL })),
  );
}

/** The time controls, worded in the current language, keeping the choice made; correspondence
 * (days a move) for online games only. */
function fillClocks() {
  for (const select of /** @type {NodeListOf<HTMLSelectElement>} */ (document.querySelectorAll('select[name="clock"]'))) {
    const chosen = select.value;
    const presets = select.closest('form')?.dataset.mode === Mode.Online ? [...PRESETS, ...CORRESPONDENCE] : PRESETS;
    select.replaceChildren(...presets.map((preset) => el('option', { value: presetValue(preset), text: presetLabel(preset) })));
    select.value = chosen;
  }
}

function start() {
  fillLevels(part('ai-level'));
  mountLanguageSwitch(part('language'));
  const board = createBoard(part('rules-board'));
  board.render(START);
  fillClocks();
  mountCounts(part('counts'));
  mountTournamentList(part('home-tournaments'), 5);
  mountYourTurn(part('your-turn'));
  onLanguageChange(() => {
    board.relabel();
    fillClocks();
  });
  for (const form of document.querySelectorAll('form[data-mode]')) {
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      create(form);
    });
  }
}

start();
