// Small DOM helpers shared by every module: build elements without innerHTML
// (the Content-Security-Policy forbids inline styles, and text never goes through HTML parsing).

const SVG_NS = 'http://www.w3.org/2000/svg';

function fill(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name === 'text') node.textContent = value;
    else if (name.startsWith('on') && typeof value === 'function') node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** An HTML element: `el('button', {class: 'x', onclick: f}, 'label')`. */
export function el(tag, attrs = {}, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element, same calling convention as `el`. */
export function svg(tag, attrs = {}, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** The element with `data-testid="<id>"` under `root` (the test ids double as the view's handles). */
export function part(id, root = document) {
  const node = root.querySelector(`[data-testid="${id}"]`);
  if (!node) throw new Error(`missing element ${id}`);
  return node;
}

/** Show or hide an element (the `hidden` attribute, styled in CSS). */
export function show(node, visible) {
  node.hidden = !visible;
}

/** True when the person asked the system for less motion. */
export function prefersReducedMotion() {
  return window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}
