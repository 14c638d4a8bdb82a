// The museum kiosk (/kiosk, and `/` under `senet serve --kiosk`; docs/UI.md, "Kiosk"): an attract
// screen playing the rules, the language chosen by buttons, a same-screen or computer game on the
// room page's own controller and view, and, when nobody has touched the screen for the idle time,
// "still playing?" and back to the attract screen. Leaving a game reloads the page, so nothing of
// the last visitor stays: the seat token lives only in this page's memory, never in storage, and
// the abandoned room is left to the server's sweeps. No link leads out (kiosk.css hides the room
// page's links); there is no chat and no identity.

import { part, show } from './dom.js';
import { LANGUAGES, STRINGS } from './strings.js';
import { mountLanguageSwitch, onLanguageChange, t } from './i18n.js';
import { newRoom, roomSummary, joinRoom, roomRecord, roomAnalysis } from './api.js';
import { RoomSocket } from './connection.js';
import { createRoomView } from './room-view.js';
import { createRoom } from './room.js';
import { createAnnouncer, createThresholds } from './announce.js';
import { KIOSK_STRINGS } from './kiosk-strings.js';
import { startDemo } from './kiosk-demo.js';
import { Level, Mode, Phase } from './protocol.js';

for (const code of LANGUAGES) Object.assign(STRINGS[code], KIOSK_STRINGS[code]);

/**
 * Seconds without a touch before "still playing?" (the server's `--kiosk-idle`, from
 * GET /api/kiosk; `?idle=` overrides it for the tests), and how long it waits (`?warn=`).
 */
export const IDLE = { fallback: 90, min: 3, max: 3600 };
export const WARN = { fallback: 20, min: 2, max: 300 };
/** Where a reload lands (the URL's fragment, dropped once read): the choice of game, or of language. */
const LANDINGS = { '#play': 'mode', '#language': 'language' };

/** A whole number of seconds from the query parameter `name`, within its bounds. */
function seconds(name, { fallback, min, max }) {
  const value = Number(new URLSearchParams(location.search).get(name));
  return Number.isFinite(value) && value > 0 ? Math.min(max, Math.max(min, Math.round(value))) : fallback;
}

let idleMs = seconds('idle', IDLE) * 1000;
const warnMs = seconds('warn', WARN) * 1000;
const room = part('room');
const screens = { attract: part('kiosk-attract'), language: part('kiosk-language'), mode: part('kiosk-mode'), game: room };
const dialog = part('kiosk-idle');
const announcer = createAnnouncer(part('kiosk-announcements'));
const countdowns = createThresholds();
/** The seat tokens of this page's games, in memory only (the room controller's api asks here). */
const seats = new Map();
let screen = 'attract';
let lastTouch = Date.now();
/** When "still playing?" was shown, or null. */
let warnedAt = null;
let demo = null;

/** Start the kiosk again from scratch, landing on `landing` ('' for the attract screen). */
function reload(landing = '') {
  history.replaceState(null, '', `${location.pathname}${location.search}${landing}`);
  location.reload();
}

function showScreen(name) {
  screen = name;
  document.body.dataset.kiosk = name;
  for (const [key, node] of Object.entries(screens)) show(node, key === name);
  if (name === 'attract') {
    demo = startDemo({ board: part('kiosk-demo-board'), sticks: part('kiosk-demo-sticks'), caption: part('kiosk-caption') });
    part('kiosk-touch').focus();
  } else {
    demo?.stop();
    demo = null;
  }
  if (name === 'language' || name === 'mode') screens[name].querySelector('h1')?.focus();
}

/** The language buttons drive the header's switch, so the choice is made and kept in one place. */
function chooseLanguage(code) {
  const select = part('language');
  select.value = code;
  select.dispatchEvent(new Event('change'));
  showScreen('mode');
}

/** Create an ordinary `local` or `ai` room through the API and play it here. */
async function play(mode) {
  const buttons = [part('kiosk-local'), part('kiosk-ai')];
  const problem = part('kiosk-error');
  for (const button of buttons) button.disabled = true;
  show(problem, false);
  try {
    const options = mode === Mode.Ai ? { mode, side: 'black', level: Level.Easy } : { mode, side: 'black' };
    const seat = await newRoom(options);
    seats.set(seat.room, seat);
    startGame(seat.room);
  } catch {
    problem.textContent = t('kiosk.unreachable');
    show(problem, true);
    for (const button of buttons) button.disabled = false;
  }
}

function startGame(roomId) {
  const api = {
    roomSummary,
    joinRoom,
    roomRecord,
    roomAnalysis,
    saveSeat: (id, seat) => seats.set(id, seat),
    loadSeat: (id) => seats.get(id) ?? null,
    forgetSeat: (id) => seats.delete(id),
    // The chat, the only part that asks for an identity, is not shown in the kiosk.
    createMe: () => Promise.reject(new Error('no identity in the kiosk')),
  };
  const game = createRoom(room, {
    roomId,
    api,
    connect: (id, token, handlers) => new RoomSocket(id, token, handlers),
    createView: createRoomView,
    // The room's own ways elsewhere (a reload offer, a rematch's room) lead back to the choice.
    navigate: () => reload('#play'),
  });
  onLanguageChange(game.relabel);
  room.dataset.phase = 'loading';
  showScreen('game');
  game.start();
}

function countdownText() {
  const left = Math.max(0, Math.ceil((warnedAt + warnMs - Date.now()) / 1000));
  return { left, text: t('kiosk.countdown', { n: left }) };
}

function warn() {
  warnedAt = Date.now();
  part('kiosk-countdown').textContent = countdownText().text;
  dialog.showModal();
}

/** Every quarter second: the idle time, and the countdown once "still playing?" is up. */
function checkIdle() {
  if (screen === 'attract') return;
  if (warnedAt === null) {
    if (Date.now() - lastTouch < idleMs) return;
    // A choice screen has nothing to lose: straight back to the attract screen.
    if (screen !== 'game') reload();
    else warn();
    return;
  }
  const { left, text } = countdownText();
  if (left <= 0) {
    reload();
    return;
  }
  const node = part('kiosk-countdown');
  if (node.textContent !== text) node.textContent = text;
  if (countdowns.cross(`idle-${warnedAt}`, left)) announcer.say(text);
}

/** The header's way back: mid-game it asks first (the same question as when left alone). */
function startAgain() {
  const playing = room.dataset.phase === Phase.Roll || room.dataset.phase === Phase.Move;
  if (screen === 'game' && playing) warn();
  else if (screen === 'game') reload('#language');
  else showScreen('language');
}

function wire() {
  for (const type of ['pointerdown', 'keydown', 'wheel']) {
    document.addEventListener(type, () => (lastTouch = Date.now()), { capture: true, passive: true });
  }
  // A click, not a pointerdown: the touch that leaves must not land on the next screen's buttons.
  screens.attract.addEventListener('click', () => showScreen('language'));
  for (const button of screens.language.querySelectorAll('button[data-lang]')) {
    button.addEventListener('click', () => chooseLanguage(/** @type {HTMLElement} */ (button).dataset.lang));
  }
  part('kiosk-local').addEventListener('click', () => play(Mode.Local));
  part('kiosk-ai').addEventListener('click', () => play(Mode.Ai));
  part('kiosk-back').addEventListener('click', () => showScreen('language'));
  part('kiosk-home').addEventListener('click', startAgain);
  part('kiosk-again').addEventListener('click', () => reload('#play'));
  part('kiosk-done').addEventListener('click', () => reload());
  part('kiosk-continue').addEventListener('click', () => dialog.close());
  part('kiosk-leave').addEventListener('click', () => reload());
  // A touch beside the question counts as "yes"; so does Escape (which closes the dialog).
  dialog.addEventListener('click', (event) => {
    if (event.target === dialog) dialog.close();
  });
  dialog.addEventListener('close', () => {
    warnedAt = null;
    lastTouch = Date.now();
  });
  // The room's end card offers the kiosk's two ways on instead of a rematch.
  part('end', room).querySelector('.buttons')?.append(...part('kiosk-end').children);
  part('kiosk-end').remove();
  onLanguageChange(() => demo?.relabel());
  setInterval(checkIdle, 250);
}

/** The server's idle time, unless the address names one; the fallback stands if it cannot say. */
async function loadIdle() {
  if (new URLSearchParams(location.search).has('idle')) return;
  try {
    const response = await fetch('/api/kiosk', { headers: { accept: 'application/json' } });
    const { idle } = await response.json();
    if (Number.isInteger(idle)) idleMs = Math.min(IDLE.max, Math.max(IDLE.min, idle)) * 1000;
  } catch {
    // Not reachable now: the page's default, 90 s.
  }
}

// The room's markup says "loading" until a game's state comes; here there is no game yet.
room.dataset.phase = 'none';
document.body.dataset.kiosk = screen;
mountLanguageSwitch(part('language'));
loadIdle();
wire();
const landing = LANDINGS[location.hash] ?? 'attract';
history.replaceState(null, '', `${location.pathname}${location.search}`);
showScreen(landing);
