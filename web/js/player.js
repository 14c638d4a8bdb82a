// The player page, /p/{name}: a player's rating with its deviation and provisional mark, wins,
// losses and draws, the rating after each rated game as a chart (chart.js, drawn as the analysis
// chart is), and the recent games, each linking to its replay. Unnamed and deleted players are
// reached by id (/p/{16 hex}): what looks like an id is tried as one first, then as a name. On
// the player's own page, their games waiting for their move come first (your-turn.js); on
// another's, Follow and Block (follow-buttons.js).

import { el, part, show, svg } from './dom.js';
import { mountLanguageSwitch, onLanguageChange, t } from './i18n.js';
import { playerById, playerNamed, roomPage, yourTurn } from './api.js';
import { frame, nearestPoint, scales } from './chart.js';
import { changeText, nameOf, playerLabel, ratingText } from './players-view.js';
import { ErrorCode } from './protocol.js';
import { listenForChallenges, mountChallengeForm } from './challenges.js';
import { countTitle, mountYourTurn } from './your-turn.js';
import { mountFollowButtons } from './follow-buttons.js';

const root = part('player-page');
const chart = part('rating-chart');
let player = null;
let cursor = -1;

async function load(key) {
  if (!/^[0-9a-f]{16}$/.test(key)) return playerNamed(key);
  try {
    return await playerById(key);
  } catch (err) {
    if (err.code !== ErrorCode.NoPlayer) throw err;
    return playerNamed(key);
  }
}

/** The rated games oldest first, each with its change and its result. */
const chronological = () => [...player.history].reverse();

function pointLabel(entry, i) {
  const result = t(`player.result.${entry.score}`);
  return `${i + 1}. ${t('player.against', { result, opponent: nameOf(entry.opponent) })}: ${changeText(entry)}`;
}

function drawChart() {
  const games = chronological();
  show(part('no-history'), games.length === 0);
  show(chart, games.length > 0);
  if (games.length === 0) return;
  const values = [games[0].before.rating, ...games.map((entry) => entry.after.rating)];
  const low = Math.floor((Math.min(...values) - 50) / 100) * 100;
  const high = Math.ceil((Math.max(...values) + 50) / 100) * 100;
  const { x, y } = scales(values.length, low, high);
  const ticks = [low, Math.round((low + high) / 2), high].map((value) => ({ value, text: String(value) }));
  const label = t('player.chartLabel', { first: ratingText(games[0].before), last: ratingText(games.at(-1).after), n: games.length });
  const drawn = frame(chart, { label, title: t('player.chartTitle'), ticks, values, x, y });
  // One focusable point per game (after the starting rating): arrows move between them.
  const points = games.map((entry, i) =>
    svg('circle', {
      class: `point${i === cursor ? ' current' : ''}`,
      'data-testid': 'rating-point',
      cx: x(i + 1).toFixed(1),
      cy: y(entry.after.rating).toFixed(1),
      r: 7,
      role: 'img',
      tabindex: i === Math.max(cursor, 0) ? 0 : -1,
      'aria-label': pointLabel(entry, i),
    }),
  );
  chart.replaceChildren(...drawn, ...points);
}

function select(i, focus) {
  const games = chronological();
  cursor = Math.max(0, Math.min(games.length - 1, i));
  chart.querySelectorAll('.point').forEach((point, j) => {
    point.setAttribute('tabindex', j === cursor ? '0' : '-1');
    point.classList.toggle('current', j === cursor);
    if (focus && j === cursor) point.focus();
  });
  part('rating-cursor').textContent = pointLabel(games[cursor], cursor);
}

chart.addEventListener('pointermove', (event) => {
  if (player?.history.length) select(nearestPoint(chart, event, player.history.length + 1) - 1, false);
});
chart.addEventListener('keydown', (event) => {
  const last = (player?.history.length ?? 0) - 1;
  const moves = { ArrowLeft: cursor - 1, ArrowRight: cursor + 1, Home: 0, End: last };
  if (last >= 0 && event.key in moves) {
    event.preventDefault();
    select(moves[event.key], true);
  }
});

function recentItem(game) {
  // No score: the server's operator ended the game without a result.
  const result = t(`player.result.${game.score ?? 'none'}`);
  const rated = t(game.rated ? 'rating.rated' : 'rating.casual');
  const when = new Date(game.at).toLocaleString(document.documentElement.lang);
  const opponent = playerLabel(game.opponent);
  const what = `${t('player.against', { result, opponent: opponent.textContent })} · ${rated} · ${when}`;
  return el(
    'li',
    { 'data-testid': 'recent-game', 'data-room': game.room },
    el('span', { class: 'what' }, `${result} · `, opponent, ` · ${rated} · ${when}`),
    el('a', { class: 'button', href: roomPage(game.room), 'aria-label': t('player.replayOf', { game: what }), text: t('player.replay') }),
  );
}

function draw() {
  const state = root.dataset.state;
  part('player-status').textContent = {
    loading: t('player.loading'),
    ready: player ? t('player.loaded', { name: nameOf(player), rating: ratingText(player) }) : '',
  }[state] ?? '';
  for (const id of ['player', 'history', 'recent-games']) show(part(id), state === 'ready');
  if (state !== 'ready') return;
  document.title = `${nameOf(player)} — ${t('app.name')}`;
  countTitle();
  part('player-name').textContent = nameOf(player);
  part('player-rating').textContent = t('player.rating', { rating: ratingText(player), deviation: player.deviation });
  show(part('player-provisional'), player.provisional);
  part('player-record').textContent = t('player.record', player);
  drawChart();
  if (cursor >= 0) select(cursor, false);
  part('recent').replaceChildren(...player.recent.map(recentItem));
  show(part('no-recent'), player.recent.length === 0);
}

function fail(err) {
  root.dataset.state = 'failed';
  const problem = part('player-error');
  problem.textContent = t(err.code === ErrorCode.NoPlayer ? 'player.notFound' : 'player.failed');
  show(problem, true);
  draw();
}

async function start() {
  mountLanguageSwitch(part('language'));
  onLanguageChange(draw);
  draw();
  const key = decodeURIComponent(location.pathname.replace(/^\/p\//, ''));
  try {
    player = await load(key);
  } catch (err) {
    fail(err);
    return;
  }
  root.dataset.state = 'ready';
  draw();
  // A named player may be challenged from their page (issue 46).
  if (player.named && !player.deleted) {
    mountChallengeForm(player);
    show(part('challenge'), true);
  }
  listenForChallenges();
  // The "your turn" list is the asking player's: shown on their own page only, with the way to
  // the players they follow; another's page has Follow and Block.
  const asking = await yourTurn().catch(() => null);
  if (asking?.player === player.id) {
    mountYourTurn(part('your-turn'));
    show(part('following-link'), true);
  } else if (asking?.player && !player.deleted) mountFollowButtons(player);
}

start();
