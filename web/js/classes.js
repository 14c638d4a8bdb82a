// The teacher's /classes page (issue 50): their open classes, each with its pupils and the date
// it is deleted (the retention the teacher was shown), deleted at once after a confirmation; and
// the form that opens one. A visitor without an identity is told how to get one (Settings).

import './players-view.js';
import { el, part, show } from './dom.js';
import { mountLanguageSwitch, onLanguageChange, t } from './i18n.js';
import { isIdentified } from './api.js';
import { createClass, dateText, deleteClass, listClasses } from './class-common.js';

const form = /** @type {HTMLFormElement} */ (part('create-form'));
const problem = part('create-error');
/** The classes as last read, and the one whose deletion awaits its confirmation. */
let classes = [];
let confirming = null;

const classHref = (id) => `/classes/${encodeURIComponent(id)}`;

function confirmRow(item) {
  return el(
    'div',
    { class: 'confirm-delete', 'data-testid': 'confirm-delete' },
    el('p', { text: t('classes.deleteConfirm', { name: item.name }) }),
    el('button', { type: 'button', class: 'danger', 'data-testid': 'delete-yes', text: t('classes.deleteYes'), onclick: () => remove(item) }),
    el('button', { type: 'button', 'data-testid': 'delete-no', text: t('classes.deleteNo'), onclick: () => ask(null) }),
  );
}

function row(item) {
  return el(
    'li',
    { 'data-testid': 'class-item', 'data-class': item.id },
    el('a', { href: classHref(item.id), text: item.name }),
    el('span', { class: 'hint', text: ` — ${t('classes.pupils', { n: item.pupils })}, ${t('classes.expires', { date: dateText(item.expires_at) })}` }),
    el('button', { type: 'button', class: 'danger', 'data-testid': 'delete', 'aria-label': `${t('classes.delete')}: ${item.name}`, text: t('classes.delete'), onclick: () => ask(item.id) }),
    confirming === item.id ? confirmRow(item) : null,
  );
}

function render() {
  show(part('yours'), true);
  const items = classes.length ? classes.map(row) : [el('li', { class: 'hint', text: t('classes.none') })];
  part('class-list').replaceChildren(...items);
}

function ask(id) {
  confirming = id;
  render();
  const target = id ? part('delete-yes') : null;
  target?.focus();
}

async function remove(item) {
  try {
    await deleteClass(item.id);
    confirming = null;
    await load();
    part('status').textContent = '';
  } catch (err) {
    part('status').textContent = t('classes.refused', { message: err.message });
  }
}

async function load() {
  classes = (await listClasses()).classes;
  render();
}

async function create() {
  const button = /** @type {HTMLButtonElement} */ (part('create'));
  button.disabled = true;
  show(problem, false);
  const data = new FormData(form);
  try {
    const made = await createClass({ name: String(data.get('name') ?? '').trim(), chat: String(data.get('chat')) });
    location.assign(classHref(made.id));
  } catch (err) {
    problem.textContent = err.code === 'network' ? t('classes.unreachable') : t('classes.refused', { message: err.message });
    show(problem, true);
    button.disabled = false;
  }
}

async function start() {
  mountLanguageSwitch(part('language'));
  onLanguageChange(() => classes.length && render());
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    create();
  });
  const identified = await isIdentified();
  show(part('needs-player'), !identified);
  show(part('create-card'), identified);
  if (identified) await load().catch(() => (part('status').textContent = t('classes.unreachable')));
}

start();
