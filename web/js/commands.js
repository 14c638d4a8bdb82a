// Text commands for playing without seeing the board: `t` throws, a square number moves the piece
// on it, `b` reads the board row by row, `c` the clocks, `l` the last move, `m` the legal moves,
// `h` the list. Each language also has its own letters (strings.js, `cmd.letters`); the Latin ones
// work in every language. The answer is a sentence for the room's status line; the game itself
// is still only what the server says (a move is sent, and refused by the server if it must be).

import { t, sideName } from './i18n.js';
import { describe } from './movelog.js';
import { Phase } from './protocol.js';
import { formatClock } from './clock.js';
import { readPosition } from './state.js';
import { refusalSentence, sidesOf, turnSentence } from './announce.js';

/** The commands in the order of `cmd.letters`. */
const NAMES = ['throw', 'board', 'clocks', 'last', 'moves', 'help'];
const LATIN = ['t', 'b', 'c', 'l', 'm', 'h'];

/** The command a typed word names, or null. */
function commandOf(word) {
  const letters = t('cmd.letters').split(' ');
  const index = LATIN.indexOf(word) >= 0 ? LATIN.indexOf(word) : letters.indexOf(word);
  if (word === '?') return 'help';
  return index >= 0 ? NAMES[index] : null;
}

function destination(to) {
  return to === 'off' ? t('cmd.off') : String(to);
}

/** "1 white, 2 black" per row of ten, then the pieces borne off. */
function boardSentence(state) {
  const rows = [0, 1, 2].map((row) => {
    const squares = [];
    for (let square = row * 10 + 1; square <= row * 10 + 10; square += 1) {
      const mark = state.position[square - 1];
      if (mark === 'B' || mark === 'W') squares.push(t('cmd.piece', { n: square, side: sideName(mark === 'B' ? 'black' : 'white').toLowerCase() }));
    }
    const direction = row === 1 ? 'cmd.rowBack' : 'cmd.row';
    return t(direction, { a: row * 10 + 1, b: row * 10 + 10, pieces: squares.length ? squares.join(', ') : t('cmd.empty') });
  });
  const { borneOff } = readPosition(state.position);
  return `${rows.join(' ')} ${t('cmd.borne', { black: borneOff.black, white: borneOff.white })}`;
}

function clocksSentence(state, remaining) {
  if (!state.clock) return t('cmd.untimed');
  return ['black', 'white'].map((side) => t('clock.label', { side: sideName(side), time: formatClock(remaining(side)) })).join('. ');
}

function movesSentence(model) {
  const { state } = model;
  const mine = sidesOf(model.seat).includes(state.turn);
  if (!mine || state.phase !== Phase.Move) return `${t('cmd.noMoveNow')} ${turnSentence(model)}`;
  if (state.legal.length === 0) return t('say.threwNoMove', { who: sideName(state.turn), value: state.throw?.value ?? '?' });
  const moves = state.legal.map((move) => `${move.from} → ${destination(move.to)}`).join(', ');
  return t('cmd.moves', { value: state.throw?.value ?? '?', moves });
}

/**
 * Run the typed `text` against `model`: returns `{say}` (the answer) and, for an action,
 * `{action: "roll"}` or `{action: "move", from}`. `remaining(side)` is a clock's time left in ms.
 */
export function runCommand(text, model, { remaining = () => 0 } = {}) {
  const word = text.trim().toLowerCase();
  const { state } = model;
  if (!state) return { say: t('conn.connecting') };
  if (/^\d+$/.test(word)) {
    const from = Number(word);
    const mine = sidesOf(model.seat).includes(state.turn) && state.phase === Phase.Move;
    if (!mine) return { say: `${t('cmd.noMoveNow')} ${turnSentence(model)}` };
    if (!state.legal.some((move) => move.from === from)) {
      // The server's reason when it names one (a piece of ours), else plainly "cannot move".
      const refusal = state.refused.find((refused) => refused.from === from);
      const why = refusal ? refusalSentence(from, refusal.reason) : t('cmd.notMovable', { n: from });
      return { say: `${why} ${movesSentence(model)}` };
    }
    return { action: 'move', from };
  }
  switch (commandOf(word)) {
    case 'throw': {
      const mine = sidesOf(model.seat).includes(state.turn) && state.phase === Phase.Roll;
      return mine ? { action: 'roll' } : { say: `${t('cmd.noThrowNow')} ${turnSentence(model)}` };
    }
    case 'board':
      return { say: state.position ? boardSentence(state) : t('turn.waiting') };
    case 'clocks':
      return { say: clocksSentence(state, remaining) };
    case 'last':
      return { say: model.log.length ? describe(model.log[model.log.length - 1]) : t('cmd.noLast') };
    case 'moves':
      return { say: movesSentence(model) };
    case 'help':
      return { say: t('cmd.help') };
    default:
      return { say: t('cmd.unknown', { text: text.trim() }) };
  }
}
