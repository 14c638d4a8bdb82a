// The room's WebSocket (docs/PROTOCOL.md, "WebSocket"): says hello with the seat token, keeps the
// event versions consecutive (asking for a fresh state on a gap), and reconnects by itself with
// exponential backoff. It knows nothing about the page; it hands messages to its handlers.

import { ClientMessage, ErrorCode, Reply } from './protocol.js';
import { RATED } from './state.js';

const RETRY_BASE_MS = 500;
const RETRY_MAX_MS = 10_000;
const PING_EVERY_MS = 15_000;
// Nothing heard this long after a message was sent (an action, a ping): the server behind the
// socket is gone or stopped even if the browser has not noticed (a phone that changed networks;
// a paused instance, whose kernel still holds the connection), so drop it and reconnect. A live
// server answers within its request deadline (1.5 s, docs/PROTOCOL.md), `unavailable` at worst.
const ANSWER_LIMIT_MS = 2_500;
// A connection not welcomed this long after it began: the same, at the handshake (nginx waits
// on a stopped instance for as long as it is stopped).
const WELCOME_LIMIT_MS = 4_000;
// The server closed this socket because the same seat opened newer ones (another tab): trying
// again would push one of those out in turn.
const CLOSE_SEAT_ELSEWHERE = 4000;
// An operator banned this address while the socket was open (issue 44): every new request is
// refused too, so trying again would only fail.
const CLOSE_BANNED = 4003;

/**
 * Handlers: `status(name, detail)` with name "connecting" | "open" | "retrying" (detail.at = ms
 * timestamp of the next try) | "displaced" (the seat was opened elsewhere; no retry) | "banned" (an
 * operator barred this address; no retry) | "closed"
 * (the hello was refused for good; no retry);
 * `welcome(d)`; `state(d)`; `event(t, d)` for versioned room events in order; `reply(t, d)` for
 * ack/error/pong (an event that answers an action is passed on as an ack too); `seat(d)`;
 * `watchers(d)`; `rated(d)` for a rated game's rating changes after its end; `tokenRejected()` when the server refuses the seat token (the socket then
 * watches); `refused(d)` with the server's error when it refuses the hello for a reason that
 * asking again would not change (the room gone since the handshake).
 */
export class RoomSocket {
  #url;
  #token;
  #handlers;
  /** @type {WebSocket | null} */
  #ws = null;
  #welcomed = false;
  #attempt = 0;
  /** @type {number | undefined} */
  #retryTimer = undefined;
  /** @type {number | undefined} */
  #pingTimer = undefined;
  /** @type {number | undefined} */
  #answerTimer = undefined;
  /** @type {number | undefined} */
  #welcomeTimer = undefined;
  #lastVersion = 0;
  #syncing = false;
  #nextId = 1;
  #stopped = false; // given up for good: neither a retry nor the network's return reconnects

  constructor(roomId, token, handlers) {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    this.#url = `${scheme}//${location.host}/ws/rooms/${encodeURIComponent(roomId)}`;
    this.#token = token;
    this.#handlers = handlers;
  }

  /** Connect now, and again whenever the network comes back. */
  start() {
    this.#connect();
    window.addEventListener('online', () => this.#reconnectNow());
  }

  /** Drop this socket and connect again at once: the new handshake carries the cookies as they are now. */
  reconnect() {
    const ws = this.#ws;
    this.#ws = null;
    this.#welcomed = false;
    this.#stopTimers();
    ws?.close();
    this.#attempt = 0;
    this.#connect();
  }

  /** Take up a seat's token (a visitor who accepted an invitation) and say hello again with it. */
  takeSeat(token) {
    this.#token = token;
    this.reconnect();
  }

  /** Stop for good, without a retry (a dashboard dropping the board of a game that ended). */
  close() {
    clearTimeout(this.#retryTimer);
    this.#stopped = true;
    if (this.#ws) this.#stop(this.#ws, 'closed');
  }

  /** True once the server has welcomed this connection. */
  get ready() {
    return this.#welcomed && this.#ws?.readyState === WebSocket.OPEN;
  }

  /** Send an action; returns its id (echoed in the reply), or null when not connected. */
  send(type, data = {}) {
    if (!this.ready) return null;
    const id = this.#nextId++;
    this.#ws?.send(JSON.stringify({ t: type, d: { ...data, id } }));
    if (this.#ws) this.#expectAnswer(this.#ws);
    return id;
  }

  #connect() {
    clearTimeout(this.#retryTimer);
    this.#handlers.status('connecting', {});
    const ws = new WebSocket(this.#url);
    this.#ws = ws;
    this.#welcomed = false;
    this.#welcomeTimer = setTimeout(() => this.#drop(ws), WELCOME_LIMIT_MS);
    ws.addEventListener('open', () => this.#hello(ws));
    ws.addEventListener('message', (message) => {
      clearTimeout(this.#answerTimer);
      this.#answerTimer = undefined;
      this.#receive(message.data);
    });
    ws.addEventListener('close', (event) => {
      if (event.code === CLOSE_SEAT_ELSEWHERE) this.#stop(ws, 'displaced');
      else if (event.code === CLOSE_BANNED) this.#stop(ws, 'banned');
      else this.#drop(ws);
    });
  }

  /**
   * Take the seat of the token, or watch without one. `acks: false`: an action is answered by its
   * last event carrying the action's id, not by a separate `ack` (fewer frames).
   */
  #hello(ws) {
    const d = this.#token ? { token: this.#token, acks: false } : { acks: false };
    ws.send(JSON.stringify({ t: ClientMessage.Hello, d }));
  }

  /** Forget a socket that closed or went silent, and try again after a while. */
  #drop(ws) {
    if (this.#ws !== ws) return;
    this.#ws = null;
    this.#welcomed = false;
    this.#stopTimers();
    ws.close();
    this.#scheduleRetry();
  }

  /** Give up on `ws` for good, saying `name`: the server let it go for a newer one of the same seat, or refused its hello. */
  #stop(ws, name) {
    if (this.#ws !== ws) return;
    this.#ws = null;
    this.#welcomed = false;
    this.#stopped = true;
    this.#stopTimers();
    ws.close();
    this.#handlers.status(name, {});
  }

  #scheduleRetry() {
    // Exponential backoff with jitter, so a restarted server is not hit by every page at once.
    const ceiling = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** this.#attempt);
    const delay = Math.round(ceiling * (0.5 + Math.random() / 2));
    this.#attempt += 1;
    this.#retryTimer = setTimeout(() => this.#connect(), delay);
    this.#handlers.status('retrying', { at: Date.now() + delay });
  }

  #reconnectNow() {
    if (this.#ws || this.#stopped) return;
    this.#attempt = 0;
    this.#connect();
  }

  #receive(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    const { t: type, d: data = {} } = message;
    switch (type) {
      case Reply.Welcome:
        this.#welcomed = true;
        clearTimeout(this.#welcomeTimer);
        this.#attempt = 0;
        this.#lastVersion = data.state?.v ?? 0;
        this.#syncing = false;
        this.#startPing();
        this.#handlers.status('open', {});
        this.#handlers.welcome(data);
        break;
      case Reply.State:
        this.#lastVersion = data.v ?? this.#lastVersion;
        this.#syncing = false;
        this.#handlers.state(data);
        break;
      case Reply.Error:
        // Nothing but the hello is sent before the welcome: an error then answers it.
        if (this.#welcomed) this.#handlers.reply(type, data);
        else this.#helloRefused(data);
        break;
      case Reply.Ack:
      case Reply.Pong:
        this.#handlers.reply(type, data);
        break;
      case Reply.Seat:
        this.#handlers.seat(data);
        break;
      case Reply.Watchers:
        this.#handlers.watchers(data);
        break;
      default:
        if (typeof data.v === 'number') this.#event(type, data);
        else if (type === RATED) this.#handlers.rated(data);
    }
  }

  /**
   * The server's error answering the hello. A page must not sit there seatless, with no state
   * and an empty board (issue 30, item 11): a token that holds no seat here (any more) watches
   * instead, and says so; a room slow to answer (`unavailable`, `internal`: a slow or restarting
   * database, a loaded machine) is asked again after the usual backoff, "reconnecting"
   * meanwhile; anything else would be answered the same again, so the page is told why it stops.
   */
  #helloRefused(data) {
    if (data.code === ErrorCode.BadToken) {
      this.#token = null;
      this.#hello(this.#ws);
      this.#handlers.tokenRejected();
    } else if (data.code === ErrorCode.Unavailable || data.code === ErrorCode.Internal) {
      this.#drop(this.#ws);
    } else {
      this.#stop(this.#ws, 'closed');
      this.#handlers.refused(data);
    }
  }

  #event(type, data) {
    this.#eventInOrder(type, data);
    // The event that ends an action answers it, even when it came too early or late to be applied.
    if (data.id != null) this.#handlers.reply(Reply.Ack, { id: data.id, v: data.v });
  }

  #eventInOrder(type, data) {
    if (data.v <= this.#lastVersion) return; // already seen (state was newer)
    if (data.v > this.#lastVersion + 1) {
      // A gap: some events were missed; a fresh state replaces them.
      if (!this.#syncing) {
        this.#syncing = true;
        this.send(ClientMessage.Sync);
      }
      return;
    }
    if (this.#syncing) return;
    this.#lastVersion = data.v;
    this.#handlers.event(type, data);
  }

  #startPing() {
    clearInterval(this.#pingTimer);
    this.#pingTimer = setInterval(() => this.send(ClientMessage.Ping), PING_EVERY_MS);
  }

  /** Something must be heard on `ws` within ANSWER_LIMIT_MS of what was just sent on it. */
  #expectAnswer(ws) {
    if (this.#answerTimer === undefined) this.#answerTimer = setTimeout(() => this.#drop(ws), ANSWER_LIMIT_MS);
  }

  #stopTimers() {
    clearInterval(this.#pingTimer);
    clearTimeout(this.#answerTimer);
    clearTimeout(this.#welcomeTimer);
    this.#answerTimer = undefined;
  }
}
