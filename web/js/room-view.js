// Draws the room page from the controller's model: players, board, sticks, whose turn, the
// controls that this seat may use now, the move list, the end screen. It decides nothing about
// the game; it shows the server's state.

import { el, part, show, svg } from './dom.js';
import { t, sideName } from './i18n.js';
import { createBoard, pieceShape } from './board.js';
import { drawSticks } from './sticks.js';
import { createClocks, presetLabel } from './clock.js';
import { describe } from './movelog.js';
import { readPosition, opponent, seatPlayer } from './state.js';
import { changeText, nameOf, playerLabel } from './players-view.js';
import { roomPage } from './api.js';
import { refusalSentence, resultTexts, sidesOf, turnSentence } from './announce.js';
import { DEFAULT_LEVEL, EndReason, Mode, Phase, Seat } from './protocol.js';

/** Where the room's board stands upright; senet.css lays the page out for it by the same query. */
const UPRIGHT_BOARD = '(orientation: portrait) and (max-width: 600px)';
const SIDE_PARAMS = ['side', 'next', 'loser', 'winner'];
/** The message saying why a touched piece cannot move (`{n, reason}`). */
export const REFUSED = 'refused.piece';

/**
 * Translate a stored `{key, params}` message, naming sides in the current language.
 * @param {{key: string, params?: any}} message
 */
function phrase({ key, params = {} }) {
  if (key === REFUSED) return refusalSentence(params.n, params.reason);
  const words = { ...params };
  for (const name of SIDE_PARAMS) if (words[name]) words[name] = sideName(words[name]);
  return t(key, words);
}

const isPlaying = (state) => state?.phase === Phase.Roll || state?.phase === Phase.Move;

/** Whether this seat is the one to act now. */
function isMyTurn(model) {
  return isPlaying(model.state) && sidesOf(model.seat).includes(model.state.turn);
}

/** In a room against the computer, the seat that is not this page's is the computer's. */
function isComputer(model, side) {
  return model.state.mode === Mode.Ai && sidesOf(model.seat).length === 1 && model.seat !== side;
}

function computerLabel(state) {
  return state.mode === Mode.Ai ? t('player.computer', { level: t(`ai.${state.level ?? DEFAULT_LEVEL}`) }) : '';
}

/** One side's rating change in a finished rated game: "Black · Anna: 1500? → 1623?  +123". */
export function ratingLine(state, side) {
  const player = seatPlayer(state.players[side]);
  const who = player ? `${sideName(side)} · ${nameOf(player)}` : sideName(side);
  return `${who}: ${changeText(state.ratings[side])}`;
}

/** The last move of the game (a pass leaves it marked): a `moved` event's data, or null. */
function lastMove(log) {
  return log.findLast((entry) => entry.kind === 'move') ?? null;
}

/** "Black threw 3", or "Thrown: 3" when a state read on arrival does not say who threw. */
function throwText(thrown) {
  if (!thrown) return t('sticks.none');
  return thrown.side ? t('throw.by', { side: sideName(thrown.side), value: thrown.value }) : t('throw.value', { value: thrown.value });
}

/** Whether this page shows an invitation to a seat: a visitor watching a room that waits for them. */
export function invited(model) {
  return Boolean(model.invited) && model.state?.phase === Phase.Waiting && sidesOf(model.seat).length === 0;
}

/**
 * The invitation in words: "You are invited to play White", what is known of the game (who
 * invites, its time control, rated or not), and both as one sentence for a screen reader.
 */
export function invitation(model) {
  const { state } = model;
  const title = t('join.title', { side: sideName(model.invited) });
  const host = seatPlayer(state.players[opponent(model.invited)]);
  const details = [
    host?.named && !host.deleted ? t('join.by', { name: nameOf(host) }) : '',
    presetLabel(state.clock?.control ?? null),
    t(state.rated ? 'rating.rated' : 'rating.casual'),
  ].filter(Boolean);
  const text = details.join(' · ');
  return { title, details: text, sentence: t('join.sentence', { title, details: text }) };
}

/**
 * The room view; `onMove(from)` is called when a highlighted piece is chosen, `onRefused(from)`
 * when a piece of this seat's that the throw cannot move is.
 */
export function createRoomView(root, { onMove, onRefused }) {
  // A portrait phone stands the board upright: ten rows of three squares of 44 px or more.
  const board = createBoard(part('board', root), { onMove, onRefused, upright: matchMedia(UPRIGHT_BOARD) });
  const clocks = createClocks(root);

  function renderPlayer(model, side) {
    const state = model.state;
    const player = state.players[side];
    const borne = readPosition(state.position ?? '').borneOff[side];
    // Cut off from the server, the page cannot know who is there.
    const presence = !player.seated ? 'empty' : !model.ready && isPlaying(state) ? 'unknown' : player.connected ? 'online' : 'away';
    const active = isPlaying(state) && state.turn === side;
    const node = part(`player-${side}`, root);
    node.className = `player player-${side}${active ? ' active' : ''}`;
    node.dataset.presence = presence;
    const you = sidesOf(model.seat).length === 1 && model.seat === side;
    node.replaceChildren(
      svg('svg', { class: 'icon', viewBox: '-20 -20 40 40', 'aria-hidden': 'true' }, pieceShape(side)),
      el('span', { class: 'name', text: sideName(side) }),
      // A seated person without a name is "anonymous" in the page's language; the computer and
      // an empty seat have no name at all.
      el('span', { class: 'who', 'data-testid': `name-${side}`, hidden: !player.seated || isComputer(model, side) }, playerLabel(seatPlayer(player))),
      el('span', { class: 'computer', 'data-testid': `computer-${side}`, hidden: !isComputer(model, side), text: computerLabel(state) }),
      el('span', { class: 'you', hidden: !you, text: t('player.you') }),
      el('span', { class: `presence ${presence}`, text: t(`presence.${presence}`) }),
      el(
        'span',
        { class: 'tray', 'data-testid': `borne-${side}`, 'data-count': borne, role: 'img', 'aria-label': t('player.borneOff', { side: sideName(side), n: borne }) },
        ...Array.from({ length: 5 }, (_, i) =>
          svg('svg', { class: `slot${i < borne ? ' filled' : ''}`, viewBox: '-20 -20 40 40', 'aria-hidden': 'true' }, i < borne ? pieceShape(side) : svg('circle', { r: 6 })),
        ),
      ),
    );
  }

  function turnText(model) {
    const { state } = model;
    if (state.phase === Phase.Waiting) return t('turn.waiting');
    // Where the player looks: the board is dimmed and waits for the connection.
    if (!model.ready && isPlaying(state)) return t('conn.reconnecting');
    return turnSentence(model);
  }

  /** The tab's title: "● Your turn — Senet" while this page has something to do. */
  function renderTitle(model) {
    const mine = isMyTurn(model) && model.seat !== Seat.Both;
    const title = mine ? t('title.yourTurn') : t('room.pageTitle');
    if (root.ownerDocument.title !== title) root.ownerDocument.title = title;
  }

  function renderThrow(model) {
    const thrown = model.lastThrow;
    drawSticks(part('sticks', root), thrown, { animate: model.animateThrow });
    model.animateThrow = false;
    part('throw-value', root).textContent = throwText(thrown);
    const button = part('throw', root);
    show(button, isMyTurn(model) && model.state.phase === Phase.Roll);
    button.disabled = !model.ready || model.pending;
  }

  function renderDraw(model) {
    const { state, seat } = model;
    const player = sidesOf(seat).length === 1 && state.mode === Mode.Online && isPlaying(state);
    const offer = state.draw_offer;
    const canAct = model.ready && !model.pending;
    // One offer per turn of one's own: the button stays, greyed, until the opponent has moved.
    const spent = state.draw_offers_spent.includes(seat);
    const buttons = {
      'offer-draw': player && !offer,
      'withdraw-draw': player && offer === seat,
      'accept-draw': player && offer === opponent(seat),
      'decline-draw': player && offer === opponent(seat),
    };
    for (const [id, visible] of Object.entries(buttons)) {
      show(part(id, root), visible);
      part(id, root).disabled = !canAct;
    }
    part('offer-draw', root).disabled = !canAct || spent;
    let status = '';
    if (offer && isPlaying(state)) status = offer === seat ? t('draw.yours') : t('draw.offered', { side: sideName(offer) });
    else if (player && spent) status = t('draw.spent');
    part('draw-status', root).textContent = status;
    // The opponent's offer is a banner above the board with its two answers, not a grey line.
    const banner = part('draw-banner', root);
    show(banner, Boolean(status));
    banner.dataset.incoming = String(Boolean(player && offer === opponent(seat)));
    show(part('resign', root), sidesOf(seat).length > 0 && isPlaying(state));
    part('resign', root).disabled = !canAct;
  }

  /**
   * What the claim countdown says about the absent opponent: whichever comes first, the claim
   * or their clock running out (which ends the game without a claim).
   */
  function claimSentence(model) {
    const other = opponent(model.seat);
    const away = sideName(other);
    const seconds = Math.ceil((model.state.players[other].claim_at - Date.now()) / 1000);
    const clock = model.state.clock;
    if (clock?.running === other) {
      const flag = Math.ceil(clocks.remaining(other) / 1000);
      if (flag < seconds) return t('claim.clockFirst', { side: away, s: Math.max(0, flag) });
    }
    return seconds > 0 ? t('claim.wait', { side: away, s: seconds }) : t('claim.ready', { side: away });
  }

  /** The claim-victory part: it counts down, so it is redrawn every second too. */
  function renderClaim(model) {
    const { state, seat } = model;
    const button = part('claim-victory', root);
    const status = part('claim-status', root);
    const claimAt = sidesOf(seat).length === 1 && isPlaying(state) ? state.players[opponent(seat)].claim_at : null;
    if (claimAt === null || claimAt === undefined) {
      show(button, false);
      status.textContent = '';
      return;
    }
    const seconds = Math.ceil((claimAt - Date.now()) / 1000);
    const other = opponent(seat);
    const away = sideName(other);
    // A present opponent's countdown is the long idle-turn one: said only once it has run out.
    if (state.players[other].connected) {
      status.textContent = seconds > 0 ? '' : t('claim.idle', { side: away });
    } else {
      status.textContent = claimSentence(model);
    }
    show(button, seconds <= 0);
    button.disabled = !model.ready || model.pending;
  }

  function renderConnection(model) {
    const node = part('connection', root.ownerDocument);
    const { name } = model.connection;
    node.dataset.state = name;
    root.dataset.connection = name;
    // A status region: rewritten only when the words change, so it is said once per change.
    const text = t(`conn.${name}`);
    if (node.textContent !== text) node.textContent = text;
  }

  /** The whole game, newest at the bottom and in view; the list scrolls (and by keyboard, focused). */
  function renderMoves(model) {
    const list = part('move-list', root);
    list.replaceChildren(...model.log.map((entry) => el('li', { 'data-testid': 'move', text: describe(entry) })));
    list.scrollTop = list.scrollHeight;
  }

  function renderInvite(model) {
    const waiting = model.state.phase === Phase.Waiting && sidesOf(model.seat).length === 1;
    show(part('invite', root), waiting);
    if (waiting) part('invite-link', root).value = new URL(roomPage(model.room), location.href).href;
  }

  /** A visitor's invitation: the seat is taken only when they press Join. */
  function renderJoin(model) {
    const shown = invited(model);
    show(part('join-step', root), shown);
    if (!shown) return;
    const { title, details } = invitation(model);
    part('join-title', root).textContent = title;
    part('join-details', root).textContent = details;
    part('join', root).disabled = !model.ready || model.joining;
  }

  function renderEnd(model) {
    const { state, seat } = model;
    const over = state.phase === Phase.Over;
    show(part('end', root), over);
    show(part('after', root), over);
    if (!over) return;
    const { title, because, you } = resultTexts(model);
    part('end', root).dataset.winner = state.result?.winner ?? '';
    part('end-title', root).textContent = title;
    part('end-reason', root).textContent = because;
    part('end-you', root).textContent = you;
    part('end-length', root).textContent = t('end.length', { n: model.log.filter((entry) => entry.kind === 'move').length });
    renderRatings(state);
    const rematch = part('rematch', root);
    // A game the operator ended is not played on.
    const playable = state.result?.reason !== EndReason.Operator;
    show(rematch, sidesOf(seat).length > 0 && !state.rematch && playable);
    rematch.textContent = t(state.mode === Mode.Online ? 'action.rematch' : 'action.newGame');
    const asked = state.rematch_offers;
    const mine = sidesOf(seat);
    const iAsked = mine.some((side) => asked.includes(side));
    rematch.disabled = !model.ready || model.pending || iAsked;
    let status = '';
    if (!state.rematch && iAsked) status = t('rematch.waiting');
    else if (!state.rematch && asked.length > 0) status = t('rematch.offered', { side: sideName(asked[0]) });
    part('rematch-status', root).textContent = status;
    const next = part('next-room', root);
    show(next, Boolean(state.rematch));
    if (state.rematch) {
      next.href = roomPage(state.rematch);
      next.textContent = t('rematch.follow');
    }
    part('seed-hash', root).textContent = state.seed_hash ?? '';
    part('seed', root).textContent = model.seed ?? '';
  }

  /** A rated game's changes on the end card: "Black · Anna: 1500? → 1623?  +123". */
  function renderRatings(state) {
    const list = part('end-ratings', root);
    show(list, Boolean(state.ratings));
    if (!state.ratings) return;
    list.replaceChildren(
      ...['black', 'white'].map((side) => {
        return el('li', { 'data-testid': `end-rating-${side}`, text: ratingLine(state, side) });
      }),
    );
  }

  /**
   * The hint of practice rooms (against the computer, one screen): the button while this seat
   * has a throw to play, then the engine's move in words and marked on the board.
   */
  function renderHint(model) {
    const { state } = model;
    const practice = state.mode === Mode.Ai || state.mode === Mode.Local;
    const asking = practice && isMyTurn(model) && state.phase === Phase.Move;
    const button = part('hint', root);
    show(button, asking && state.hint === null);
    button.disabled = !model.ready || Boolean(model.pending);
    part('hint-text', root).textContent = asking && state.hint !== null ? t('hint.move', { from: state.hint }) : '';
    if (asking && state.hint !== null) part('board', root).querySelector(`.piece[data-square="${state.hint}"]`)?.classList.add('hinted');
  }

  /** Draw everything from the model. */
  function render(model) {
    const state = model.state;
    root.dataset.seat = model.seat ?? '';
    // An invited visitor watches until they join: the invitation speaks for them meanwhile.
    part('seat', root).textContent = model.seat && !invited(model) ? t(`seat.${model.seat}`) : '';
    show(part('game-kind', root), Boolean(state?.rated));
    renderConnection(model);
    const problem = part('problem', root);
    show(problem, Boolean(model.problem));
    if (model.problem) problem.textContent = phrase(model.problem);
    show(part('updated', root), model.outdated);
    // A room that does not exist: no greyed board, a way to a game instead.
    const missing = model.problem?.key === 'room.notFound';
    root.dataset.missing = String(missing);
    show(part('missing', root), missing);
    if (!state) return;
    Object.assign(root.dataset, {
      phase: state.phase,
      turn: state.turn ?? '',
      mode: state.mode ?? '',
      v: state.v ?? 0,
      legal: state.legal.length,
    });
    renderPlayer(model, 'black');
    renderPlayer(model, 'white');
    clocks.update(state);
    const choosing = isMyTurn(model) && state.phase === Phase.Move && !model.pending && model.ready;
    board.render(state.position, choosing ? state.legal : [], lastMove(model.log), choosing ? state.refused : []);
    renderHint(model);
    part('turn', root).textContent = turnText(model);
    renderThrow(model);
    part('message', root).textContent = model.message ? phrase(model.message) : '';
    renderDraw(model);
    renderClaim(model);
    // Nobody watching is worth saying only where people come to watch: online games.
    part('watchers', root).textContent = model.watchers > 0 || state.mode === Mode.Online ? t('watchers', { n: model.watchers }) : '';
    renderMoves(model);
    renderInvite(model);
    renderJoin(model);
    renderEnd(model);
    renderTitle(model);
  }

  return {
    render,
    /** Redraw only what depends on the clock (countdowns). */
    tick(model) {
      renderConnection(model);
      if (model.state) renderClaim(model);
    },
    animateMove: (moved) => board.animate(moved),
    /** A clock's time left now, in ms. */
    remaining: (side) => clocks.remaining(side),
    claimSentence,
    relabel: () => {
      board.relabel();
      clocks.relabel();
    },
  };
}
