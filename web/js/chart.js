// A line chart in SVG, drawn one way for the whole site: the analysis of a game (analysis.js,
// black's chance after each throw) and a player's rating history (player.js). Sizes are in chart
// units, 600 across (24 of them are 12 px once the chart is scaled to a phone's width); the page's
// CSS styles `.chart` and its parts.

import { svg } from './dom.js';

export const WIDTH = 600;
export const HEIGHT = 240;
// Room on the left for the widest tick text ("100%", "100 %") at 24 units.
const PAD = { left: 90, right: 14, top: 40, bottom: 12 };

/** The scales of `count` points over values from `min` (bottom) to `max` (top). */
export function scales(count, min, max) {
  const span = WIDTH - PAD.left - PAD.right;
  const x = (i) => PAD.left + (count > 1 ? (i * span) / (count - 1) : span / 2);
  const y = (value) => PAD.top + ((max - value) / (max - min || 1)) * (HEIGHT - PAD.top - PAD.bottom);
  return { x, y };
}

/**
 * Sets up `chart` (an `<svg>`) as a group named `label`, and answers its frame: a grid line with
 * its text at each of `ticks` (`{value, text}`), the `title` on the chart itself, and the line
 * through `values` (one per point, drawn with `x` and `y` from `scales`).
 */
export function frame(chart, { label, title, ticks, values, x, y }) {
  chart.setAttribute('viewBox', `0 0 ${WIDTH} ${HEIGHT}`);
  chart.setAttribute('role', 'group');
  chart.setAttribute('aria-label', label);
  const grid = ticks.map(({ value, text }) =>
    svg(
      'g',
      { class: 'grid', 'aria-hidden': 'true' },
      svg('line', { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(value), y2: y(value) }),
      svg('text', { x: PAD.left - 8, y: y(value) + 8, text }),
    ),
  );
  const heading = svg('text', { class: 'chart-title', x: PAD.left, y: 26, 'aria-hidden': 'true', text: title });
  const line = svg('polyline', {
    class: 'line',
    'aria-hidden': 'true',
    points: values.map((value, i) => `${x(i).toFixed(1)},${y(value).toFixed(1)}`).join(' '),
  });
  return [...grid, heading, line];
}

/** The index of the point (of `count`) nearest to a pointer over `chart`, by its horizontal position. */
export function nearestPoint(chart, event, count) {
  const box = chart.getBoundingClientRect();
  const units = ((event.clientX - box.left) / box.width) * WIDTH;
  const span = WIDTH - PAD.left - PAD.right;
  const last = count - 1;
  return Math.max(0, Math.min(last, Math.round(((units - PAD.left) / span) * last)));
}
