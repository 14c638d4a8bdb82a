// The four throwing sticks, drawn as they fell, with the value they count for.

import { svg, prefersReducedMotion } from './dom.js';
import { t } from './i18n.js';

/** Draw `thrown` (`{sticks: [bool x4], value}` or null) into the `<svg>` `root`. */
export function drawSticks(root, thrown, { animate = false } = {}) {
  root.setAttribute('viewBox', '0 0 120 80');
  root.setAttribute('role', 'img');
  root.dataset.value = thrown ? thrown.value : '';
  if (!thrown) {
    root.setAttribute('aria-label', t('sticks.none'));
    root.replaceChildren(
      // Each stick a group like the thrown ones, so `.stick.idle rect` styles them (pale, outlined).
      ...[0, 1, 2, 3].map((i) => svg('g', { class: 'stick idle' }, svg('rect', { x: 10 + i * 28, y: 8, width: 16, height: 64, rx: 7 }))),
    );
    return;
  }
  const faces = thrown.sticks.map((marked) => t(marked ? 'sticks.marked' : 'sticks.blank')).join(', ');
  root.setAttribute('aria-label', t('sticks.label', { value: thrown.value, faces }));
  root.replaceChildren(
    ...thrown.sticks.map((marked, i) => {
      const x = 10 + i * 28;
      const stick = svg(
        'g',
        { class: `stick ${marked ? 'marked' : 'blank'}`, 'data-testid': 'stick', 'data-marked': String(marked) },
        svg('rect', { x, y: 8, width: 16, height: 64, rx: 7 }),
        // The marked face carries cross lines, so marked and blank differ by more than colour.
        marked ? svg('path', { class: 'marks', d: `M${x + 3},24 h10 M${x + 3},40 h10 M${x + 3},56 h10` }) : null,
      );
      return stick;
    }),
  );
  if (animate && !prefersReducedMotion()) {
    root.animate(
      [{ transform: 'rotate(-6deg) translateY(-6px)' }, { transform: 'rotate(4deg)' }, { transform: 'none' }],
      { duration: 320, easing: 'ease-out' },
    );
  }
}
