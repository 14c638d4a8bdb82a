// The class's live dashboard (issue 50 item 2): every game being played, its board small in a
// grid with both pupils' names and whose turn, a game without a move for a minute marked
// "stuck"; any one opens full size for the projector. Each board watches its room as a
// spectator does (`/ws/rooms/{id}`, a RoomSocket without a token), brought up to date by the
// room's own events (state.js): the page never polls a board.
//
// Bounded: one socket a game, at most MAX_BOARDS (a class's 60 pupils play at most 60 games at
// once, all against the computer); a game that has ended and left the class's list of games
// in play has its socket closed and its board dropped.

import { el, part, show, svg } from './dom.js';
import { sideName, t } from './i18n.js';
import { RoomSocket } from './connection.js';
import { createBoard } from './board.js';
import { applyEvent, normalizeState } from './state.js';
import { Event, Phase } from './protocol.js';

/** The most boards the page watches: a class's most games at once (MAX_PUPILS). */
export const MAX_BOARDS = 60;
/** A game without a move for this long is marked stuck (`?stuck=` seconds for the tests). */
const STUCK_MS = stuckMs();
const MOVES = new Set([Event.Started, Event.Moved, Event.Passed]);

function stuckMs() {
  const asked = Number(new URLSearchParams(location.search).get('stuck'));
  return Number.isFinite(asked) && asked >= 1 && asked <= 600 ? asked * 1000 : 60_000;
}

/**
 * The dashboard in `list` (a `<ul>`), the full-size view in `dialog`.
 * @param {HTMLElement} list
 * @param {HTMLDialogElement} dialog
 */
export function createDashboard(list, dialog) {
  /** room → {game, socket, state, last, movedAt, paused, node, board} */
  const boards = new Map();
  const big = createBoard(part('full-board-svg', dialog));
  /** The room shown full size, or null. */
  let opened = null;

  const nameOf = (tile, side) => tile.game[side] ?? t('class.computerName');

  function turnText(tile) {
    const state = tile.state;
    if (!state) return '';
    if (state.phase === Phase.Over) {
      const winner = state.result?.winner;
      return winner === 'black' || winner === 'white' ? t('class.wins', { name: nameOf(tile, winner) }) : t('class.over');
    }
    const turn = t('class.turn', { name: `${nameOf(tile, state.turn)} (${sideName(state.turn)})` });
    return tile.paused ? `${turn} — ${t('class.pausedMark')}` : turn;
  }

  const isStuck = (tile) => Boolean(tile.state) && tile.state.phase !== Phase.Over && !tile.paused && Date.now() - tile.movedAt > STUCK_MS;

  function draw(tile) {
    const label = t('class.boardLabel', { black: nameOf(tile, 'black'), white: nameOf(tile, 'white') });
    const stuck = isStuck(tile);
    tile.node.classList.toggle('stuck', stuck);
    tile.node.dataset.stuck = String(stuck);
    tile.node.dataset.phase = tile.state?.phase ?? 'loading';
    part('tile-names', tile.node).textContent = label;
    part('tile-turn', tile.node).textContent = turnText(tile);
    const flag = part('tile-stuck', tile.node);
    flag.textContent = stuck ? t('class.stuck') : '';
    show(flag, stuck);
    const open = part('tile-open', tile.node);
    open.textContent = t('class.open');
    open.setAttribute('aria-label', `${t('class.open')}: ${label}. ${turnText(tile)}${stuck ? `. ${t('class.stuck')}` : ''}`);
    if (tile.state) tile.board.render(tile.state.position, [], tile.last);
    if (opened === tile.game.room) drawBig(tile);
  }

  function drawBig(tile) {
    part('full-board-title', dialog).textContent = t('class.boardLabel', { black: nameOf(tile, 'black'), white: nameOf(tile, 'white') });
    part('full-board-turn', dialog).textContent = turnText(tile);
    if (tile.state) big.render(tile.state.position, [], tile.last);
  }

  function open(tile) {
    opened = tile.game.room;
    drawBig(tile);
    if (!dialog.open) dialog.showModal();
  }

  function watch(game) {
    const boardNode = svg('svg', { class: 'board mini', 'aria-hidden': 'true', focusable: 'false' });
    const node = el(
      'li',
      { class: 'tile', 'data-testid': 'board-tile', 'data-room': game.room },
      el('p', { class: 'names', 'data-testid': 'tile-names' }),
      boardNode,
      el('p', { class: 'turn-line', 'data-testid': 'tile-turn' }),
      el('p', { class: 'stuck-flag', 'data-testid': 'tile-stuck', hidden: true }),
      el('button', { type: 'button', 'data-testid': 'tile-open' }),
    );
    /** @type {{game: any, state: any, last: any, movedAt: number, paused: boolean, node: HTMLElement, board: any, socket: RoomSocket | null}} */
    const tile = { game, state: null, last: null, movedAt: Date.now(), paused: false, node, board: createBoard(boardNode), socket: null };
    node.addEventListener('click', () => open(tile));
    const redraw = () => draw(tile);
    tile.socket = new RoomSocket(game.room, null, {
      status: () => {},
      welcome: (d) => {
        tile.state = normalizeState(d.state);
        redraw();
      },
      state: (d) => {
        tile.state = normalizeState(d);
        redraw();
      },
      event: (type, d) => {
        if (!tile.state) return;
        tile.state = applyEvent(tile.state, type, d);
        if (MOVES.has(type)) tile.movedAt = Date.now();
        if (type === Event.Moved) tile.last = d;
        if (type === Event.Paused) tile.paused = true;
        if (type === Event.Resumed) {
          tile.paused = false;
          tile.movedAt = Date.now();
        }
        redraw();
      },
      reply: () => {},
      seat: () => {},
      watchers: () => {},
      rated: () => {},
      tokenRejected: () => {},
      refused: () => {},
    });
    tile.socket.start();
    boards.set(game.room, tile);
    redraw();
    return tile;
  }

  function drop(room) {
    const tile = boards.get(room);
    tile?.socket?.close();
    tile?.node.remove();
    boards.delete(room);
  }

  /** The class's games as the server lists them: watch the new ones in play, drop the ended. */
  function update(games) {
    const playing = games.filter((game) => game.in_play).slice(-MAX_BOARDS);
    const rooms = new Set(playing.map((game) => game.room));
    for (const [room, tile] of boards) if (!rooms.has(room) && tile.state?.phase !== Phase.Over) drop(room);
    // A game that ended stays shown (its result) until the next pairing brings new ones.
    if (playing.some((game) => !boards.has(game.room))) for (const room of [...boards.keys()]) if (!rooms.has(room)) drop(room);
    for (const game of playing) if (!boards.has(game.room) && boards.size < MAX_BOARDS) list.append(watch(game).node);
    return boards.size;
  }

  function relabel() {
    for (const tile of boards.values()) draw(tile);
  }

  part('full-board-close', dialog).addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => (opened = null));
  // The stuck marks follow the clock, not only the events.
  setInterval(() => {
    for (const tile of boards.values()) if (isStuck(tile) !== (tile.node.dataset.stuck === 'true')) draw(tile);
  }, 1000);

  return { update, relabel, size: () => boards.size };
}
