// The room page's controller: takes a seat (or watches), keeps the socket, turns server messages
// into the model one at a time (waiting for each animation), and sends the person's actions.
// It is a factory over the page's elements and its outside world (HTTP, socket, navigation), so
// room-page.js wires the real ones and e2e/tests/room-controller.spec.js drives it with a
// scripted server.

import { part } from './dom.js';
import { hasText, t, translate } from './i18n.js';
import { normalizeState, applyEvent, ratingsOf, RATED, seatPlayer } from './state.js';
import { REFUSED, invitation, invited, ratingLine } from './room-view.js';
import { entriesFrom } from './movelog.js';
import { mountVerification } from './verify.js';
import { createReplay } from './replay.js';
import { createAnalysis } from './analysis.js';
import { createAnnouncer, createThresholds, eventSentence, presenceSentence, refusalSentence, sidesOf, turnSentence, who } from './announce.js';
import { runCommand } from './commands.js';
import { createChat } from './chat.js';
import { chime, play, soundOf } from './sound.js';
import { ClientMessage, ErrorCode, Event, Mode, Phase, PROTOCOL, Reply, Status } from './protocol.js';

const PENDING_TIMEOUT_MS = 5000;
/** Whether the text command box was left open (this browser remembers). */
const COMMANDS_OPEN_KEY = 'senet.commands';

/** The sentence for an `error` reply: the reason's or the code's when the tables word it. */
function errorMessage({ code, reason }) {
  if (code === ErrorCode.IllegalMove && hasText(`illegal.${reason}`)) return { key: `illegal.${reason}` };
  if (hasText(`error.${code}`)) return { key: `error.${code}` };
  return { key: 'error.other', params: { code } };
}

/** Runs jobs strictly one after another; `onBusy(busy)` hears when it starts and stops. */
function createQueue(onBusy) {
  const jobs = [];
  let draining = false;

  async function drain() {
    draining = true;
    onBusy(true);
    while (jobs.length > 0) {
      try {
        await jobs.shift()();
      } catch (err) {
        console.error(err);
      }
    }
    draining = false;
    onBusy(false);
  }

  return (job) => {
    jobs.push(job);
    if (!draining) drain();
  };
}

/** Take the server's whole state (on welcome and after a sync). */
function replaceState(model, state) {
  model.state = normalizeState(state);
  model.watchers = model.state.spectators;
  if (model.state.throw) {
    // While the throw is to be played, the side to move threw it.
    model.lastThrow = { ...model.state.throw, side: model.state.phase === Phase.Move ? model.state.turn : null };
    model.lastRoll.value = model.state.throw.value;
  }
  model.seed = model.state.seed ?? model.seed;
}

/** What an event means for the page beyond the state: the sticks, the move list, a message. */
function react(model, type, d) {
  switch (type) {
    case Event.Rolled:
      model.lastThrow = { sticks: d.sticks, value: d.value, side: d.side };
      model.lastRoll.value = d.value;
      model.animateThrow = true;
      model.message = (d.legal ?? []).length === 0 ? { key: 'msg.noMove', params: { side: d.side, value: d.value } } : null;
      break;
    case Event.Moved:
      model.log.push(...entriesFrom([{ t: type, d }], model.lastRoll));
      model.message = d.extra ? { key: 'msg.extra', params: { side: d.side } } : null;
      break;
    case Event.Passed:
      model.log.push(...entriesFrom([{ t: type, d }], model.lastRoll));
      model.message = { key: 'msg.passed', params: { side: d.side, value: d.value, next: d.next } };
      break;
    case Event.DrawOffered:
      model.message = null;
      break;
    case Event.DrawCancelled:
      model.message = { key: `draw.${d.why}`, params: { side: d.side } };
      break;
    case Event.GameOver:
      model.message = null;
      model.seed = d.seed ?? model.seed;
      break;
    default:
      break;
  }
}

/** 16 random bytes as hex: this page's share in the throws (see "Verifying the throws"). */
function newClientSeed() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * With no token for this room: the seat a visitor is invited to take (the free side of a room
 * waiting for its second player), or null to watch. The seat is only taken when they say Join.
 */
async function invitedSide(api, roomId) {
  const summary = await api.roomSummary(roomId);
  if (summary.status !== Status.Waiting) return null;
  return ['black', 'white'].find((side) => !summary.players?.[side]?.seated) ?? null;
}

/**
 * The controller of the room page whose `<main>` is `root`. `deps`:
 * - `roomId`: the room this page shows;
 * - `api`: `roomSummary`, `joinRoom`, `roomRecord`, `roomAnalysis`, `saveSeat`, `loadSeat`,
 *   `forgetSeat`, `createMe` (api.js), and optionally `stumbled(roomId, rule)` when a refused
 *   piece is touched (class-stumbles.js counts it for a pupil's class);
 * - `connect(roomId, token, handlers)`: a socket with `start()`, `send(type, data)` and `reconnect()` that calls
 *   the handlers RoomSocket (connection.js) documents;
 * - `createView(root, {onMove})`: the drawing (createRoomView of room-view.js);
 * - `navigate(url)`: go to another page.
 * Returns `start()`, which takes a seat and connects, and `relabel()` for a language switch.
 */
export function createRoom(root, { roomId, api, connect, createView, navigate }) {
  /**
   * What the page knows: the server's state (its JSON, see docs/PROTOCOL.md) and this page's own.
   * @type {{room: string, seat: string | null, state: any, ready: boolean, pending: number | null, connection: {name: string, at?: number}, lastThrow: any, animateThrow: boolean, lastRoll: {value: number | null}, log: any[], message: {key: string, params?: object} | null, problem: {key: string, params?: object} | null, outdated: boolean, watchers: number, seed: string | null, invited: string | null, joining: boolean}}
   */
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
    // The server speaks a newer protocol than this page was built for (an upgrade while the page
    // was open): the protocol only grows, so play goes on, and the page offers a reload.
    outdated: false,
    watchers: 0,
    seed: null,
    // The side a visitor opening an invitation may take: they watch until they say Join.
    invited: null,
    joining: false,
  };
  /** @type {any} */
  let socket = null;
  // This game's client seed: made when the page opens (a rematch opens a new page, so each game
  // gets a fresh one) and sent only once the server has logged the room's seed hash.
  const clientSeed = newClientSeed();
  let seedSent = false; // on this connection: the server's answer is the `client-seed` event
  const view = createView(root, { onMove: (from) => act(ClientMessage.Move, { from }), onRefused: explainRefusal });
  const loadRecord = () => api.roomRecord(roomId);
  const replay = createReplay(part('replay', root), part('open-replay', root), loadRecord);
  const verification = mountVerification(part('verify', root), part('verify-result', root), loadRecord);
  const analysis = createAnalysis(part('analysis', root), { loadAnalysis: () => api.roomAnalysis(roomId), replay });
  // Server messages are applied strictly in order; a move's animation finishes before the next.
  const enqueue = createQueue((busy) => {
    root.dataset.busy = String(busy);
  });
  const announcer = createAnnouncer(part('announcements', root));
  // A spectator chats under an identity (docs/PROTOCOL.md, "Chat"): the chat offers one, made
  // here and answered once the new socket, whose handshake carries it, is welcomed.
  async function identify() {
    const player = await api.createMe();
    await new Promise((resolve) => {
      onWelcome = resolve;
      socket.reconnect();
    });
    return player;
  }
  let onWelcome = null; // what waits for the next welcome
  const chat = createChat(part('chat', root), { send: (type, data) => socket?.send(type, data) ?? null, say: (text) => announcer.say(text), identify });
  const countdowns = createThresholds();

  // Set once the person throws or moves from the page: from then on the keyboard focus follows
  // the game (to the movable pieces, then back to the throw button) so Enter alone can play.
  let focusFollowsPlay = false;

  /** Redraw, then move the focus to the next action if the focused control went away. */
  function render() {
    view.render(model);
    if (model.state?.phase === Phase.Over) analysis.show();
    if (!focusFollowsPlay) return;
    const document = root.ownerDocument;
    const active = document.activeElement;
    const waiting = part('turn', root);
    // The "waiting for …" sentence holds the focus only until there is something to do again.
    const usable = active && active !== document.body && active !== waiting && active.isConnected && !active.disabled && !active.closest('[hidden]');
    if (usable) return;
    const throwButton = part('throw', root);
    const next = root.querySelector('.piece.movable') ?? (throwButton.hidden || throwButton.disabled ? null : throwButton);
    if (next) next.focus();
    // Nothing to do now (the opponent's turn): the sentence saying whom the game waits for.
    else if (!model.pending && active !== waiting) waiting.focus();
  }

  const ratingsSentence = () => t('rating.changed', { black: ratingLine(model.state, 'black'), white: ratingLine(model.state, 'white') });

  /** Whether the turn just came to this page's only side from the other one (or the game began). */
  function turnCameToUs(type, d) {
    const mine = sidesOf(model.seat);
    if (mine.length !== 1) return false;
    if (type === Event.Started) return true;
    return (type === Event.Moved || type === Event.Passed) && d.next === mine[0] && d.side !== mine[0];
  }

  /** Whether this page's seat is bound to a player (the state names its id). */
  function identified() {
    return model.state.rated || sidesOf(model.seat).some((side) => seatPlayer(model.state.players[side]));
  }

  /**
   * Say what an event means, sound it (a throw, a move and what it did: the server's `effect`),
   * chime when the turn comes to us, and focus the result at the end. Only events as they
   * happen get here: a page opened mid-game is silent about the moves before it.
   */
  function tell(type, d, before) {
    if (type === RATED) announcer.say(ratingsSentence());
    else announcer.say(type === Event.Presence ? presenceSentence(model, before.players, model.state.players) : eventSentence(model, type, d));
    const sound = soundOf(type, d);
    if (sound) play(root, sound);
    if (turnCameToUs(type, d)) chime(root);
    if (type === Event.GameOver) part('end-title', root).focus();
  }

  /** The countdowns a screen reader hears at 60, 30 and 10 s: the running clock and the claim. */
  function announceCountdowns() {
    const s = model.state;
    if (!s || (s.phase !== Phase.Roll && s.phase !== Phase.Move)) return;
    if (s.clock?.running) {
      const side = s.clock.running;
      const seconds = Math.ceil(view.remaining(side) / 1000);
      if (countdowns.cross(`clock-${side}-${s.clock.remaining[side]}`, seconds)) announcer.say(t('say.clock', { who: who(model, side), s: seconds }));
    }
    const mine = sidesOf(model.seat);
    if (mine.length !== 1) return;
    const other = s.players[mine[0] === 'black' ? 'white' : 'black'];
    if (other.connected || other.claim_at == null) return;
    const seconds = Math.ceil((other.claim_at - Date.now()) / 1000);
    if (seconds > 0 && countdowns.cross(`claim-${other.claim_at}`, seconds)) announcer.say(view.claimSentence(model));
  }

  function act(type, data = {}) {
    if (model.pending || !socket) return;
    if (type === ClientMessage.Roll || type === ClientMessage.Move) focusFollowsPlay = true;
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

  /**
   * Send this page's client seed when the room takes it (`client_seeds_open`: from `started` until
   * the first throw) and a seat of ours does not have it yet. Not an `act`: it waits for nothing.
   */
  function offerSeed() {
    const s = model.state;
    const ours = sidesOf(model.seat);
    if (seedSent || !socket || !s?.client_seeds_open || ours.every((side) => s.client_seeds[side] === clientSeed)) return;
    seedSent = socket.send(ClientMessage.Seed, { client_seed: clientSeed }) !== null;
  }

  /** Fill the move list (and the seed of a finished game) from the record, up to version `upTo`. */
  async function loadHistory(upTo) {
    let record;
    try {
      record = await loadRecord();
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
        model.outdated = (d.protocol ?? PROTOCOL) > PROTOCOL;
        replaceState(model, d.state);
        chat.setState(model.state, model.seat, Boolean(d.identified));
        model.pending = null;
        seedSent = false;
        offerSeed();
        render();
        announcer.say(model.state.phase === Phase.Over ? '' : invited(model) ? invitation(model).sentence : turnSentence(model));
        // The one thing to do on an invitation: Enter accepts it.
        if (invited(model)) part('join', root).focus();
        loadHistory(model.state.v);
        onWelcome?.();
        onWelcome = null;
      });
    },
    state(d) {
      enqueue(() => {
        replaceState(model, d);
        chat.setState(model.state, model.seat);
        if (d.id === model.pending) model.pending = null;
        offerSeed();
        render();
      });
    },
    event(type, d) {
      enqueue(async () => {
        if (!model.state) return;
        if (type === Event.Moved) await view.animateMove(d);
        const before = model.state;
        model.state = applyEvent(model.state, type, d);
        chat.seats(model.state);
        // A player who just turned the spectators' channel on reads what was said there before.
        if (type === Event.ChatSet && d.side === model.seat && d.spectators) socket.send(ClientMessage.Sync);
        if (chat.event(type, d)) return;
        react(model, type, d);
        offerSeed();
        render();
        tell(type, d, before);
        // Who took the other seat (their name and rating) is in the state, not in `started`:
        // asked for only by a player with an identity (a rated room's are always identified), so
        // anonymous games keep one message and a clock that is never re-read.
        if (type === Event.Started && model.state.mode === Mode.Online && identified()) socket.send(ClientMessage.Sync);
      });
    },
    reply(type, d) {
      // Answers come after the events the action caused, so clearing here shows the new state.
      enqueue(() => {
        if (chat.reply(type, d)) return;
        if (type === Reply.Pong || d.id !== model.pending) return;
        model.pending = null;
        if (type === Reply.Error) model.message = errorMessage(d);
        render();
      });
    },
    seat(d) {
      // A rematch: our new seat's token, private to this connection. Keep it and go there.
      api.saveSeat(d.room, d);
      navigate(d.url);
    },
    watchers(d) {
      model.watchers = d.count;
      render();
    },
    rated(d) {
      enqueue(() => {
        if (!model.state) return;
        model.state = { ...model.state, ratings: ratingsOf(d) };
        render();
        announcer.say(ratingsSentence());
      });
    },
    refused(d) {
      model.problem = d.code === ErrorCode.RoomNotFound ? { key: 'room.notFound' } : errorMessage(d);
      render();
    },
    tokenRejected() {
      api.forgetSeat(roomId);
      model.problem = { key: 'seat.lost' };
      render();
    },
  };

  /**
   * The visitor accepts the invitation: take the seat, then say hello again with its token. Taken
   * by someone else meanwhile, the page says so and goes on watching.
   */
  async function join() {
    if (!model.invited || model.joining) return;
    model.joining = true;
    render();
    try {
      const seat = await api.joinRoom(roomId);
      api.saveSeat(roomId, seat);
      model.invited = null;
      focusFollowsPlay = true;
      socket.takeSeat(seat.token);
    } catch (err) {
      model.invited = null;
      model.message = err.code === ErrorCode.RoomFull ? { key: 'join.taken' } : { key: 'room.unreachable' };
    }
    model.joining = false;
    render();
  }

  async function copyInvite() {
    const input = part('invite-link', root);
    const status = part('copy-status', root);
    try {
      await navigator.clipboard.writeText(input.value);
      status.dataset.i18n = 'invite.copied';
    } catch {
      input.select();
      status.dataset.i18n = 'invite.copyFailed';
    }
    translate(part('invite', root));
  }

  function wireControls() {
    const on = (id, listener) => part(id, root).addEventListener('click', listener);
    on('throw', () => act(ClientMessage.Roll));
    on('hint', () => act(ClientMessage.Hint));
    on('offer-draw', () => act(ClientMessage.DrawOffer));
    on('withdraw-draw', () => act(ClientMessage.DrawDecline));
    on('decline-draw', () => act(ClientMessage.DrawDecline));
    on('accept-draw', () => act(ClientMessage.DrawAccept));
    on('claim-victory', () => act(ClientMessage.ClaimVictory));
    on('rematch', () => act(ClientMessage.Rematch));
    const confirm = part('confirm-resign', root);
    on('resign', () => confirm.showModal());
    on('confirm-no', () => confirm.close());
    on('confirm-yes', () => {
      confirm.close();
      act(ClientMessage.Resign);
    });
    on('copy-link', copyInvite);
    on('join', join);
    // The seat token is kept in this browser, so the reloaded page takes the same seat.
    on('reload', () => navigate(`/r/${roomId}`));
    part('board', root).addEventListener('click', explainOfflineClick);
    wireCommandBox();
    part('command-form', root).addEventListener('submit', (event) => {
      event.preventDefault();
      command(part('command', root).value);
      part('command', root).value = '';
    });
  }

  /**
   * The text command box sits closed at the end of the side column, out of the thumb's way; "/"
   * anywhere on the page opens it and puts the cursor in it. Opened once, it stays open.
   */
  function wireCommandBox() {
    const box = part('command-box', root);
    box.open = localStorage.getItem(COMMANDS_OPEN_KEY) === 'true';
    box.addEventListener('toggle', () => localStorage.setItem(COMMANDS_OPEN_KEY, String(box.open)));
    root.ownerDocument.addEventListener('keydown', (event) => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.target instanceof Element && event.target.closest('input, textarea, select, [contenteditable]')) return;
      event.preventDefault();
      box.open = true;
      part('command', root).focus();
    });
  }

  /**
   * A piece of ours that the throw cannot move was touched (click, tap, Enter): say why, in the
   * server's words for it, on the status line and politely to a screen reader.
   */
  function explainRefusal(from) {
    const refusal = model.state?.refused.find((refused) => refused.from === from);
    if (!refusal) return;
    model.message = { key: REFUSED, params: { n: from, reason: refusal.reason } };
    render();
    announcer.say(refusalSentence(from, refusal.reason));
    api.stumbled?.(roomId, refusal.reason);
  }

  /** A click on the board while the connection is down: say why nothing happens. */
  function explainOfflineClick() {
    const playing = model.state?.phase === Phase.Roll || model.state?.phase === Phase.Move;
    if (model.ready || !playing || sidesOf(model.seat).length === 0) return;
    model.message = { key: 'conn.clickOffline' };
    render();
  }

  /** Run a text command: an action is sent, anything else is answered in the status line. */
  function command(text) {
    if (!text.trim()) return;
    const { action, from, say } = runCommand(text, model, { remaining: view.remaining });
    if (action === 'roll') act(ClientMessage.Roll);
    else if (action === 'move') act(ClientMessage.Move, { from });
    const answer = part('command-answer', root);
    // The same answer twice is said twice: the status line is emptied first.
    answer.textContent = '';
    if (say) setTimeout(() => (answer.textContent = say), 50);
  }

  async function start() {
    wireControls();
    setInterval(() => {
      view.tick(model);
      announceCountdowns();
    }, 1000);
    render();
    const seat = api.loadSeat(roomId);
    if (!seat) {
      try {
        model.invited = await invitedSide(api, roomId);
      } catch (err) {
        model.problem = { key: err.status === 404 ? 'room.notFound' : 'room.unreachable' };
        model.connection = { name: 'closed' };
        render();
        return;
      }
    }
    socket = connect(roomId, seat?.token, handlers);
    socket.start();
  }

  function relabel() {
    announcer.clear();
    chat.relabel();
    view.relabel();
    replay.relabel();
    verification.relabel();
    analysis.relabel();
    render();
  }

  return { start, relabel };
}
