// A class for its teacher, /classes/{id} (issue 50; docs/UI.md "Class"): the join code, huge,
// and the QR code for the projector with the address to type; the pupils, read again every few
// seconds so joins show up by themselves, each with their games, lessons and the rules they
// stumble on ("needs practice", beside the lesson that teaches it); the actions on all; and the
// live dashboard of every board (class-dashboard.js).

import './players-view.js';
import { el, part, show } from './dom.js';
import { mountLanguageSwitch, onLanguageChange, t } from './i18n.js';
import { isIdentified } from './api.js';
import { PRESETS, presetLabel, presetValue, parsePreset } from './clock.js';
import { Level, DEFAULT_LEVEL } from './protocol.js';
import { classAction, classOf, csvPath, dateText, deleteClass, joinAddress, qrPath, removePupil } from './class-common.js';
import { createDashboard } from './class-dashboard.js';

/** How often the class is read again: pupils joining, games starting and ending. */
const REFRESH_MS = 3000;
const id = decodeURIComponent(location.pathname.split('/')[2] ?? '');
const dashboard = createDashboard(part('boards'), /** @type {HTMLDialogElement} */ (part('full-board')));
/** The class as last read (GET /api/classes/{id}), and the lessons' ids in /learn's order. */
let shown = null;
let lessons = [];

/** The code in two halves, easier to read off a wall. */
const spaced = (code) => `${code.slice(0, 5)} ${code.slice(5)}`;
const lessonTitle = (lesson) => t(`lesson.${lesson}.title`);

function fillChoices() {
  const levels = Object.values(Level);
  for (const select of document.querySelectorAll('select[data-levels]')) {
    const chosen = /** @type {HTMLSelectElement} */ (select).value || DEFAULT_LEVEL;
    select.replaceChildren(...levels.map((level) => el('option', { value: level, text: t(`ai.${level}`) })));
    /** @type {HTMLSelectElement} */ (select).value = chosen;
  }
  const clock = part('pair-clock');
  const clockChosen = clock.value;
  clock.replaceChildren(...PRESETS.map((preset) => el('option', { value: presetValue(preset), text: presetLabel(preset) })));
  clock.value = clockChosen;
  const lesson = part('lesson-choice');
  const lessonChosen = lesson.value;
  lesson.replaceChildren(...lessons.map((lessonId, i) => el('option', { value: lessonId, text: `${i + 1}. ${lessonTitle(lessonId)}` })));
  if (lessonChosen) lesson.value = lessonChosen;
}

function practiceItem(stumble) {
  return el(
    'li',
    { 'data-testid': 'practice', 'data-rule': stumble.rule },
    t('class.practiceCount', { rule: t(`illegal.${stumble.rule}`), n: stumble.count }),
    stumble.lesson ? [' — ', el('a', { href: `/learn#${stumble.lesson}`, text: t('class.lessonLink', { title: lessonTitle(stumble.lesson) }) })] : [],
  );
}

function pupilRow(pupil) {
  return el(
    'li',
    { 'data-testid': 'pupil', 'data-pupil': pupil.id },
    el(
      'div',
      { class: 'pupil-line' },
      el('strong', { 'data-testid': 'pupil-name', text: pupil.name }),
      el('span', { class: 'hint', text: ` ${t('class.record', pupil)}; ${t('class.lessonsDone', { n: pupil.lessons.length })}` }),
      el('button', { type: 'button', class: 'danger small', 'data-testid': 'remove-pupil', text: '✕', 'aria-label': t('class.remove', { name: pupil.name }), onclick: () => remove(pupil) }),
    ),
    pupil.needs_practice.length
      ? el('div', { class: 'practice' }, el('span', { class: 'needs', text: t('class.needsPractice') }), el('ul', {}, pupil.needs_practice.map(practiceItem)))
      : null,
  );
}

function render() {
  part('class-name').textContent = shown.name;
  document.title = `${shown.name} — ${t('class.pageTitle')}`;
  const address = joinAddress();
  part('join-at').textContent = t('class.joinAt', { address });
  part('join-code').textContent = spaced(shown.code);
  part('join-code').setAttribute('aria-label', `${t('class.codeLabel')}: ${shown.code.split('').join(' ')}`);
  part('join-qr').setAttribute('alt', t('class.qrAlt', { address }));
  part('expires').textContent = t('class.expires', { date: dateText(shown.expires_at) });
  part('pupil-count').textContent = `(${shown.pupils.length})`;
  const rows = shown.pupils.length ? shown.pupils.map(pupilRow) : [el('li', { class: 'hint', text: t('class.noPupils') })];
  part('pupils').replaceChildren(...rows);
  part('lesson-now').textContent = shown.lesson ? t('class.lessonNow', { title: lessonTitle(shown.lesson) }) : '';
  show(part('stop-lesson'), Boolean(shown.lesson));
  show(part('dashboard-none'), dashboard.update(shown.games) === 0);
}

async function refresh() {
  try {
    shown = await classOf(id);
  } catch (err) {
    if (err.status === 404) {
      show(part('class-view'), false);
      show(part('not-found'), true);
      return false;
    }
    // A network blip: the next read puts it right.
    return true;
  }
  render();
  return true;
}

/** Run one of the teacher's actions and say what it did. */
async function act(action, body, said) {
  const status = part('action-status');
  status.textContent = '';
  try {
    const answer = await classAction(id, action, body);
    status.textContent = said(answer ?? {});
  } catch (err) {
    status.textContent = t('classes.refused', { message: err.message });
  }
  await refresh();
}

function pairBody() {
  const data = new FormData(/** @type {HTMLFormElement} */ (part('pair-form')));
  return { how: String(data.get('how')), clock: parsePreset(String(data.get('clock'))), level: String(data.get('level')) };
}

const startedText = (answer) => [t('class.started', { n: answer.games }), answer.against_computer ? t('class.againstComputer', { n: answer.against_computer }) : ''].join(' ').trim();

async function remove(pupil) {
  try {
    await removePupil(id, pupil.id);
    part('action-status').textContent = t('class.removed', { name: pupil.name });
  } catch (err) {
    part('action-status').textContent = t('classes.refused', { message: err.message });
  }
  await refresh();
}

function onSubmit(formId, run) {
  part(formId).addEventListener('submit', (event) => {
    event.preventDefault();
    run();
  });
}

function wire() {
  onSubmit('pair-form', () => act('pair', pairBody(), startedText));
  onSubmit('computer-form', () => act('computer', { level: part('computer-level').value }, startedText));
  onSubmit('lesson-form', () => act('lesson', { lesson: part('lesson-choice').value }, () => t('class.lessonStarted')));
  part('stop-lesson').addEventListener('click', () => act('lesson', { lesson: null }, () => t('class.lessonStopped')));
  part('pause').addEventListener('click', () => act('pause', {}, (answer) => t('class.paused', { n: answer.games })));
  part('resume').addEventListener('click', () => act('resume', {}, (answer) => t('class.resumed', { n: answer.games })));
  part('end').addEventListener('click', () => act('end', {}, (answer) => t('class.ended', { n: answer.games })));
  part('delete-class').addEventListener('click', () => {
    part('confirm-text').textContent = t('classes.deleteConfirm', { name: shown.name });
    show(part('confirm-delete'), true);
    part('delete-yes').focus();
  });
  part('delete-no').addEventListener('click', () => show(part('confirm-delete'), false));
  part('delete-yes').addEventListener('click', async () => {
    await deleteClass(id).catch(() => null);
    location.assign('/classes');
  });
}

async function start() {
  mountLanguageSwitch(part('language'));
  const identified = await isIdentified();
  if (!identified) {
    show(part('needs-player'), true);
    return;
  }
  lessons = await fetch('/api/lessons')
    .then((response) => response.json())
    .then((body) => body.lessons.map((lesson) => lesson.id))
    .catch(() => []);
  fillChoices();
  part('join-qr').setAttribute('src', qrPath(id));
  part('csv').setAttribute('href', csvPath(id));
  wire();
  onLanguageChange(() => {
    fillChoices();
    if (shown) render();
    dashboard.relabel();
  });
  if (!(await refresh())) return;
  show(part('class-view'), true);
  const again = async () => {
    if (await refresh()) setTimeout(again, REFRESH_MS);
  };
  setTimeout(again, REFRESH_MS);
}

start();
