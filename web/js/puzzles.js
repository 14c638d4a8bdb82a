// The /puzzles page (issue 49): a position and a throw from a real game, "find the best move".
// The page is given the position, the throw and the legal moves only (GET /api/puzzles/...); the
// server judges the answer and only then sends every move's winning chance, the theme and the
// rating change (docs/PROTOCOL.md, "Puzzles"). The same page plays a position from one's own
// finished game (`?game=<room>&v=<throw>`, offered by the game's analysis), judged the same way.

import './players-view.js';
import { el, part, show } from './dom.js';
import { mountLanguageSwitch, onLanguageChange, sideName, t } from './i18n.js';
import { LANGUAGES, STRINGS } from './strings.js';
import { PUZZLES_STRINGS, THEMES } from './puzzles-strings.js';
import { createBoard } from './board.js';
import { drawSticks } from './sticks.js';
import { createAnnouncer } from './announce.js';
import { runCommand } from './commands.js';
import { Phase } from './protocol.js';

for (const code of LANGUAGES) Object.assign(STRINGS[code], PUZZLES_STRINGS[code]);

/** Where the board stands upright, as in the room (room-view.js): squares of 44 px or more. */
const UPRIGHT_BOARD = '(orientation: portrait) and (max-width: 600px)';

const page = part('puzzles');
const announcer = createAnnouncer(part('announcements'));
const upright = matchMedia(UPRIGHT_BOARD);
const board = createBoard(part('board'), { onMove: (from) => answer(from), upright });

/**
 * The puzzle shown: the server's question and where it came from (`daily`, `set`, or `game` with
 * `{room, v}`), and after the answer the server's verdict and the move given.
 * @typedef {{question: any, source: string, game: {room: string, v: number} | null, verdict: any, given: number | null, pending: boolean}} Shown
 */
/** @type {Shown | null} */
let current = null;
/** The puzzle shown, for the drawing, which only runs once one is. */
const shown = () => /** @type {Shown} */ (current);

/** A JSON request; an error answer throws `{status, code, message}`. */
async function call(method, path, body) {
  const init = { method, headers: { accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined };
  const response = await fetch(path, init).catch(() => null);
  const data = response ? await response.json().catch(() => null) : null;
  if (!response?.ok) throw Object.assign(new Error(data?.message ?? 'network'), { status: response?.status ?? 0, code: data?.error ?? 'network' });
  return data;
}

const gamePath = ({ room, v }) => `/api/puzzles/game/${encodeURIComponent(room)}/${v}`;

/** The address of the answer for the puzzle shown. */
function answerPath() {
  if (current?.game) return `${gamePath(current.game)}/answer`;
  return `/api/puzzles/${encodeURIComponent(current?.question.id)}/answer`;
}

const destination = (to) => (to === 'off' ? t('cmd.off') : String(to));
const moveText = (move) => `${move.from} → ${destination(move.to)}`;
const moveOf = (from) => current?.question.choices.find((move) => move.from === from);
const percent = (chance) => new Intl.NumberFormat(document.documentElement.lang, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(chance);

/** The sticks as they could have fallen for a value: 1 to 4 marked faces up, 5 for none. */
const sticksOf = (value) => ({ value, sticks: [0, 1, 2, 3].map((i) => value < 5 && i < value) });

// ------------------------------------------------------------------------------ loading

/**
 * Load a puzzle from `path` and show it; `source` and `game` say where it comes from.
 * @param {string} path
 * @param {string} source
 * @param {{room: string, v: number} | null} [game]
 */
async function load(path, source, game = null) {
  page.dataset.state = 'loading';
  show(part('puzzles-error'), false);
  // The first puzzle is where the page starts; a later one moves the focus to its title.
  const later = current !== null;
  try {
    const question = await call('GET', path);
    current = { question, source, game, verdict: null, given: null, pending: false };
  } catch (error) {
    fail(error.status === 404 ? (game ? 'puzzles.gameNotFound' : 'puzzles.notFound') : 'puzzles.unreachable');
    return;
  }
  remember();
  render();
  if (later) part('puzzle-title').focus();
  announcer.say(`${taskText()} ${t('puzzles.movesSaid', { moves: current.question.choices.map(moveText).join(', ') })}`);
}

function fail(key) {
  const problem = part('puzzles-error');
  problem.textContent = t(key);
  show(problem, true);
  page.dataset.state = current ? page.dataset.state : 'error';
  if (current) current.pending = false;
}

/** The address bar names the puzzle shown, so a reload or a shared link shows it again. */
function remember() {
  const params = new URLSearchParams();
  if (current?.game) {
    params.set('game', current.game.room);
    params.set('v', String(current.game.v));
  } else if (current) params.set('id', current.question.id);
  const theme = part('theme').value;
  if (theme) params.set('theme', theme);
  history.replaceState(null, '', `/puzzles?${params}`);
}

function loadDaily() {
  load('/api/puzzles/daily', 'daily');
}

/** The next puzzle of the chosen theme after the one shown (a game's puzzle is not in the set). */
function loadNext() {
  const params = new URLSearchParams();
  const theme = part('theme').value;
  if (theme) params.set('theme', theme);
  if (current && !current.game) params.set('after', current.question.id);
  load(`/api/puzzles/next?${params}`, 'set');
}

// ------------------------------------------------------------------------------ answering

async function answer(from) {
  if (!current || current.verdict || current.pending || !moveOf(from)) return;
  current.pending = true;
  renderChoices();
  try {
    current.verdict = await call('POST', answerPath(), { from, ticket: current.question.ticket });
    current.given = from;
  } catch (error) {
    const keys = { puzzle_not_asked: 'puzzles.expired', rate_limited: 'puzzles.tooFast' };
    fail(keys[error.code] ?? 'puzzles.unreachable');
    renderChoices();
    return;
  } finally {
    if (current) current.pending = false;
  }
  render();
  announcer.say(`${verdictText()} ${ratingText()} ${explanationText()}`);
  part('next').focus();
}

// ------------------------------------------------------------------------------ drawing

function taskText() {
  const { question } = shown();
  return t('puzzles.task', { side: sideName(question.turn), value: question.throw });
}

function titleText() {
  if (shown().source === 'daily') return t('puzzles.dailyTitle');
  if (shown().game) return t('puzzles.gameTitle');
  return t('puzzles.title', { id: shown().question.id });
}

function verdictText() {
  const { verdict, given } = shown();
  if (!verdict) return '';
  const best = moveText(moveOf(verdict.best));
  return verdict.solved ? t('puzzles.right', { move: best }) : t('puzzles.wrong', { move: moveText(moveOf(given)), best });
}

function ratingText() {
  const { verdict } = shown();
  if (!verdict) return '';
  if (shown().game) return t('puzzles.gameUnrated');
  if (!verdict.rating) return t('puzzles.unrated');
  const { before, after } = verdict.rating;
  const change = after - before;
  return t('puzzles.ratingChange', { before, after, change: `${change >= 0 ? '+' : '−'}${Math.abs(change)}` });
}

function explanationText() {
  const { verdict } = shown();
  return verdict ? t('puzzles.explanation', { theme: t(`puzzles.theme.${verdict.theme}`), why: t(`puzzles.why.${verdict.theme}`) }) : '';
}

function renderChoices() {
  const { question, verdict, pending } = shown();
  part('move-choices').replaceChildren(
    ...question.choices.map((move) => {
      const mark = verdict && move.from === verdict.best ? 'best' : verdict && move.from === shown().given ? 'given' : null;
      return el(
        'button',
        {
          type: 'button',
          class: `move-choice${mark ? ` ${mark}` : ''}`,
          'data-testid': 'move-choice',
          'data-from': move.from,
          disabled: Boolean(verdict) || pending,
          onclick: () => answer(move.from),
        },
        moveText(move),
      );
    }),
  );
}

function renderChances() {
  const { verdict } = shown();
  show(part('chances'), Boolean(verdict));
  if (!verdict) return;
  part('chances-caption').textContent = t(verdict.exact ? 'puzzles.chancesExact' : 'puzzles.chancesSearched');
  const table = part('chances');
  table.dataset.exact = String(verdict.exact);
  part('chances-rows').replaceChildren(
    ...[...verdict.moves]
      .sort((a, b) => b.chance - a.chance)
      .map(({ from, chance }) => {
        const notes = [from === verdict.best ? t('puzzles.noteBest') : null, from === shown().given ? t('puzzles.noteYours') : null].filter(Boolean);
        const exactness = t(verdict.exact ? 'puzzles.exactMark' : 'puzzles.estimateMark');
        return el(
          'tr',
          { 'data-testid': 'chance-row', 'data-from': from, class: from === verdict.best ? 'best' : null },
          el('th', { scope: 'row' }, moveText(moveOf(from) ?? { from, to: '?' })),
          el('td', { 'data-testid': 'chance' }, `${percent(chance)} `, el('span', { class: 'exactness' }, exactness)),
          el('td', {}, notes.join(', ')),
        );
      }),
  );
}

function render() {
  if (!current) return;
  const { question, verdict } = current;
  page.dataset.state = verdict ? 'answered' : 'question';
  const section = part('puzzle');
  section.dataset.puzzle = question.id;
  show(section, true);
  part('puzzle-title').textContent = titleText();
  const meta = current.game ? 'puzzles.metaGame' : 'puzzles.meta';
  part('puzzle-meta').textContent = t(meta, { side: sideName(question.turn), rating: question.rating });
  // Once answered, the board shows the best move (and the one given, if another) as arrows.
  board.render(question.position, verdict ? [] : question.choices);
  if (verdict) {
    const arrow = (from, kind) => ({ from, to: moveOf(from)?.to ?? from, kind });
    board.showMoves([verdict.best !== shown().given ? arrow(shown().given, 'played') : null, arrow(verdict.best, 'best')].filter(Boolean));
  }
  drawSticks(part('sticks'), sticksOf(question.throw));
  part('throw-value').textContent = t('throw.value', { value: question.throw });
  part('puzzle-task').textContent = verdict ? '' : `${taskText()} ${t('puzzles.how')}`;
  renderChoices();
  const feedback = part('feedback');
  feedback.dataset.result = verdict ? (verdict.solved ? 'right' : 'wrong') : '';
  part('verdict').textContent = verdictText();
  part('rating-change').textContent = ratingText();
  part('explanation').textContent = explanationText();
  renderChances();
}

function renderThemes() {
  const select = part('theme');
  const chosen = select.value;
  select.replaceChildren(el('option', { value: '' }, t('puzzles.anyTheme')), ...THEMES.map((theme) => el('option', { value: theme }, t(`puzzles.theme.${theme}`))));
  select.value = chosen;
}

// ------------------------------------------------------------------------------ text commands

/** The room's text commands (commands.js) on the puzzle: a square number answers. */
function command(text) {
  if (!text.trim() || !current) return;
  const { question, verdict } = current;
  const model = {
    state: { phase: verdict ? Phase.Over : Phase.Move, turn: question.turn, legal: question.choices, position: question.position, throw: { value: question.throw }, clock: null },
    seat: question.turn,
    log: [],
  };
  const { action, from, say } = runCommand(text, model);
  if (action === 'move') answer(from);
  const answerLine = part('command-answer');
  // The same answer twice is said twice: the status line is emptied first.
  answerLine.textContent = '';
  const said = say === t('cmd.help') ? t('puzzles.cmdHelp') : say;
  if (said) setTimeout(() => (answerLine.textContent = said), 50);
}

function wireCommands() {
  part('command-form').addEventListener('submit', (event) => {
    event.preventDefault();
    command(part('command').value);
    part('command').value = '';
  });
  // "/" anywhere outside a field opens the box, as in the room.
  document.addEventListener('keydown', (event) => {
    if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof Element && event.target.closest('input, textarea, select')) return;
    event.preventDefault();
    part('command-box').open = true;
    part('command').focus();
  });
}

// ------------------------------------------------------------------------------ start

function start() {
  mountLanguageSwitch(part('language'));
  renderThemes();
  wireCommands();
  part('daily').addEventListener('click', loadDaily);
  part('next').addEventListener('click', loadNext);
  part('theme').addEventListener('change', loadNext);
  // The board redraws itself when it turns (board.js, registered first); the answer's arrows
  // are drawn again after it.
  upright.addEventListener('change', render);
  onLanguageChange(() => {
    announcer.clear();
    board.relabel();
    renderThemes();
    render();
  });
  const params = new URLSearchParams(location.search);
  const theme = params.get('theme') ?? '';
  if (THEMES.includes(theme)) part('theme').value = theme;
  const room = params.get('game');
  const v = Number(params.get('v'));
  const id = params.get('id');
  if (room && Number.isInteger(v) && v > 0) load(gamePath({ room, v }), 'game', { room, v });
  else if (id) load(`/api/puzzles/${encodeURIComponent(id)}`, 'set');
  else if (theme) loadNext();
  else loadDaily();
}

start();
