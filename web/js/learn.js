// The /learn page: the rules taught as short lessons on the real board drawing. The lessons and
// their right answers come from GET /api/lessons, where the server asks the rules engine; this
// page only compares the learner's clicks with that answer and explains it. Progress (the
// lessons answered right, and the one open) stays in localStorage.

import { el, part, show, svg } from './dom.js';
import { mountLanguageSwitch, onLanguageChange, t } from './i18n.js';
import { LANGUAGES, STRINGS } from './strings.js';
import { LEARN_STRINGS } from './learn-strings.js';
import { createBoard } from './board.js';
import { drawSticks } from './sticks.js';
import { reportLessonDone } from './class-stumbles.js';

// This page's texts have their own table (kept out of strings.js); after this, t() finds them.
for (const code of LANGUAGES) Object.assign(STRINGS[code], LEARN_STRINGS[code]);

const PROGRESS_KEY = 'senet.learn';
const THROW_VALUES = [1, 2, 3, 4, 5];
const SIDE_OF = { b: 'black', w: 'white' };
const PICKS_SQUARES = new Set(['path', 'square']);

const page = part('learn');
const lessonView = part('lesson');
const boardRoot = part('board');
const board = createBoard(boardRoot);
// Drawn over the board: the order of the squares picked so far.
const overlay = svg('g', { class: 'learn-marks', 'aria-hidden': 'true' });
boardRoot.append(overlay);

let lessons = [];
let progress = loadProgress();
/** The open lesson: `{lesson, index, picked, result}`, result null | 'right' | 'wrong' | 'empty', wrong the wrong tries so far. */
let current = null;
let roving = null; // the square whose choice holds the board's one tab stop

function loadProgress() {
  try {
    const stored = JSON.parse(localStorage.getItem(PROGRESS_KEY) ?? 'null');
    if (stored && Array.isArray(stored.done)) {
      return { done: stored.done.filter((id) => typeof id === 'string'), open: typeof stored.open === 'string' ? stored.open : null };
    }
  } catch {
    // A damaged entry starts the lessons afresh.
  }
  return { done: [], open: null };
}

function saveProgress() {
  localStorage.setItem(PROGRESS_KEY, JSON.stringify(progress));
}

const text = (lesson, field) => t(`lesson.${lesson.id}.${field}`);
const learnerSide = (lesson) => SIDE_OF[lesson.position.at(-1)];
const solved = () => current?.result === 'right';
const cellValue = (cell) => (cell.dataset.square === 'off' ? 'off' : Number(cell.dataset.square));

/** Paths in order with arrows, sets as a list in the page's language. */
function answerText(kind, picked) {
  const words = picked.map((value) => (value === 'off' ? t('learn.off') : String(value)));
  if (kind === 'path') return words.join(' → ');
  const sorted = kind === 'square' ? words : [...picked].sort((a, b) => a - b).map(String);
  return new Intl.ListFormat(document.documentElement.lang, { type: 'conjunction' }).format(sorted);
}

/** The learner's answer in the form of the server's `answer`: sets ascending, paths as picked. */
function normalized(kind, picked) {
  return PICKS_SQUARES.has(kind) ? picked : [...picked].sort((a, b) => a - b);
}

function isRight(lesson, answer) {
  const mine = normalized(lesson.kind, answer);
  return mine.length === lesson.answer.length && mine.every((value, i) => value === lesson.answer[i]);
}

// ------------------------------------------------------------------------------ answering

function pick(value) {
  if (!current || solved()) return;
  const { kind } = current.lesson;
  const picked = current.picked;
  if (kind === 'path') {
    // Clicking the last square again takes it back.
    if (picked.at(-1) === value) picked.pop();
    else picked.push(value);
  } else if (kind === 'square') {
    current.picked = picked[0] === value ? [] : [value];
  } else {
    const at = picked.indexOf(value);
    if (at >= 0) picked.splice(at, 1);
    else picked.push(value);
  }
  markPicks();
}

function check(answer) {
  if (!current || solved()) return;
  const { lesson } = current;
  current.result = isRight(lesson, answer) ? 'right' : 'wrong';
  if (current.result === 'wrong') current.wrong += 1;
  if (current.result === 'right') {
    if (!progress.done.includes(lesson.id)) progress.done.push(lesson.id);
    reportLessonDone(lesson.id);
    saveProgress();
    renderLesson();
    renderList();
    part('next').focus();
  } else {
    renderFeedback();
  }
}

function checkPicked() {
  if (!current || solved()) return;
  if (current.picked.length === 0) {
    current.result = 'empty';
    renderFeedback();
    return;
  }
  check(current.picked);
}

/** A click, Enter or Space on the board: a square or a piece, as the lesson asks. */
function choose(target) {
  if (!current || solved()) return;
  const { kind } = current.lesson;
  if (kind === 'pieces') {
    const piece = target.closest('.piece[role="button"]');
    if (piece) pick(Number(piece.dataset.square));
  } else if (PICKS_SQUARES.has(kind)) {
    const cell = target.closest('.cell[data-square]');
    if (cell) pick(cellValue(cell));
  }
}

// ------------------------------------------------------------------------------ drawing

/** Make the squares or the learner's pieces into buttons, as the lesson asks. */
function decorateBoard() {
  const { lesson } = current;
  const open = !solved();
  const squares = open && PICKS_SQUARES.has(lesson.kind);
  const pieces = open && lesson.kind === 'pieces';
  boardRoot.classList.toggle('picking-squares', squares);
  boardRoot.classList.toggle('picking-pieces', pieces);
  const pieceLabels = new Map();
  for (const piece of boardRoot.querySelectorAll('.piece')) {
    pieceLabels.set(piece.dataset.square, piece.getAttribute('aria-label'));
    const mine = pieces && piece.dataset.side === learnerSide(lesson);
    if (mine) {
      piece.setAttribute('role', 'button');
      piece.setAttribute('tabindex', '0');
    }
    piece.classList.toggle('asked', open && String(lesson.piece) === piece.dataset.square);
  }
  for (const cell of boardRoot.querySelectorAll('.cell[data-square]')) {
    const square = cell.querySelector('title')?.textContent ?? cell.dataset.square;
    const piece = pieceLabels.get(cell.dataset.square);
    cell.dataset.label = piece ? t('learn.cellWithPiece', { square, piece }) : square;
    if (squares) {
      cell.setAttribute('role', 'button');
      cell.setAttribute('tabindex', '0');
    } else {
      for (const name of ['role', 'tabindex', 'aria-label', 'aria-pressed']) cell.removeAttribute(name);
    }
  }
  rove();
  markPicks();
}

/** The board's choices in track order: squares or pieces, whichever the lesson asks for. */
function choices() {
  const nodes = [...boardRoot.querySelectorAll('[role="button"][data-square]')];
  const order = (node) => (node.dataset.square === 'off' ? 31 : Number(node.dataset.square));
  return nodes.sort((a, b) => order(a) - order(b));
}

/**
 * One tab stop on the board (a roving tabindex), not thirty: the arrows move along the track,
 * Home and End to its ends. `to` is the choice to hold the stop, else the one that held it.
 */
/** @param {Element | null} [to] */
function rove(to = null) {
  const all = choices();
  const holder = to ?? all.find((node) => node.dataset.square === roving) ?? all[0];
  roving = holder?.dataset.square ?? null;
  for (const node of all) node.setAttribute('tabindex', node === holder ? '0' : '-1');
  return holder;
}

/** Arrow keys on the board: the next or previous choice along the track. */
function moveFocus(event) {
  const all = choices();
  const here = all.indexOf(event.target.closest('[role="button"][data-square]'));
  if (here < 0) return false;
  const last = all.length - 1;
  const steps = { ArrowRight: here + 1, ArrowDown: here + 1, ArrowLeft: here - 1, ArrowUp: here - 1, Home: 0, End: last };
  if (!(event.key in steps)) return false;
  rove(all[Math.max(0, Math.min(last, steps[event.key]))])?.focus();
  return true;
}

/** Show what is picked: chosen squares (numbered in a path), pieces, throws, and in words. */
function markPicks() {
  const { lesson, picked } = current;
  overlay.replaceChildren();
  if (PICKS_SQUARES.has(lesson.kind) && !solved()) {
    for (const cell of boardRoot.querySelectorAll('.cell[data-square]')) {
      const order = picked.indexOf(cellValue(cell));
      cell.classList.toggle('chosen', order >= 0);
      const label = cell.dataset.label ?? '';
      if (lesson.kind === 'path') {
        cell.setAttribute('aria-label', order >= 0 ? t('learn.cellPicked', { label, n: order + 1 }) : label);
        if (order >= 0) overlay.append(orderMark(cell, order + 1));
      } else {
        cell.setAttribute('aria-label', label);
        cell.setAttribute('aria-pressed', String(order >= 0));
      }
    }
  } else {
    for (const cell of boardRoot.querySelectorAll('.cell.chosen')) cell.classList.remove('chosen');
  }
  for (const piece of boardRoot.querySelectorAll('.piece[role="button"]')) {
    const chosen = picked.includes(Number(piece.dataset.square));
    piece.classList.toggle('chosen', chosen);
    piece.setAttribute('aria-pressed', String(chosen));
  }
  for (const button of part('throw-choices').querySelectorAll('button')) {
    button.setAttribute('aria-pressed', String(picked.includes(Number(button.dataset.value))));
  }
  part('picked').textContent = picked.length && !solved() ? t('learn.picked', { list: answerText(lesson.kind, picked) }) : '';
}

/** The number of a picked square, in its top right corner. */
function orderMark(cell, n) {
  const rect = cell.querySelector('rect');
  const x = Number(rect.getAttribute('x')) + Number(rect.getAttribute('width')) - 12;
  const y = Number(rect.getAttribute('y')) + 18;
  return svg('text', { class: 'pick-order', x, y, 'text-anchor': 'middle', text: n });
}

function renderThrow(lesson) {
  show(part('throw-area'), Boolean(lesson.throw));
  if (!lesson.throw) return;
  const sticks = part('sticks');
  drawSticks(sticks, lesson.throw);
  const revealed = lesson.throw.shown || solved();
  if (!revealed) {
    // The value is the question: name only the faces.
    const faces = lesson.throw.sticks.map((marked) => t(marked ? 'sticks.marked' : 'sticks.blank')).join(', ');
    sticks.setAttribute('aria-label', t('learn.sticksUnread', { faces }));
    sticks.dataset.value = '';
  }
  part('throw-value').textContent = revealed ? t('throw.value', { value: lesson.throw.value }) : t('learn.readSticks');
}

function renderThrowChoices(lesson) {
  const choices = part('throw-choices');
  show(choices, lesson.kind === 'throws');
  choices.replaceChildren(
    ...(lesson.kind === 'throws' ? THROW_VALUES : []).map((value) =>
      el(
        'button',
        {
          type: 'button',
          class: 'throw-choice',
          'data-testid': 'throw-choice',
          'data-value': value,
          'aria-label': t('learn.throwChoice', { n: value }),
          'aria-pressed': 'false',
          disabled: solved(),
          onclick: () => pick(value),
        },
        String(value),
      ),
    ),
  );
}

function renderFeedback() {
  const { lesson, result } = current;
  part('feedback').dataset.result = result ?? '';
  const verdicts = {
    right: 'learn.right',
    wrong: 'learn.wrong',
    empty: lesson.kind === 'throws' ? 'learn.pickThrowsFirst' : 'learn.pickFirst',
  };
  part('verdict').textContent = result ? t(verdicts[result]) : '';
  // The first wrong try gets a hint to try again with; the second, the whole explanation.
  const explained = result === 'right' || (result === 'wrong' && current.wrong >= 2);
  part('why').textContent = explained ? text(lesson, 'why') : result === 'wrong' ? t(`learn.hint.${lesson.kind}`) : '';
}

function renderLesson() {
  const { lesson, index } = current;
  lessonView.dataset.lesson = lesson.id;
  lessonView.dataset.kind = lesson.kind;
  part('lesson-count').textContent = t('learn.count', { n: index + 1, total: lessons.length });
  part('lesson-title').textContent = text(lesson, 'title');
  part('lesson-setup').textContent = text(lesson, 'setup');
  // Once answered, the board shows the move made.
  board.render(solved() && lesson.after ? lesson.after : lesson.position);
  renderThrow(lesson);
  part('lesson-task').textContent = t(`learn.task.${lesson.kind}`);
  renderThrowChoices(lesson);
  decorateBoard();
  show(part('no-move'), lesson.kind !== 'throws');
  for (const id of ['check', 'no-move', 'clear']) part(id).disabled = solved();
  renderFeedback();
  const next = part('next');
  show(next, solved());
  next.textContent = t(index + 1 < lessons.length ? 'learn.next' : 'learn.finish');
}

function renderList() {
  const open = current?.index;
  part('lesson-summary').textContent = t('learn.listSummary', { done: progress.done.length, total: lessons.length });
  part('lesson-list').replaceChildren(
    ...lessons.map((lesson, index) => {
      const done = progress.done.includes(lesson.id);
      return el(
        'li',
        {},
        el(
          'button',
          {
            type: 'button',
            class: done ? 'done' : null,
            'data-lesson': lesson.id,
            'aria-current': index === open ? 'step' : null,
            onclick: () => {
              part('lesson-nav').open = false;
              openLesson(index, { focus: true });
            },
          },
          `${index + 1}. ${text(lesson, 'title')}`,
          done ? el('span', { class: 'visually-hidden', text: ` ${t('learn.doneMark')}` }) : null,
        ),
      );
    }),
  );
}

// ------------------------------------------------------------------------------ navigation

function openLesson(index, { focus = false } = {}) {
  current = { lesson: lessons[index], index, picked: [], result: null, wrong: 0 };
  progress.open = current.lesson.id;
  saveProgress();
  page.dataset.state = 'lesson';
  show(part('finished'), false);
  show(lessonView, true);
  renderLesson();
  renderList();
  if (focus) part('lesson-title').focus();
}

function finish() {
  current = null;
  progress.open = null;
  saveProgress();
  page.dataset.state = 'finished';
  show(lessonView, false);
  show(part('finished'), true);
  renderList();
  part('finished-heading').focus();
}

/** Where a visitor starts: the lesson the address names, the one left open, else the first not yet done. */
function firstLesson() {
  // `/learn#must-stop-26`: the lesson a class's teacher links beside "needs practice".
  const named = lessons.findIndex((lesson) => lesson.id === decodeURIComponent(location.hash.slice(1)));
  if (named >= 0) return named;
  const open = lessons.findIndex((lesson) => lesson.id === progress.open);
  if (open >= 0) return open;
  return lessons.findIndex((lesson) => !progress.done.includes(lesson.id));
}

async function loadLessons() {
  const response = await fetch('/api/lessons', { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`GET /api/lessons: ${response.status}`);
  return (await response.json()).lessons;
}

async function start() {
  mountLanguageSwitch(part('language'));
  boardRoot.addEventListener('click', (event) => choose(event.target));
  boardRoot.addEventListener('focusin', (event) => {
    const choice = /** @type {Element} */ (event.target).closest('[role="button"][data-square]');
    if (choice) rove(choice);
  });
  boardRoot.addEventListener('keydown', (event) => {
    if (moveFocus(event)) {
      event.preventDefault();
      return;
    }
    if ((event.key === 'Enter' || event.key === ' ') && /** @type {Element} */ (event.target).closest('[role="button"]')) {
      event.preventDefault();
      choose(event.target);
    }
  });
  part('check').addEventListener('click', checkPicked);
  part('no-move').addEventListener('click', () => check([]));
  part('clear').addEventListener('click', () => {
    if (!current || solved()) return;
    current.picked = [];
    markPicks();
  });
  part('next').addEventListener('click', () => {
    if (current.index + 1 < lessons.length) openLesson(current.index + 1, { focus: true });
    else finish();
  });
  part('restart').addEventListener('click', () => {
    progress = { done: [], open: null };
    openLesson(0, { focus: true });
  });
  onLanguageChange(() => {
    board.relabel();
    if (current) renderLesson();
    renderList();
  });

  try {
    lessons = await loadLessons();
  } catch {
    const problem = part('learn-error');
    problem.textContent = t('learn.unreachable');
    show(problem, true);
    page.dataset.state = 'error';
    return;
  }
  const index = firstLesson();
  if (index >= 0) openLesson(index);
  else {
    page.dataset.state = 'finished';
    show(part('finished'), true);
    renderList();
  }
}

start();
