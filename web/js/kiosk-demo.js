// The kiosk's attract screen: the rules shown on the room's own board (board.js) by a script of
// positions, one rule each (a move, a swap, the stop on 26, the water, bearing off), each with its
// caption in the chosen language. With reduced motion the pieces jump and each picture stays
// longer; the loop runs until `stop()`.

import { createBoard } from './board.js';
import { drawSticks } from './sticks.js';
import { prefersReducedMotion } from './dom.js';
import { t } from './i18n.js';
import { Effect } from './protocol.js';

/** A position in the server's notation: thirty squares (B, W or .), then the side to move. */
function notation({ black, white, side = 'black' }) {
  const squares = Array.from({ length: 30 }, (_, i) => (black.includes(i + 1) ? 'B' : white.includes(i + 1) ? 'W' : '.'));
  return `${squares.join('')} ${side[0]}`;
}

const OPENING = { black: [2, 4, 6, 8, 10], white: [1, 3, 5, 7, 9] };
const LATE = { black: [5, 11, 16, 19, 22], white: [12, 14, 17, 20, 21] };

/** The script: each step's position before, the throw and the move (a `moved` event's data). */
const SCRIPT = [
  { caption: 'kiosk.demoStart', ...OPENING },
  { caption: 'kiosk.demoMove', ...OPENING, side: 'black', value: 3, move: { from: 10, to: 13, effect: Effect.Step } },
  { caption: 'kiosk.demoSwap', black: [2, 4, 6, 8, 13], white: OPENING.white, side: 'white', value: 4, move: { from: 9, to: 13, effect: Effect.Swap, swapped: 9 } },
  { caption: 'kiosk.demo26', ...LATE, side: 'black', value: 4, move: { from: 22, to: 26, effect: Effect.Step } },
  { caption: 'kiosk.demoWater', black: [5, 11, 16, 19, 26], white: LATE.white, side: 'black', value: 1, move: { from: 26, to: 27, effect: Effect.Water, rest: 15 } },
  { caption: 'kiosk.demoOff', black: [5, 11, 15, 16, 19], white: [12, 14, 17, 20, 28], side: 'white', value: 3, move: { from: 28, to: 'off', effect: Effect.Off } },
];

/** The squares after a step's move: the mover where it ends, a swapped piece where it went. */
function after({ black, white, side, move }) {
  const sides = { black: [...black], white: [...white] };
  const other = side === 'black' ? 'white' : 'black';
  const end = move.effect === Effect.Water ? move.rest : move.to;
  sides[side] = sides[side].filter((square) => square !== move.from).concat(end === 'off' ? [] : [end]);
  if (move.effect === Effect.Swap) sides[other] = sides[other].map((square) => (square === move.to ? move.swapped : square));
  return { ...sides, side: other };
}

/** Four sticks with `value` marked faces up (none up counts 5). */
function sticksFor(value) {
  return { sticks: [0, 1, 2, 3].map((i) => value !== 5 && i < value), value };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Play the script on `board` (an `<svg>`) with `sticks` (an `<svg>`) and `caption` (an element),
 * round and round. Returns `{stop, relabel}`.
 */
export function startDemo({ board: boardNode, sticks, caption }) {
  const board = createBoard(boardNode);
  let running = true;
  let step = SCRIPT[0];

  const say = () => {
    caption.textContent = t(step.caption);
  };

  async function play() {
    while (running) {
      for (step of SCRIPT) {
        if (!running) return;
        const still = prefersReducedMotion();
        board.render(notation(step));
        drawSticks(sticks, null);
        say();
        await sleep(still ? 2500 : 1500);
        if (!running) return;
        if (step.move) {
          drawSticks(sticks, sticksFor(step.value), { animate: true });
          await sleep(900);
          await board.animate({ ...step.move, side: step.side });
          if (!running) return;
          board.render(notation(after(step)), [], /** @type {any} */ (step.move));
        }
        await sleep(still ? 6000 : 3200);
      }
    }
  }

  play();
  return {
    stop() {
      running = false;
    },
    relabel() {
      board.relabel();
      say();
    },
  };
}
