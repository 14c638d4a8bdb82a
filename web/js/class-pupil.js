// A pupil's /class page (issue 50): the join form (the code from the address's #, as the QR code
// gives it, and a first name), the server's refusals in the page's words, then the wait. The
// page reads GET /api/class/me every few seconds and opens by itself the game the teacher
// started (its seat token kept in this browser as every seat is, never in an address) or the
// lesson. The pupil's secret is an HttpOnly cookie; this page only remembers that it joined, so
// a visitor who never did is not asked (a 404 would be a console error).

import { part, show } from './dom.js';
import { mountLanguageSwitch, onLanguageChange, t } from './i18n.js';
import { saveSeat } from './api.js';
import { joinClass, pupilMe } from './class-common.js';
import { JOINED_KEY, rememberClassGame } from './class-stumbles.js';

/** How often the pupil's page asks whether a game or a lesson was started. */
const POLL_MS = 2500;
/** The game and lesson this browser last opened (each opened once). */
const OPENED_KEY = 'senet.class.opened';
/** /learn opens the lesson it finds here (learn.js's progress). */
const LEARN_KEY = 'senet.learn';
const KNOWN_ERRORS = new Set(['class_code_unknown', 'pupil_name_taken', 'class_full', 'bad_name', 'name_reserved', 'rate_limited']);

const form = /** @type {HTMLFormElement} */ (part('join-form'));
const problem = part('join-error');
/** The last answer of GET /api/class/me. */
let me = null;

function opened() {
  try {
    return JSON.parse(localStorage.getItem(OPENED_KEY) ?? '{}') ?? {};
  } catch {
    return {};
  }
}

function markOpened(what) {
  localStorage.setItem(OPENED_KEY, JSON.stringify({ ...opened(), ...what }));
}

function showJoin() {
  show(part('waiting'), false);
  show(part('join-card'), true);
  const code = decodeURIComponent(location.hash.slice(1));
  if (code) part('join-code').value = code;
  (code ? part('join-name') : part('join-code')).focus();
}

function renderWaiting() {
  show(part('join-card'), false);
  show(part('waiting'), true);
  part('hello').textContent = t('pupil.hello', { name: me.pupil.name });
  part('in-class').textContent = t('pupil.inClass', { class: me.class.name });
  if (!part('wait-line').textContent) part('wait-line').textContent = t('pupil.waiting');
}

/** Go where the teacher sent the class, once for each game and lesson. */
function follow() {
  const seen = opened();
  const game = me.game;
  if (game?.token && seen.game !== game.room) {
    markOpened({ game: game.room });
    saveSeat(game.room, { seat: game.seat, token: game.token });
    rememberClassGame(game.room, me.class?.chat);
    part('wait-line').textContent = t('pupil.toGame');
    location.assign(game.url);
    return true;
  }
  const lesson = me.class.lesson;
  if (lesson && seen.lesson !== lesson) {
    markOpened({ lesson });
    localStorage.setItem(LEARN_KEY, JSON.stringify({ ...learnProgress(), open: lesson }));
    part('wait-line').textContent = t('pupil.toLesson');
    location.assign('/learn');
    return true;
  }
  if (!lesson && seen.lesson) markOpened({ lesson: null });
  return false;
}

function learnProgress() {
  try {
    return JSON.parse(localStorage.getItem(LEARN_KEY) ?? 'null') ?? { done: [] };
  } catch {
    return { done: [] };
  }
}

async function poll() {
  try {
    me = await pupilMe();
  } catch (err) {
    if (err.status === 404) {
      // Removed by the teacher, or the class deleted: join again.
      localStorage.removeItem(JOINED_KEY);
      problem.textContent = t('pupil.gone');
      show(problem, true);
      showJoin();
      return;
    }
    setTimeout(poll, POLL_MS);
    return;
  }
  renderWaiting();
  if (!follow()) setTimeout(poll, POLL_MS);
}

async function join() {
  const button = /** @type {HTMLButtonElement} */ (part('join'));
  button.disabled = true;
  show(problem, false);
  const data = new FormData(form);
  try {
    await joinClass({ code: String(data.get('code') ?? ''), name: String(data.get('name') ?? '').trim() });
    localStorage.setItem(JOINED_KEY, '1');
    localStorage.removeItem(OPENED_KEY);
    await poll();
  } catch (err) {
    problem.textContent = KNOWN_ERRORS.has(err.code) ? t(`pupil.error.${err.code}`) : t('pupil.error.other', { message: err.message });
    show(problem, true);
    part('join-name').focus();
  } finally {
    button.disabled = false;
  }
}

function start() {
  mountLanguageSwitch(part('language'));
  onLanguageChange(() => {
    if (me) renderWaiting();
    part('wait-line').textContent = t('pupil.waiting');
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    join();
  });
  if (localStorage.getItem(JOINED_KEY)) poll();
  else showJoin();
}

start();
