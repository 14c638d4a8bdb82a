// What a screen reader is told: one sentence per thing that happened (a throw and what it means,
// every move in words, passes, offers, the result), said once and politely into the room's log
// (`role="log"`), in the page's language. The visible texts (whose turn, the message) are not live
// regions, so nothing is said twice; countdowns speak at a few thresholds, never each second.

import { t, sideName } from './i18n.js';
import { Effect, Event, Phase, Seat, Winner } from './protocol.js';
import { opponent } from './state.js';

/** Entries kept in the log: enough to read back the last few turns, bounded. */
const KEPT = 30;
/** Thresholds (seconds left) at which clocks and the claim countdown are announced. */
export const THRESHOLDS = [60, 30, 10];

/** The sides this seat plays: both on one screen, none for a spectator. */
export function sidesOf(seat) {
  if (seat === Seat.Both) return [Seat.Black, Seat.White];
  return seat === Seat.Black || seat === Seat.White ? [seat] : [];
}

/** "You" for this page's only side, else the side's name. */
export function who(model, side) {
  return sidesOf(model.seat).length === 1 && model.seat === side ? t('say.you') : sideName(side);
}

/** Whose turn it is now, in words ("Your turn: throw the sticks.", "White to move."). */
export function turnSentence(model) {
  const { state } = model;
  if (state.phase !== Phase.Roll && state.phase !== Phase.Move) return '';
  const mine = model.seat !== Seat.Both && sidesOf(model.seat).includes(state.turn);
  if (state.phase === Phase.Roll) return mine ? t('turn.yourThrow') : t('turn.throw', { side: sideName(state.turn) });
  return mine ? t('turn.yourMove') : t('turn.move', { side: sideName(state.turn) });
}

/** A move in words: "White moved 9 → 11 and swapped your piece back to 9." */
export function moveSentence(model, d) {
  const params = { who: who(model, d.side), from: d.from, to: d.to };
  switch (d.effect) {
    case Effect.Swap: {
      const victim = opponent(d.side);
      const mine = sidesOf(model.seat).length === 1 && model.seat === victim;
      return t(mine ? 'say.swappedYours' : 'say.swapped', { ...params, other: sideName(victim), back: d.swapped ?? d.from });
    }
    case Effect.Water:
      return t('say.water', { ...params, rest: d.rest });
    case Effect.Off:
      return t('say.off', params);
    default:
      return t('say.moved', params);
  }
}

/**
 * The result in words: the title ("White wins", "Draw", "Game ended"), why (the operator's words
 * for a game the operator ended), and for a one-side seat how it went for you ('' otherwise).
 */
export function resultTexts(model) {
  const { winner, reason, note } = model.state.result ?? {};
  const loser = winner === Winner.Black || winner === Winner.White ? opponent(winner) : null;
  const because = t(`reason.${reason}`, { side: loser ? sideName(loser) : '', note: note ?? '' });
  if (winner === Winner.None) return { title: t('end.ended'), because, you: '' };
  const title = loser ? t('end.wins', { side: sideName(winner) }) : t('end.draw');
  const mine = sidesOf(model.seat);
  let you = '';
  if (mine.length === 1) you = !loser ? t('end.youDrew') : mine[0] === winner ? t('end.youWon') : t('end.youLost');
  return { title, because, you };
}

/** The result in words, for this seat: "You won! All five pieces borne off." */
export function resultSentence(model) {
  const { title, because, you } = resultTexts(model);
  return `${you || title} ${because}`;
}

/** The sentence for an event applied to `model` (state already updated), or '' for none. */
export function eventSentence(model, type, d) {
  switch (type) {
    case Event.Started:
      return `${t('say.started')} ${turnSentence(model)}`;
    case Event.Rolled: {
      const params = { who: who(model, d.side), value: d.value };
      if ((d.legal ?? []).length === 0) return t('say.threwNoMove', params);
      const again = d.value === 1 || d.value === 4 || d.value === 5;
      return t(again ? 'say.threwAgain' : 'say.threw', params);
    }
    case Event.Moved:
      // After a 1, 4 or 5 the same side is to throw again: the turn sentence says so.
      return `${moveSentence(model, d)} ${turnSentence(model)}`;
    case Event.Passed:
      return `${t('say.passes', { next: sideName(d.next) })} ${turnSentence(model)}`;
    case Event.DrawOffered:
      return d.side === model.seat ? t('draw.yours') : t('draw.offered', { side: sideName(d.side) });
    case Event.DrawCancelled:
      return t(`draw.${d.why}`, { side: sideName(d.side) });
    case Event.GameOver:
      return resultSentence(model);
    case Event.RematchOffered:
      return d.side === model.seat ? t('rematch.waiting') : t('rematch.offered', { side: sideName(d.side) });
    case Event.Rematch:
      return t('rematch.ready');
    default:
      return '';
  }
}

/** Who left or came back, from the players before and after a `presence` event. */
export function presenceSentence(model, before, after) {
  return sidesOf(Seat.Both)
    .filter((side) => !sidesOf(model.seat).includes(side))
    .filter((side) => before[side].seated && before[side].connected !== after[side].connected)
    .map((side) => t(after[side].connected ? 'say.back' : 'say.left', { side: sideName(side) }))
    .join(' ');
}

/**
 * The log region `node`: `say(text)` appends one entry (an empty text says nothing). Only new
 * entries are read: the region is `role="log"`, `aria-relevant="additions"`.
 */
export function createAnnouncer(node) {
  let said = 0; // numbers the entries, so a reader can tell the new ones from the kept ones
  return {
    say(text) {
      if (!text) return;
      const entry = node.ownerDocument.createElement('p');
      entry.textContent = text;
      entry.dataset.testid = 'said';
      said += 1;
      entry.dataset.n = String(said);
      node.append(entry);
      while (node.childElementCount > KEPT) node.firstElementChild.remove();
    },
    /** After a language switch: what was said stays said, and the region holds no other language. */
    clear() {
      node.replaceChildren();
    },
  };
}

/**
 * A countdown announced at THRESHOLDS: `cross(key, secondsLeft)` is true the first time
 * `secondsLeft` is at or under a threshold it was above before, for this `key` (a side's turn).
 */
export function createThresholds() {
  const last = new Map();
  return {
    cross(key, seconds) {
      const before = last.get(key) ?? Infinity;
      last.set(key, seconds);
      return THRESHOLDS.some((limit) => seconds <= limit && before > limit);
    },
    forget(key) {
      last.delete(key);
    },
  };
}

/**
 * Why the piece on `from` cannot move with this throw, from the server's reason (an
 * IllegalReason code): "The piece on 24 cannot move with this throw. The piece must stop on the
 * House of Happiness (26) first."
 */
export function refusalSentence(from, reason) {
  return t('refused.piece', { n: from, why: t(`illegal.${reason}`) });
}
