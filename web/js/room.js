// The room page's controller: takes a seat (or watches), keeps the socket, turns server messages
// into the model one at a time (waiting for each animation), and sends the person's actions.

import { part } from './dom.js';
import { mountLanguageSwitch, onLanguageChange, translate } from './i18n.js';
import { roomSummary, joinRoom, roomRecord, saveSeat, loadSeat, forgetSeat } from './api.js';
import { RoomSocket } from './connection.js';
import { normalizeState, applyEvent } from './state.js';
import { entriesFrom } from './movelog.js';
import { createRoomView } from './room-view.js';
import { mountVerification } from './verify.js';
import { createReplay } from './replay.js';

/** Error codes that have their own sentence in the tables; others get a generic one. */
const KNOWN_ERRORS = new Set([
  'not_seated', 'not_your_turn', 'must_roll', 'already_rolled', 'illegal_move', 'game_over',
  'game_not_started', 'no_draw_offer', 'draw_not_allowed', 'cannot_claim', 'rematch_not_available',
  'too_many_messages',
]);
const ILLEGAL_REASONS = new Set([
  'no_own_piece', 'occupied_by_own', 'safe_square', 'blocked', 'must_stop_on_26', 'not_exact_to_bear_off',
]);

const PENDING_TIMEOUT_MS = 5000;
const root = part('room');
const roomId = decodeURIComponent(location.pathname.split('/')[2] ?? '');

const model = {
  room: roomId,
  seat: null,
  state: null,
  ready: false,
  pending: null, // id of the action sent and not yet answered: controls wait for it
  connection: { name: 'connecting', at: 0 },
  lastThrow: null,
  animateThrow: false,
  lastRoll: { value: null },
  log: [],
  message: null,
  problem: null,
  watchers: 0,
  seed: null,
};

let socket = null;
const view = createRoomView(root, { onMove: (from) => act('move', { from }) });
const loadRecord = () => roomRecord(roomId);
const replay = createReplay(part('replay'), part('open-replay'), loadRecord);
const verification = mountVerification(part('verify'), part('verify-result'), loadRecord);

// Server messages are applied strictly in order; a move's animation finishes before the next.
const queue = [];
let draining = false;

function enqueue(job) {
  queue.push(job);
  if (!draining) drain();
}

async function drain() {
  draining = true;
  root.dataset.busy = 'true';
  while (queue.length > 0) {
    try {
      await queue.shift()();
    } catch (err) {
      console.error(err);
    }
  }
  draining = false;
  root.dataset.busy = 'false';
}

// Set once the person throws or moves from the page: from then on the keyboard focus follows
// the game (to the movable pieces, then back to the throw button) so Enter alone can play.
let focusFollowsPlay = false;

/** Redraw, then move the focus to the next action if the focused control went away. */
function render() {
  view.render(model);
  if (!focusFollowsPlay) return;
  const active = document.activeElement;
  const usable = active && active !== document.body && active.isConnected && !active.disabled && !active.closest('[hidden]');
  if (usable) return;
  const throwButton = part('throw', root);
  const next = root.querySelector('.piece.movable') ?? (throwButton.hidden || throwButton.disabled ? null : throwButton);
  next?.focus();
}

function act(type, data = {}) {
  if (model.pending || !socket) return;
  if (type === 'roll' || type === 'move') focusFollowsPlay = true;
  const id = socket.send(type, data);
  if (id === null) return;
  model.pending = id;
  // Every action is answered (ack or error); this only guards against a lost answer.
  setTimeout(() => {
    if (model.pending !== id) return;
    model.pending = null;
    render();
  }, PENDING_TIMEOUT_MS);
  render();
}

function replaceState(state) {
  model.state = normalizeState(state);
  model.watchers = model.state.spectators;
  if (model.state.throw) {
    model.lastThrow = model.state.throw;
    model.lastRoll.value = model.state.throw.value;
  }
  model.seed = model.state.seed ?? model.seed;
}

/** Fill the move list (and the seed of a finished game) from the record, up to version `upTo`. */
async function loadHistory(upTo) {
  let record;
  try {
    record = await roomRecord(roomId);
  } catch {
    return; // the list then starts from now; the game itself is unaffected
  }
  enqueue(() => {
    const lastRoll = { value: null };
    const earlier = (record.events ?? []).filter((event) => event.v <= upTo).map((event) => ({ t: event.t, d: { ...event.d, v: event.v } }));
    const recorded = entriesFrom(earlier, lastRoll);
    model.log = [...recorded, ...model.log.filter((entry) => entry.v > upTo)];
    if (model.lastRoll.value === null) model.lastRoll.value = lastRoll.value;
    model.seed = model.seed ?? record.seed ?? null;
    render();
  });
}

/** What an event means for the page beyond the state: the sticks, the move list, a message. */
function react(type, d) {
  switch (type) {
    case 'rolled':
      model.lastThrow = { sticks: d.sticks, value: d.value };
      model.lastRoll.value = d.value;
      model.animateThrow = true;
      model.message = (d.legal ?? []).length === 0 ? { key: 'msg.noMove', params: { side: d.side, value: d.value } } : null;
      break;
    case 'moved':
      model.log.push(...entriesFrom([{ t: type, d }], model.lastRoll));
      model.message = d.extra ? { key: 'msg.extra', params: { side: d.side } } : null;
      break;
    case 'passed':
      model.log.push(...entriesFrom([{ t: type, d }], model.lastRoll));
      model.message = { key: 'msg.passed', params: { side: d.side, value: d.value, next: d.next } };
      break;
    case 'draw-offered':
      model.message = null;
      break;
    case 'draw-cancelled':
      model.message = { key: `draw.${d.why}`, params: { side: d.side } };
      break;
    case 'game-over':
      model.message = null;
      model.seed = d.seed ?? model.seed;
      break;
    default:
      break;
  }
}

function errorMessage(d) {
  if (d.code === 'illegal_move' && ILLEGAL_REASONS.has(d.reason)) return { key: `illegal.${d.reason}` };
  if (KNOWN_ERRORS.has(d.code)) return { key: `error.${d.code}` };
  return { key: 'error.other', params: { code: d.code } };
}

const handlers = {
  status(name, detail) {
    model.connection = { name, ...detail };
    model.ready = name === 'open';
    if (name !== 'open') model.pending = null;
    render();
  },
  welcome(d) {
    enqueue(() => {
      model.seat = d.seat;
      replaceState(d.state);
      model.pending = null;
      render();
      loadHistory(model.state.v);
    });
  },
  state(d) {
    enqueue(() => {
      replaceState(d);
      if (d.id === model.pending) model.pending = null;
      render();
    });
  },
  event(type, d) {
    enqueue(async () => {
      if (!model.state) return;
      if (type === 'moved') await view.animateMove(d);
      model.state = applyEvent(model.state, type, d);
      react(type, d);
      render();
    });
  },
  reply(type, d) {
    // Answers come after the events the action caused, so clearing here shows the new state.
    enqueue(() => {
      if (type === 'pong' || d.id !== model.pending) return;
      model.pending = null;
      if (type === 'error') model.message = errorMessage(d);
      render();
    });
  },
  seat(d) {
    // A rematch: our new seat's token, private to this connection. Keep it and go there.
    saveSeat(d.room, d);
    location.assign(d.url ?? `/r/${encodeURIComponent(d.room)}`);
  },
  watchers(d) {
    model.watchers = d.count;
    render();
  },
  tokenRejected() {
    forgetSeat(roomId);
    model.problem = { key: 'seat.lost' };
    render();
  },
};

/** With no token for this room: take the free seat if there is one, else watch. */
async function takeFreeSeat() {
  const summary = await roomSummary(roomId);
  const free = ['black', 'white'].some((side) => !summary.players?.[side]?.seated);
  if (summary.status !== 'waiting' || !free) return null;
  try {
    const seat = await joinRoom(roomId);
    saveSeat(roomId, seat);
    return seat;
  } catch (err) {
    if (err.code === 'room_full') return null;
    throw err;
  }
}

function wireControls() {
  part('throw').addEventListener('click', () => act('roll'));
  part('offer-draw').addEventListener('click', () => act('draw-offer'));
  part('withdraw-draw').addEventListener('click', () => act('draw-decline'));
  part('decline-draw').addEventListener('click', () => act('draw-decline'));
  part('accept-draw').addEventListener('click', () => act('draw-accept'));
  part('claim-victory').addEventListener('click', () => act('claim-victory'));
  part('rematch').addEventListener('click', () => act('rematch'));
  const confirm = part('confirm-resign');
  part('resign').addEventListener('click', () => confirm.showModal());
  part('confirm-no').addEventListener('click', () => confirm.close());
  part('confirm-yes').addEventListener('click', () => {
    confirm.close();
    act('resign');
  });
  part('copy-link').addEventListener('click', copyInvite);
}

async function copyInvite() {
  const input = part('invite-link');
  const status = part('copy-status');
  try {
    await navigator.clipboard.writeText(input.value);
    status.dataset.i18n = 'invite.copied';
  } catch {
    input.select();
    status.dataset.i18n = 'invite.copyFailed';
  }
  translate(part('invite'));
}

async function start() {
  mountLanguageSwitch(part('language'));
  onLanguageChange(() => {
    view.relabel();
    replay.relabel();
    verification.relabel();
    render();
  });
  wireControls();
  setInterval(() => view.tick(model), 1000);
  render();
  let seat = loadSeat(roomId);
  if (!seat) {
    try {
      seat = await takeFreeSeat();
    } catch (err) {
      model.problem = { key: err.status === 404 ? 'room.notFound' : 'room.unreachable' };
      model.connection = { name: 'closed' };
      render();
      return;
    }
  }
  socket = new RoomSocket(roomId, seat?.token, handlers);
  socket.start();
}

start();
