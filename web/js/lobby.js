// The lobby page: create an online, same-screen or computer room, keep its seat token, and go
// there. The how-to-play panel shows the starting position on a real board drawing.

import { part, show } from './dom.js';
import { mountLanguageSwitch, onLanguageChange, t } from './i18n.js';
import { createRoom, saveSeat } from './api.js';
import { createBoard } from './board.js';

const START = 'WBWBWBWBWB.................... b';
const problem = part('lobby-error');

async function create(form) {
  const fields = new FormData(form);
  const options = { mode: form.dataset.mode, side: fields.get('side') ?? 'random' };
  if (options.mode === 'ai') options.level = fields.get('level');
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  show(problem, false);
  try {
    const room = await createRoom(options);
    saveSeat(room.room, room);
    location.assign(room.url ?? `/r/${encodeURIComponent(room.room)}`);
  } catch (err) {
    problem.textContent = t(err.status === 0 ? 'lobby.unreachable' : 'lobby.refused', { code: err.code });
    show(problem, true);
    button.disabled = false;
  }
}

function start() {
  mountLanguageSwitch(part('language'));
  const board = createBoard(part('rules-board'));
  board.render(START);
  onLanguageChange(() => board.relabel());
  for (const form of document.querySelectorAll('form[data-mode]')) {
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      create(form);
    });
  }
}

start();
