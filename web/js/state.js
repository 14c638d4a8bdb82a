// The page's copy of the room state: the `State` of docs/PROTOCOL.md, brought up to date by each
// event exactly as the server describes it. Nothing here decides what is legal; `legal` is the
// server's list, `refused` the server's reason for each other piece of the side to move.

import { Event, Phase } from './protocol.js';

const SIDES = ['black', 'white'];

/** The frame a rated game sends after its `game-over` (issue 29): both players' rating changes. */
export const RATED = 'rated';

/** Both sides' `{before, after}` from a `rated` frame. */
export function ratingsOf(d) {
  return { black: d.black, white: d.white };
}

/**
 * A player as the server names one (docs/PROTOCOL.md, PlayerRef).
 * @typedef {{id: string, name: string, named: boolean, deleted?: boolean, rating: number, provisional: boolean}} PlayerRef
 */

/**
 * The player bound to a seat (a PlayerRef flattened into the seat's state), or null.
 * @param {any} seat a seat of the server's state
 * @returns {PlayerRef | null}
 */
export function seatPlayer(seat) {
  return seat?.id ? seat : null;
}

/** The other side. */
export function opponent(side) {
  return side === 'black' ? 'white' : 'black';
}

/** Squares of each side and the number borne off, read from the position notation. */
export function readPosition(position) {
  /** @type {{black: number[], white: number[]}} */
  const squares = { black: [], white: [] };
  for (let i = 0; i < 30; i += 1) {
    if (position[i] === 'B') squares.black.push(i + 1);
    if (position[i] === 'W') squares.white.push(i + 1);
  }
  return {
    squares,
    borneOff: { black: 5 - squares.black.length, white: 5 - squares.white.length },
  };
}

/** A fresh copy of a `State` with every field the page reads present. */
export function normalizeState(state) {
  const players = {};
  for (const side of SIDES) {
    players[side] = { seated: false, connected: false, claim_at: null, ...(state.players?.[side] ?? {}) };
  }
  return {
    ...state,
    players,
    legal: state.legal ?? [],
    refused: state.refused ?? [],
    throw: state.throw ?? null,
    result: state.result ?? null,
    rematch: state.rematch ?? null,
    rematch_offers: state.rematch_offers ?? [],
    draw_offers_spent: state.draw_offers_spent ?? [],
    clock: state.clock ?? null,
    spectators: state.spectators ?? 0,
    hint: state.hint ?? null,
    client_seeds: { black: '', white: '', ...(state.client_seeds ?? {}) },
    client_seeds_open: state.client_seeds_open ?? false,
    rated: state.rated ?? false,
    ratings: state.ratings ?? null,
  };
}

/**
 * A timed game's `clock` after an event: the server's figures wherever an event carries them.
 * A drain's `paused` stops both clocks; `resumed` starts the side to move's (`turn`) again.
 */
function clockAfter(clock, type, d, turn) {
  switch (type) {
    case Event.Started:
      if (!d.clock) return null;
      return { control: d.clock, remaining: { black: d.clock.initial * 1000, white: d.clock.initial * 1000 }, running: d.turn };
    case Event.Moved:
    case Event.Passed:
      return clock && d.clocks ? { ...clock, remaining: d.clocks, running: d.next } : clock;
    case Event.Resumed:
      return clock && { ...clock, remaining: d.clocks, running: turn };
    case Event.Paused:
      return clock && { ...clock, remaining: d.clocks, running: null };
    case Event.GameOver:
      return clock && { ...clock, remaining: d.clocks ?? clock.remaining, running: null };
    default:
      return clock;
  }
}

/** `side`'s turn begins: its opponent has moved, so it may offer a draw again. */
function beginTurn(s, side) {
  s.draw_offers_spent = (s.draw_offers_spent ?? []).filter((spent) => spent !== side);
}

/** The state after one event (the input is not changed). */
export function applyEvent(previous, type, d) {
  const s = { ...previous, players: { black: { ...previous.players.black }, white: { ...previous.players.white } } };
  s.v = d.v;
  s.clock = clockAfter(previous.clock, type, d, previous.turn);
  switch (type) {
    case Event.Started:
      Object.assign(s, { position: d.position, turn: d.turn, phase: Phase.Roll, seed_hash: d.seed_hash });
      Object.assign(s, { client_seeds: { black: '', white: '' }, client_seeds_open: true });
      for (const side of SIDES) s.players[side].seated = true;
      break;
    case Event.ClientSeed:
      s.client_seeds = { ...previous.client_seeds, [d.side]: d.client_seed };
      break;
    case Event.Rolled:
      // With no legal move the phase stays "move" until the server's `passed` follows.
      Object.assign(s, { turn: d.side, phase: Phase.Move, throw: { sticks: d.sticks, value: d.value }, legal: d.legal ?? [], refused: d.refused ?? [] });
      s.client_seeds_open = false;
      break;
    case Event.Hinted:
      s.hint = d.from;
      break;
    case Event.Moved:
      Object.assign(s, { position: d.position, turn: d.next, phase: Phase.Roll, throw: null, legal: [], refused: [], hint: null });
      if (d.next !== d.side) beginTurn(s, d.next);
      break;
    case Event.Passed:
      Object.assign(s, { turn: d.next, phase: Phase.Roll, throw: null, legal: [], refused: [], hint: null });
      beginTurn(s, d.next);
      break;
    case Event.DrawOffered:
      s.draw_offer = d.side;
      s.draw_offers_spent = [...(previous.draw_offers_spent ?? []), d.side];
      break;
    case Event.DrawCancelled:
      s.draw_offer = null;
      break;
    case Event.Presence:
      for (const side of SIDES) if (d[side]) Object.assign(s.players[side], d[side]);
      break;
    case Event.GameOver:
      Object.assign(s, { phase: Phase.Over, throw: null, legal: [], refused: [], draw_offer: null, hint: null });
      s.result = { winner: d.winner, reason: d.reason, note: d.note };
      s.seed = d.seed;
      break;
    case Event.RematchOffered:
      s.rematch_offers = [...(previous.rematch_offers ?? []), d.side];
      break;
    case Event.Rematch:
      s.rematch = d.room;
      break;
    case RATED:
      s.ratings = ratingsOf(d);
      break;
    default:
      break;
  }
  return s;
}
