// Language choice and lookup: every visible string comes from the tables in strings.js.
// The language is taken from the browser's list unless the person picked one, which is remembered.

import { STRINGS, LANGUAGES } from './strings.js';

const STORAGE_KEY = 'senet.lang';
const listeners = new Set();
let current = initialLanguage();

function initialLanguage() {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (stored !== null && LANGUAGES.includes(stored)) return stored;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const lower = String(tag).toLowerCase();
    if (lower.startsWith('zh')) return 'zh-Hant';
    if (lower.startsWith('ru')) return 'ru';
    if (lower.startsWith('en')) return 'en';
  }
  return 'en';
}

/**
 * The text for `key` with `{name}` placeholders filled from `params`.
 * A table entry that is an object holds plural forms chosen by `params.n`.
 */
export function t(key, params = {}) {
  let text = STRINGS[current][key];
  if (text === undefined) {
    // Loud on purpose: the browser tests fail on console errors, so a missing string is caught.
    console.error(`missing translation ${current}:${key}`);
    text = STRINGS.en[key] ?? key;
  }
  if (typeof text === 'object') {
    text = text[new Intl.PluralRules(current).select(params.n)] ?? text.other;
  }
  return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ''));
}

/** Whether the tables have a text for `key` (every language has the same keys). */
export function hasText(key) {
  return Object.hasOwn(STRINGS.en, key);
}

/** "Black" / "黑方" / "Чёрные". */
export function sideName(side) {
  return t(`side.${side}`);
}

/** Fill every `data-i18n*` attribute under `root` from the tables. */
/** @param {ParentNode} [root] */
export function translate(root = document) {
  document.documentElement.lang = current;
  // The pages are drawn once their words are in (senet.css): no text jumps in after the paint.
  document.documentElement.classList.add('translated');
  for (const node of root.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll('[data-i18n-aria]')) {
    node.setAttribute('aria-label', t(node.dataset.i18nAria));
  }
}

/** Switch language, remember the choice, and redraw. */
function setLanguage(code) {
  if (!LANGUAGES.includes(code) || code === current) return;
  current = code;
  localStorage.setItem(STORAGE_KEY, code);
  translate();
  for (const listener of listeners) listener(code);
}

/** Call `listener` after every language switch. */
export function onLanguageChange(listener) {
  listeners.add(listener);
}

/** Turn a `<select>` into the language switch (each language named in itself). */
export function mountLanguageSwitch(select) {
  select.replaceChildren(
    ...LANGUAGES.map((code) => {
      const option = document.createElement('option');
      option.value = code;
      option.lang = code;
      option.textContent = STRINGS[code]['lang.name'];
      return option;
    }),
  );
  select.value = current;
  select.addEventListener('change', () => setLanguage(select.value));
  translate();
}
