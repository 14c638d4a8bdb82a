// A tournament's page, /t/{id}: the rules, the countdown, join / pause / come back / withdraw,
// the player's game when they are paired (announced, to screen readers too, with its seat kept
// as a room's creator's is), the standings and the games being played, and a finished one's
// podium. It follows the tournament live on `/ws/tournaments/{id}` (docs/PROTOCOL.md), which
// sends it again whenever its log changes: nothing is polled.

import './players-view.js';
import { el, part, show } from './dom.js';
import { mountLanguageSwitch, onLanguageChange, sideName, t } from './i18n.js';
import { roomPage, saveSeat } from './api.js';
import { createAnnouncer } from './announce.js';
import { formatClock } from './clock.js';
import { clockText } from './tournament-list.js';
import { rememberTournament } from './tournament-back.js';

const id = decodeURIComponent(location.pathname.split('/')[2] ?? '');
const page = part('tournament-page');
const announcer = createAnnouncer(part('announcements'));
/** The tournament as the server last showed it (GET /api/tournaments/{id}'s shape), or null. */
let shown = null;
/** The room of the game last announced, so that each pairing is announced once. */
let announced = null;
let retryIn = 500;

const isArena = () => shown?.settings.format === 'arena';
/** A score in points: a Swiss counts half-points (a win 1), an Arena whole ones (a win 2). */
const points = (half) => (isArena() ? String(half) : `${Math.floor(half / 2)}${half % 2 ? '½' : ''}`);

function statusLine() {
  part('status').textContent = t(`tournament.status.${shown.status}`);
  const now = Date.now();
  const until = shown.status === 'upcoming' ? shown.settings.starts_at : shown.status === 'running' ? shown.ends_at : null;
  const left = until ? formatClock(Math.max(0, until - now)) : '';
  const key = shown.status === 'upcoming' ? 'tournament.startsIn' : 'tournament.endsIn';
  let countdown = until ? t(key, { time: left }) : '';
  if (!isArena() && shown.status === 'running') countdown = t('tournament.round', { round: shown.round, rounds: shown.settings.rounds });
  part('countdown').textContent = countdown;
}

function about() {
  const { settings } = shown;
  const clock = clockText(settings.clock);
  part('rules').textContent = isArena() ? t('tournament.rulesArena', { minutes: settings.minutes, clock }) : t('tournament.rulesSwiss', { rounds: settings.rounds, clock });
  part('rated-line').textContent = t(settings.rated ? 'tournament.ratedLine' : 'tournament.casualLine');
  const you = shown.you;
  const open = shown.status === 'upcoming' || (shown.status === 'running' && isArena());
  let line = '';
  if (you?.withdrawn) line = t('tournament.youWithdrawn');
  else if (you?.paused) line = t('tournament.youPaused');
  else if (you) line = t('tournament.youIn', { player: you.player });
  else if (open && page.dataset.identified === 'no') line = t('tournament.needsPlayer');
  part('you-line').textContent = line;
  const active = you && !you.withdrawn && (shown.status === 'upcoming' || shown.status === 'running');
  show(part('join'), !you && open && page.dataset.identified !== 'no');
  show(part('withdraw'), Boolean(active));
  show(part('pause'), Boolean(active && isArena() && shown.status === 'running' && !you.paused));
  show(part('resume'), Boolean(active && isArena() && you.paused));
}

function opponentOf(game) {
  const board = shown.games.find((g) => g.room === game.room);
  const other = game.seat === 'black' ? 'white' : 'black';
  return board?.[other]?.name ?? '';
}

/** The player's game: shown, announced once, its seat kept for the room page. */
function yourGame() {
  const game = shown.you?.game;
  show(part('your-game'), Boolean(game));
  if (!game) return;
  const texts = { side: sideName(game.seat), opponent: opponentOf(game) };
  const play = /** @type {HTMLAnchorElement} */ (part('play-game'));
  play.href = game.token ? game.url : '';
  show(play, Boolean(game.token));
  part('your-game-line').textContent = game.token ? t('tournament.yourGame', texts) : t('tournament.preparing');
  if (game.token && announced !== game.room) {
    announced = game.room;
    saveSeat(game.room, { seat: game.seat, token: game.token });
    rememberTournament(game.room, id);
    announcer.say(t('tournament.paired', texts));
    play.focus();
  }
}

function standingsRow(line) {
  const marks = [isArena() && line.on_fire && t('tournament.onFire'), line.paused && t('tournament.pausedMark'), line.withdrawn && t('tournament.withdrawnMark')].filter(Boolean);
  const mine = shown.you?.player === line.player;
  return el(
    'tr',
    { 'data-testid': 'standings-row', 'data-player': line.player, class: mine ? 'mine' : '' },
    el('td', { text: line.place }),
    el('th', { scope: 'row' }, el('span', { text: line.name }), marks.length ? el('span', { class: 'hint', text: ` (${marks.join(', ')})` }) : []),
    el('td', { 'data-testid': 'score', text: points(line.score) }),
    el('td', { text: line.games }),
    isArena() ? [] : el('td', { text: points(line.buchholz) }),
  );
}

function standings() {
  const lines = shown.standings;
  show(part('standings'), true);
  show(part('tie-break'), !isArena());
  const rows = lines.length ? lines.map(standingsRow) : [el('tr', {}, el('td', { colspan: isArena() ? 4 : 5, class: 'hint', text: t('tournament.noPlayers') }))];
  part('standings-rows').replaceChildren(...rows);
  const finished = shown.status === 'finished' && lines.length > 0;
  show(part('podium'), finished);
  if (finished) {
    part('podium-places').replaceChildren(
      ...lines.slice(0, 3).map((line) => el('li', { 'data-testid': 'podium-place' }, el('strong', { text: line.name }), ` — ${points(line.score)}`)),
    );
  }
}

function games() {
  const running = shown.status === 'running';
  show(part('games'), running);
  if (!running) return;
  const items = shown.games.map((game) => {
    rememberTournament(game.room, id);
    const line = t('tournament.gameLine', { black: game.black.name, white: game.white.name });
    return el('li', { 'data-testid': 'game-item' }, el('span', { text: `${line} ` }), el('a', { href: roomPage(game.room), text: t('tournament.watch') }));
  });
  part('games-list').replaceChildren(...(items.length ? items : [el('li', { class: 'hint', text: t('tournament.noGames') })]));
}

function draw() {
  if (!shown) return;
  page.dataset.state = shown.status;
  part('tournament-name').textContent = shown.settings.name;
  document.title = `${shown.settings.name} — Senet`;
  show(part('about'), true);
  statusLine();
  about();
  yourGame();
  standings();
  games();
}

function problem(text) {
  const node = part('tournament-error');
  node.textContent = text;
  show(node, Boolean(text));
}

async function ask(action) {
  problem('');
  const response = await fetch(`/api/tournaments/${encodeURIComponent(id)}/${action}`, { method: 'POST', headers: { accept: 'application/json' } }).catch(() => null);
  const data = response ? await response.json().catch(() => null) : null;
  if (!response?.ok) {
    problem(response ? t('tournament.refused', { message: data?.message ?? response.status }) : t('tournaments.unreachable'));
    return;
  }
  shown = data;
  draw();
}

function connect() {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const socket = new WebSocket(`${scheme}://${location.host}/ws/tournaments/${encodeURIComponent(id)}`);
  socket.addEventListener('open', () => {
    retryIn = 500;
    show(part('offline'), false);
  });
  socket.addEventListener('message', (event) => {
    const frame = JSON.parse(event.data);
    if (frame.t !== 'tournament') return;
    shown = frame.d;
    draw();
  });
  socket.addEventListener('close', () => {
    part('offline').textContent = t('tournament.offline');
    show(part('offline'), true);
    setTimeout(connect, retryIn);
    retryIn = Math.min(retryIn * 2, 10_000);
  });
}

async function start() {
  mountLanguageSwitch(part('language'));
  onLanguageChange(draw);
  for (const action of ['join', 'withdraw', 'pause', 'resume']) part(action).addEventListener('click', () => ask(action));
  const [first, identity] = await Promise.all([
    fetch(`/api/tournaments/${encodeURIComponent(id)}`, { headers: { accept: 'application/json' } }).catch(() => null),
    fetch('/api/me', { headers: { accept: 'application/json' } }).catch(() => null),
  ]);
  page.dataset.identified = identity?.ok ? 'yes' : 'no';
  if (!first?.ok) {
    page.dataset.state = 'missing';
    problem(first?.status === 404 ? t('tournament.notFound') : t('tournaments.unreachable'));
    return;
  }
  shown = await first.json();
  draw();
  connect();
  // The countdown's text; the tournament itself only changes by the socket.
  setInterval(() => shown && statusLine(), 1000);
}

start();
