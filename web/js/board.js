// The board as SVG: thirty squares in the snake order, the special houses, the pieces, the
// highlighted legal moves (given by the server) and the animations of moves, swaps and the water.

import { svg, prefersReducedMotion } from './dom.js';
import { t, sideName } from './i18n.js';
import { readPosition } from './state.js';
import { Effect } from './protocol.js';

const CELL = 60;
const EXIT_WIDTH = 50;
const SLIDE_MS = 380;
/** Per square of the way when a piece walks the track (a long move still ends within a second). */
const STEP_MS = 110;

/**
 * The two ways the board is drawn: lying (three rows of ten, the default) and upright (ten rows
 * of three, for a portrait phone, where lying squares would be 31 px). The upright board is the
 * lying one turned over its diagonal, so the track still snakes 1→10, 11→20, 21→30 and off.
 */
const LYING = { upright: false, width: 10 * CELL + EXIT_WIDTH, height: 3 * CELL };
const UPRIGHT = { upright: true, width: 3 * CELL, height: 10 * CELL + EXIT_WIDTH };

/** Top-left corner of square n (1..30) in the snake; "off" is the exit beside square 30. */
function corner(square, shape) {
  let along;
  let across;
  if (square === 'off') {
    along = 10 * CELL;
    across = 2 * CELL;
  } else {
    const index = square - 1;
    const row = Math.floor(index / 10);
    const step = index % 10;
    along = (row === 1 ? 9 - step : step) * CELL; // the middle row runs back
    across = row * CELL;
  }
  return shape.upright ? { x: across, y: along } : { x: along, y: across };
}

/** The box of a square (or of the exit, which is narrower along the track). */
function box(square, shape) {
  const { x, y } = corner(square, shape);
  const along = square === 'off' ? EXIT_WIDTH : CELL;
  return shape.upright ? { x, y, width: CELL, height: along } : { x, y, width: along, height: CELL };
}

function centre(square, shape) {
  const { x, y, width, height } = box(square, shape);
  // A little below the middle, clear of the square's number in the corner.
  return { x: x + width / 2, y: y + height / 2 + (square === 'off' ? 0 : 4) };
}

/** The squares a piece passes on its way from `from` to `to` (a square or "off"), both included. */
function track(from, to) {
  const end = to === 'off' ? 31 : to;
  const step = end >= from ? 1 : -1;
  const squares = [];
  for (let square = from; square !== end + step; square += step) squares.push(square === 31 ? 'off' : square);
  return squares;
}

/** The special houses: CSS class, name key and the drawing inside the square. */
const HOUSES = {
  15: { kind: 'rebirth', name: 'house.15', draw: ankh },
  26: { kind: 'happiness', name: 'house.26', draw: nefer },
  27: { kind: 'water', name: 'house.27', draw: waves },
  28: { kind: 'end', name: 'house.28', draw: (x, y) => strokes(x, y, 3) },
  29: { kind: 'end', name: 'house.29', draw: (x, y) => strokes(x, y, 2) },
  30: { kind: 'end', name: 'house.30', draw: (x, y) => strokes(x, y, 1) },
};

function ankh(x, y) {
  return svg('path', {
    class: 'glyph',
    d: `M${x + 30},${y + 31} c-9,-6 -9,-20 0,-20 c9,0 9,14 0,20 Z M${x + 30},${y + 31} V${y + 53} M${x + 19},${y + 34} H${x + 41}`,
  });
}

function nefer(x, y) {
  return svg('path', {
    class: 'glyph',
    d: `M${x + 30},${y + 28} c-13,0 -13,24 0,24 c13,0 13,-24 0,-24 Z M${x + 30},${y + 28} V${y + 12} M${x + 24},${y + 18} H${x + 36}`,
  });
}

function waves(x, y) {
  const wave = (dy) => `M${x + 10},${y + dy} q5,-6 10,0 t10,0 t10,0 t10,0`;
  return svg('path', { class: 'glyph', d: `${wave(26)} ${wave(36)} ${wave(46)}` });
}

function strokes(x, y, count) {
  const first = x + 30 - (count - 1) * 5;
  const d = Array.from({ length: count }, (_, i) => `M${first + i * 10},${y + 30} V${y + 50}`).join(' ');
  return svg('path', { class: 'glyph', d });
}

/** A piece drawn at the origin: black is a cone, white a spool, so they differ in shape too. */
export function pieceShape(side) {
  const d =
    side === 'black'
      ? 'M0,-17 L14,11 Q0,18 -14,11 Z'
      : 'M-13,-15 H13 Q4,0 13,15 H-13 Q-4,0 -13,-15 Z';
  return svg('path', { class: `shape shape-${side}`, d });
}

/** Label of square n for assistive technology: its number and, for a house, its name. */
function squareLabel(square) {
  const house = HOUSES[square];
  return house ? t('board.houseSquare', { n: square, name: t(house.name) }) : t('board.square', { n: square });
}

function destinationLabel(to) {
  if (to === 'off') return t('board.toOff');
  if (to === 27) return t('board.toWater');
  return t('board.toSquare', { n: to });
}

let boards = 0;

/**
 * A board drawn into `root` (an `<svg>`). `onMove(from)` is called when a highlighted piece is
 * chosen by click, Enter or Space; without it the board only shows. `onRefused(from)` likewise
 * for a piece of the side to move that this throw cannot move (the page then says why). With `upright` (a media
 * query list) the board stands upright while the query matches, and turns when it changes.
 */
/**
 * @param {Element} root an `<svg>`
 * @param {{onMove?: ((from: number) => void) | null, onRefused?: ((from: number) => void) | null, upright?: MediaQueryList | null}} [options]
 */
export function createBoard(root, { onMove = null, onRefused = null, upright = null } = {}) {
  boards += 1;
  const arrowId = `route-arrow-${boards}`;
  root.setAttribute('role', 'group');
  const defs = svg(
    'defs',
    {},
    svg('marker', { id: arrowId, viewBox: '0 0 10 10', refX: 5, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' }, svg('path', { class: 'route-arrow', d: 'M2,1 L8,5 L2,9' })),
  );
  const cells = svg('g', { class: 'cells' });
  // The last move, under the pieces: where it came from, where it went, the way along the track.
  const trail = svg('g', { class: 'last-move', 'data-testid': 'last-move', 'aria-hidden': 'true' });
  const marks = svg('g', { class: 'marks', 'aria-hidden': 'true' });
  const pieces = svg('g', { class: 'pieces' });
  // Moves drawn over the pieces by `showMoves` (the replay's played and best moves).
  const notes = svg('g', { class: 'notes', 'aria-hidden': 'true' });
  root.replaceChildren(defs, cells, trail, marks, pieces, notes);
  /** @type {{position: string | null, legal: any[], last: any, refused: any[]}} */
  let view = { position: null, legal: [], last: null, refused: [] };
  let shape = LYING;

  const at = (square) => centre(square, shape);

  function drawCells() {
    shape = upright?.matches ? UPRIGHT : LYING;
    root.dataset.layout = shape.upright ? 'upright' : 'lying';
    root.setAttribute('viewBox', `-4 -4 ${shape.width + 8} ${shape.height + 8}`);
    root.setAttribute('aria-label', t('board.label'));
    cells.replaceChildren();
    for (let square = 1; square <= 30; square += 1) {
      const { x, y } = corner(square, shape);
      const house = HOUSES[square];
      cells.append(
        svg(
          'g',
          { class: `cell${house ? ` house house-${house.kind}` : ''}`, 'data-square': square },
          svg('title', { text: squareLabel(square) }),
          svg('rect', { x, y, width: CELL, height: CELL }),
          house ? house.draw(x, y) : null,
          svg('text', { class: 'number', x: x + 4, y: y + 3, text: square }),
        ),
      );
    }
    // The route, faintly, with its direction at every square: the snake from 1 to 30 and off
    // the board, so the middle row's way back is plain to see.
    const route = [...Array.from({ length: 30 }, (_, i) => at(i + 1)), at('off')];
    cells.append(svg('polyline', { class: 'route', 'marker-mid': `url(#${arrowId})`, points: route.map(({ x, y }) => `${x},${y}`).join(' ') }));
    const exit = box('off', shape);
    const { x: cx, y: cy } = at('off');
    // The arrow out points along the track: right when lying, down when upright.
    const arrow = shape.upright
      ? `M${cx},${cy - 12} V${cy + 12} M${cx - 8},${cy + 4} L${cx},${cy + 12} L${cx + 8},${cy + 4}`
      : `M${cx - 12},${cy} H${cx + 12} M${cx + 4},${cy - 8} L${cx + 12},${cy} L${cx + 4},${cy + 8}`;
    const gap = shape.upright ? { x: exit.x, y: exit.y + 4, width: exit.width, height: exit.height - 4 } : { x: exit.x + 4, y: exit.y, width: exit.width - 4, height: exit.height };
    cells.append(svg('g', { class: 'cell exit', 'data-square': 'off' }, svg('title', { text: t('board.exit') }), svg('rect', gap), svg('path', { class: 'glyph', d: arrow })));
  }

  function showDestination(to) {
    marks.replaceChildren();
    if (to === null) return;
    const { x, y, width, height } = box(to, shape);
    marks.append(svg('rect', { class: 'destination', 'data-testid': 'destination', 'data-square': to, x: x + 3, y: y + 3, width: width - 6, height: height - 6 }));
  }

  function drawPiece(side, square, move, refused) {
    const { x, y } = at(square);
    // A piece the throw cannot move is still a button when the page explains refusals: pressed,
    // it says why. Not aria-disabled, since it does answer; its label says it cannot move.
    const explains = !move && refused && onRefused;
    const label = move
      ? t('board.movablePiece', { side: sideName(side), n: square, to: destinationLabel(move.to) })
      : t(explains ? 'board.refusedPiece' : 'board.piece', { side: sideName(side), n: square });
    const piece = svg(
      'g',
      {
        class: `piece piece-${side}${move ? ' movable' : ''}${explains ? ' refused' : ''}`,
        'data-testid': 'piece',
        'data-side': side,
        'data-square': square,
        'data-to': move ? move.to : null,
        transform: `translate(${x},${y})`,
        'data-reason': explains ? refused.reason : null,
        role: move || explains ? 'button' : 'img',
        tabindex: move || explains ? 0 : null,
        'aria-label': label,
      },
      svg('g', { class: 'travel' }, svg('circle', { class: 'halo', r: 24 }), pieceShape(side)),
    );
    if (move && onMove) {
      pressable(piece, () => onMove(square));
      for (const type of ['mouseenter', 'focus']) piece.addEventListener(type, () => showDestination(move.to));
      for (const type of ['mouseleave', 'blur']) piece.addEventListener(type, () => showDestination(null));
    }
    if (explains) pressable(piece, () => onRefused(square));
    return piece;
  }

  /** Call `press` on a click, Enter or Space. */
  function pressable(node, press) {
    node.addEventListener('click', press);
    node.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        press();
      }
    });
  }

  /** A line along the track through the centres of `squares`. */
  function path(squares, kind) {
    const points = squares.map((square) => at(square));
    return svg('polyline', { class: `last-path last-${kind}`, 'data-testid': 'last-path', 'data-kind': kind, 'data-from': squares[0], 'data-to': squares.at(-1), points: points.map(({ x, y }) => `${x},${y}`).join(' ') });
  }

  function squareMark(square, kind) {
    const { x, y, width, height } = box(square, shape);
    return svg('rect', { class: `last-${kind}`, 'data-square': square, x: x + 2, y: y + 2, width: width - 4, height: height - 4 });
  }

  /**
   * Mark `last`, a `moved` event's data (`{from, to, effect, rest, swapped}`), until the next one:
   * the squares it left and reached, its way along the track, a swapped piece's way back, and
   * the water's return to the square the piece ended on.
   */
  function drawLast(last) {
    trail.replaceChildren();
    delete trail.dataset.from;
    delete trail.dataset.to;
    if (!last) return;
    const end = last.effect === Effect.Water ? (last.rest ?? 15) : last.to;
    Object.assign(trail.dataset, { from: last.from, to: end, effect: last.effect ?? '' });
    trail.append(squareMark(last.from, 'from'), squareMark(end, 'to'), path(track(last.from, last.to), 'move'));
    if (last.effect === Effect.Swap) trail.append(path(track(last.to, last.swapped ?? last.from), 'swap'));
    if (last.effect === Effect.Water) trail.append(squareMark(27, 'water'), path([27, end], 'water'));
  }

  /**
   * Draw `position` (notation) with the server's `legal` moves highlighted and the `last` move
   * marked; the `refused` pieces (`{from, reason}`) say why when pressed. The board is drawn
   * from this state alone; `animate` only moves what is drawn.
   */
  function render(position, legal = [], last = null, refused = []) {
    view = { position, legal, last, refused };
    root.dataset.position = position ?? '';
    showDestination(null);
    notes.replaceChildren();
    drawLast(position ? last : null);
    if (!position) {
      pieces.replaceChildren();
      return;
    }
    // The new pieces are drawn first and swapped in at once: a drawing that fails half-way
    // leaves the last board standing, never an empty one.
    const moves = new Map(legal.map((move) => [move.from, move]));
    const refusals = new Map(refused.map((refusal) => [refusal.from, refusal]));
    const { squares } = readPosition(position);
    const drawn = ['black', 'white'].flatMap((side) => squares[side].map((square) => drawPiece(side, square, moves.get(square), refusals.get(square))));
    pieces.replaceChildren(...drawn);
  }

  function pieceOn(square) {
    return pieces.querySelector(`[data-square="${square}"] .travel`);
  }

  /** The transform that takes a piece drawn on `from` to `to`. */
  function offset(from, to) {
    const a = at(from);
    const b = at(to);
    return `translate(${b.x - a.x}px, ${b.y - a.y}px)`;
  }

  /** Walk a piece from `from` to `to` square by square along the track, not across corners. */
  function walk(node, from, to, { fade = false } = {}) {
    if (!node) return Promise.resolve();
    const squares = track(from, to);
    const frames = squares.map((square, i) => ({ transform: offset(from, square), opacity: fade && i === squares.length - 1 ? 0 : 1 }));
    const duration = Math.min(SLIDE_MS * 2.5, Math.max(SLIDE_MS, STEP_MS * (squares.length - 1)));
    return node.animate(frames, { duration, easing: 'ease-in-out', fill: 'forwards' }).finished;
  }

  /** Animate a `moved` event on the board as it was before the move. */
  async function animate(moved) {
    if (prefersReducedMotion() || !view.position) return;
    const mover = pieceOn(moved.from);
    if (!mover) return;
    mover.parentElement?.classList.add('moving');
    const steps = [];
    if (moved.effect === Effect.Swap) steps.push(walk(pieceOn(moved.to), moved.to, moved.from));
    if (moved.effect === Effect.Water) {
      await walk(mover, moved.from, 27);
      const sink = [
        { transform: `${offset(moved.from, 27)} scale(1)`, opacity: 1 },
        { transform: `${offset(moved.from, 27)} scale(0.2)`, opacity: 0.2, offset: 0.45 },
        { transform: `${offset(moved.from, moved.rest)} scale(0.2)`, opacity: 0.2, offset: 0.55 },
        { transform: `${offset(moved.from, moved.rest)} scale(1)`, opacity: 1 },
      ];
      steps.push(mover.animate(sink, { duration: SLIDE_MS * 2, fill: 'forwards' }).finished);
    } else {
      steps.push(walk(mover, moved.from, moved.to, { fade: moved.effect === Effect.Off }));
    }
    await Promise.all(steps);
  }

  /**
   * Draw moves over the board as arrows, `[{from, to, kind}]` with `to` a square or "off"; `kind`
   * is the CSS class (`played`, `best`). Cleared by the next `render`.
   */
  function showMoves(moves) {
    notes.replaceChildren(
      ...moves.map(({ from, to, kind }) => {
        const a = at(from);
        const b = at(to);
        return svg(
          'g',
          { class: `note note-${kind}`, 'data-testid': `note-${kind}`, 'data-from': from, 'data-to': to },
          svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y }),
          svg('circle', { class: 'note-from', cx: a.x, cy: a.y, r: 6 }),
          svg('circle', { class: 'note-to', cx: b.x, cy: b.y, r: 12 }),
        );
      }),
    );
  }

  /** Redraw the texts after a language switch (and the board after it turned). */
  function relabel() {
    drawCells();
    render(view.position, view.legal, view.last, view.refused);
  }

  upright?.addEventListener('change', relabel);
  drawCells();
  return { render, animate, relabel, showMoves };
}
