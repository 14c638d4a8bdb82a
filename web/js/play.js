// The /play page: open games anyone may take (seeks), quick pairing, and the games in progress
// to watch, kept live by the lobby socket (docs/PROTOCOL.md, "The lobby"). A seek this page
// posted is held on the socket, so it stays listed while the page is open (a reload keeps it:
// it is remembered for this tab), and the page moves into the room when someone takes it.

import { el, part, show } from './dom.js';
import { mountLanguageSwitch, onLanguageChange, sideName, t } from './i18n.js';
import { LANGUAGES, STRINGS } from './strings.js';
import { PLAY_STRINGS } from './play-strings.js';
import { cancelSeek, pairUp, postSeek, roomPage, roomSummary, saveSeat, takeSeek } from './api.js';
import { ErrorCode, LobbyFrame, LobbyMessage, SeekGone, Status } from './protocol.js';
import { playerLabel } from './players-view.js';
import { CORRESPONDENCE, presetLabel } from './clock.js';

for (const code of LANGUAGES) Object.assign(STRINGS[code], PLAY_STRINGS[code]);

/** The time controls offered: untimed, then initial + increment in seconds. */
const CLOCKS = [null, { initial: 180, increment: 2 }, { initial: 300, increment: 3 }, { initial: 600, increment: 5 }, ...CORRESPONDENCE];
/** The ends a range's empty field stands for (the server takes both ends or none). */
const RANGE_LOWEST = 0;
const RANGE_HIGHEST = 9999;
const OWN_KEY = 'senet.ownSeek';
const VISITOR_KEY = 'senet.visitor';

const problem = part('play-error');
const seeks = new Map();
let games = [];
let more = false;
let socket = null;
let retryIn = 500;
/** `{room, url, seat, token, quick}` of the seek this tab posted and waits on, or null. */
let own = loadOwn();

function loadOwn() {
  try {
    return JSON.parse(sessionStorage.getItem(OWN_KEY) ?? 'null');
  } catch {
    return null;
  }
}

function setOwn(seek) {
  own = seek;
  if (seek) sessionStorage.setItem(OWN_KEY, JSON.stringify(seek));
  else sessionStorage.removeItem(OWN_KEY);
  renderWaiting();
  renderSeeks();
}

/** This browser's id in the lobby, so quick pairing never pairs it with its own seek. */
function visitor() {
  let id = localStorage.getItem(VISITOR_KEY);
  if (!id) {
    id = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');
    localStorage.setItem(VISITOR_KEY, id);
  }
  return id;
}

function clockText(clock) {
  if (!clock) return t('play.untimed');
  if (clock.days) return presetLabel(clock);
  return t('play.clockValue', { min: clock.initial / 60, inc: clock.increment });
}

function fillClocks(select) {
  const chosen = select.value;
  select.replaceChildren(...CLOCKS.map((clock, i) => el('option', { value: i, text: clockText(clock) })));
  select.value = chosen || '0';
}

function report(err) {
  const key = {
    [ErrorCode.SeekTaken]: 'play.taken',
    [ErrorCode.TooManySeeks]: 'play.tooMany',
    [ErrorCode.SeekOpen]: 'play.alreadyOpen',
    [ErrorCode.RatedNeedsPlayer]: 'rating.needsPlayer',
  }[err.code] ?? err.key;
  problem.textContent = key ? t(key) : t(err.status === 0 ? 'lobby.unreachable' : 'play.refused', { code: err.code });
  show(problem, true);
}

function enter(seat) {
  saveSeat(seat.room, seat);
  setOwn(null);
  location.assign(seat.url ?? roomPage(seat.room));
}

async function busy(button, work) {
  button.disabled = true;
  show(problem, false);
  try {
    await work();
  } catch (err) {
    report(err);
  }
  // Enabled again, except the buttons an open game of ours keeps off until it is cancelled or
  // taken: a second click would post a second game that Cancel does not remove.
  button.disabled = false;
  renderWaiting();
}

function waitOn(seat, quick) {
  saveSeat(seat.room, seat);
  setOwn({ room: seat.room, url: seat.url, seat: seat.seat, token: seat.token, quick });
  hold();
}

function hold() {
  if (own && socket?.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify({ t: LobbyMessage.Hold, d: { room: own.room, token: own.token } }));
  }
}

function renderWaiting() {
  show(part('waiting'), own !== null);
  if (own) part('waiting-text').textContent = t(own.quick ? 'play.looking' : 'play.waitingSeek');
  for (const button of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('[data-testid="quick-pair"], [data-testid="post-seek"]'))) {
    button.disabled = own !== null;
  }
}

/** A seek's range as listed; an end left open in the form is shown as open. */
function rangeText([min, max]) {
  if (min <= RANGE_LOWEST) return t('play.rangeAtMost', { max });
  if (max >= RANGE_HIGHEST) return t('play.rangeAtLeast', { min });
  return t('play.rangeBetween', { min, max });
}

function seekItem(seek) {
  const what = seek.side === 'random' ? t('play.sidesRandom') : t('play.youPlay', { side: sideName(seek.side === 'black' ? 'white' : 'black') });
  const mine = own?.room === seek.room;
  const range = seek.range ? ` · ${rangeText(seek.range)}` : '';
  const label = `${what} · ${clockText(seek.clock)} · ${t(seek.rated ? 'rating.rated' : 'rating.casual')}${range}`;
  const action = mine
    ? el('span', { class: 'hint', text: t('play.yours') })
    : el('button', { type: 'button', class: 'primary', 'data-testid': 'take-seek', 'aria-label': `${t('play.take')}: ${label}`, text: t('play.take'), onclick: (event) => busy(event.target, async () => enter(await takeSeek(seek.room))) });
  const who = seek.player ? [playerLabel(seek.player), ' · '] : [];
  return el('li', { 'data-room': seek.room, 'data-testid': 'seek' }, el('span', { class: 'what' }, ...who, label), action);
}

function renderSeeks() {
  const list = [...seeks.values()].sort((a, b) => b.at - a.at || (a.room < b.room ? 1 : -1));
  part('seeks').replaceChildren(...list.map(seekItem));
  show(part('no-seeks'), list.length === 0);
  show(part('more-seeks'), more);
}

function renderGames() {
  part('games').replaceChildren(
    ...games.map((game) => {
      const label = [clockText(game.clock), t('play.moves', { n: game.moves }), t('play.watching', { n: game.spectators })].join(' · ');
      const players = game.players?.black || game.players?.white ? [playerLabel(game.players.black), ' – ', playerLabel(game.players.white), ' · '] : [];
      return el('li', { 'data-room': game.room, 'data-testid': 'game' },
        el('span', { class: 'what' }, ...players, label),
        el('a', { class: 'button', href: roomPage(game.room), 'aria-label': `${t('play.watch')}: ${label}`, text: t('play.watch') }));
    }),
  );
  show(part('no-games'), games.length === 0);
}

/** Our own seek left the list: into the room if taken, else forget it. */
function ownGone(why) {
  if (why === SeekGone.Taken) enter(own);
  else setOwn(null);
}

/** Our seek is no longer open, for a reason we did not hear: the room tells whether it was taken.
 * A `changes` frame may settle it first (and enter the room): then the answer is not needed. */
function settleOwn() {
  const seek = own;
  roomSummary(seek.room).then(
    (summary) => {
      if (own === seek) ownGone(summary.status === Status.Waiting ? SeekGone.Withdrawn : SeekGone.Taken);
    },
    () => {
      if (own === seek) setOwn(null);
    },
  );
}

/** One batch of the lobby's changes: seeks added, then seeks gone, and the games if they changed. */
function applyChanges({ added, gone, games: changed }) {
  for (const seek of added) seeks.set(seek.room, seek);
  for (const { room, why } of gone) {
    seeks.delete(room);
    if (own?.room === room) ownGone(why);
  }
  renderSeeks();
  if (changed) {
    games = changed;
    renderGames();
  }
}

function onFrame(frame) {
  const d = frame.d ?? {};
  switch (frame.t) {
    case LobbyFrame.Lobby:
      seeks.clear();
      for (const seek of d.seeks) seeks.set(seek.room, seek);
      more = d.more;
      games = d.games;
      renderSeeks();
      renderGames();
      break;
    case LobbyFrame.Seeks:
      for (const seek of d.seeks) seeks.set(seek.room, seek);
      more = d.more;
      renderSeeks();
      break;
    case LobbyFrame.Changes:
      applyChanges(d);
      break;
    case LobbyFrame.Error:
      // Our seek could not be held: it was taken while we were away, or it is gone.
      if (own && d.code === ErrorCode.SeekTaken) settleOwn();
      break;
    default:
      break;
  }
}

function connect() {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  socket = new WebSocket(`${scheme}://${location.host}/ws/lobby`);
  socket.addEventListener('open', () => {
    retryIn = 500;
    show(part('play-offline'), false);
    hold();
  });
  socket.addEventListener('message', (event) => onFrame(JSON.parse(event.data)));
  socket.addEventListener('close', () => {
    show(part('play-offline'), true);
    setTimeout(connect, retryIn);
    retryIn = Math.min(retryIn * 2, 10_000);
  });
}

function chosenClock(form) {
  return CLOCKS[Number(new FormData(form).get('clock'))] ?? null;
}

/** `{rated: true}` when the form chose a rated game; nothing for casual, the server's default. */
function ratedChoice(form) {
  return new FormData(form).get('rated') === 'true' ? { rated: true } : {};
}

/** `{range: [min, max]}` when the form set either end, nothing for any opponent; throws
 * `play.rangeOrder` (shown like the server's refusals) when the ends are out of order. */
function rangeChoice(form) {
  const data = new FormData(form);
  const [min, max] = ['rangeMin', 'rangeMax'].map((name) => String(data.get(name) ?? '').trim());
  if (min === '' && max === '') return {};
  const range = [min === '' ? RANGE_LOWEST : Number(min), max === '' ? RANGE_HIGHEST : Number(max)];
  if (range[0] > range[1]) throw Object.assign(new Error('range'), { key: 'play.rangeOrder' });
  return { range };
}

function start() {
  mountLanguageSwitch(part('language'));
  const selects = [part('quick-clock'), part('seek-clock')];
  const relabel = () => {
    selects.forEach(fillClocks);
    renderWaiting();
    renderSeeks();
    renderGames();
  };
  onLanguageChange(relabel);
  relabel();

  const quick = part('quick-form');
  quick.addEventListener('submit', (event) => {
    event.preventDefault();
    if (own) return;
    busy(part('quick-pair'), async () => {
      const answer = await pairUp({ clock: chosenClock(quick), visitor: visitor(), ...ratedChoice(quick), ...rangeChoice(quick) });
      if (answer.paired) enter(answer);
      else waitOn(answer, true);
    });
  });
  const seekForm = part('seek-form');
  seekForm.addEventListener('submit', (event) => {
    event.preventDefault();
    if (own) return;
    busy(part('post-seek'), async () => {
      const side = new FormData(seekForm).get('side') ?? 'random';
      const choice = { side, clock: chosenClock(seekForm), visitor: visitor(), ...ratedChoice(seekForm), ...rangeChoice(seekForm) };
      waitOn(await postSeek(choice), false);
    });
  });
  part('cancel-seek').addEventListener('click', (event) => busy(event.target, async () => {
    if (!own) return;
    try {
      await cancelSeek(own.room, own.token);
      setOwn(null);
    } catch (err) {
      // Taken (or withdrawn) just before: go where the room says.
      if (err.code !== ErrorCode.SeekTaken) throw err;
      settleOwn();
    }
  }));
  part('more-seeks').addEventListener('click', () => {
    const oldest = [...seeks.values()].sort((a, b) => a.at - b.at || (a.room < b.room ? -1 : 1))[0];
    if (oldest && socket?.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify({ t: LobbyMessage.More, d: { at: oldest.at, room: oldest.room } }));
    }
  });
  connect();
}

start();
