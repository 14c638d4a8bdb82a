// Small DOM helpers shared by every module: build elements without innerHTML
// (the Content-Security-Policy forbids inline styles, and text never goes through HTML parsing).

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * An element of a page found by its test id: the views use each as the control it is (a button,
 * a field, a list, a dialog, a link), so its type offers what those offer. The checker still
 * sees every call: `replaceChildren(null)`, the "null" of issue 52, is refused.
 * @typedef {HTMLElement & HTMLInputElement & HTMLOListElement & HTMLDialogElement & HTMLAnchorElement & HTMLSelectElement & HTMLFormElement} Part
 */

/** @typedef {Record<string, unknown>} Attrs */
/** @typedef {Node | string | number | null | undefined | false} Child */

/**
 * @template {Element} E
 * @param {E} node
 * @param {Attrs} attrs
 * @param {(Child | Child[])[]} children
 * @returns {E}
 */
function fill(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name === 'text') node.textContent = String(value);
    else if (name.startsWith('on') && typeof value === 'function') node.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * An HTML element: `el('button', {class: 'x', onclick: f}, 'label')`.
 * @param {string} tag
 * @param {Attrs} [attrs]
 * @param {...(Child | Child[])} children
 * @returns {Part}
 */
export function el(tag, attrs = {}, ...children) {
  return fill(/** @type {Part} */ (document.createElement(tag)), attrs, children);
}

/**
 * An SVG element, same calling convention as `el`.
 * @param {string} tag
 * @param {Attrs} [attrs]
 * @param {...(Child | Child[])} children
 * @returns {SVGElement & SVGGraphicsElement}
 */
export function svg(tag, attrs = {}, ...children) {
  return fill(/** @type {SVGElement & SVGGraphicsElement} */ (document.createElementNS(SVG_NS, tag)), attrs, children);
}

/**
 * The element with `data-testid="<id>"` under `root` (the test ids double as the view's handles).
 * @param {string} id
 * @param {ParentNode} [root]
 * @returns {Part}
 */
export function part(id, root = document) {
  /** @type {Part | null} */
  const node = root.querySelector(`[data-testid="${id}"]`);
  if (!node) throw new Error(`missing element ${id}`);
  return node;
}

/**
 * Show or hide an element (the `hidden` attribute, styled in CSS).
 * @param {HTMLElement | SVGElement} node
 * @param {boolean} visible
 */
export function show(node, visible) {
  // The attribute, not the property: an SVG element has no `hidden` property to set.
  node.toggleAttribute('hidden', !visible);
}

/** True when the person asked the system for less motion. */
export function prefersReducedMotion() {
  return window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}
