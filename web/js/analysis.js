// The engine's verdict on a finished game (GET /api/rooms/{id}/analysis, docs/AI.md): a chart of
// black's chance of winning after every throw, the labelled moves marked, each point a way into
// the replay, which then draws the move played and the best one. The points are one tab stop:
// arrows move between them (a roving tabindex), Enter or Space shows the point's move.
//
// A game has a hundred throws or more: drawn as a hundred circles they overlapped into a smear,
// with 6-pixel labels at 360 px. So only the labelled moves and the chosen throw (the cursor) are
// drawn; the other throws are invisible targets, and a pointer over the chart moves the cursor to
// the nearest throw (a tap or a click shows it). The sizes are in chart units, 600 across: 24 of
// them are 12 px once the chart is scaled to a phone's width (chart.js draws the frame).

import { el, part, show, svg } from './dom.js';
import { frame, nearestPoint, scales } from './chart.js';
import { LANGUAGES, STRINGS } from './strings.js';
import { ANALYSIS_STRINGS } from './analysis-strings.js';
import { t, sideName } from './i18n.js';
import { offerPuzzles } from './puzzles-from-game.js';

for (const code of LANGUAGES) Object.assign(STRINGS[code], ANALYSIS_STRINGS[code]);

const JUDGED = new Set(['inaccuracy', 'mistake', 'blunder']);
/** The least width per throw on the analysis chart, in CSS px (the chart scrolls beyond). */
const POINT_PX = 6;

const forBlack = (side, p) => (side === 'black' ? p : 1 - p);
const percent = (p) => Math.round(p * 100);

/**
 * Black's chance after each throw: after the move played, or for a pass the next thrower's
 * chance before their throw (the position the pass left), or at the very end the last estimate.
 */
export function blackChances(throws) {
  return throws.map((row, i) => {
    if (row.after_played !== null && row.after_played !== undefined) return forBlack(row.side, row.after_played);
    const next = throws[i + 1];
    return next ? forBlack(next.side, next.before) : forBlack(row.side, row.before);
  });
}

/** Where a move from `from` with `value` lands: a square, or "off" past 30. */
const landing = (from, value) => (from + value > 30 ? 'off' : from + value);

/**
 * The analysis section `root` of the room page, fed by `loadAnalysis()`, driving `replay`
 * (replay.js). `show()` loads it once the game is over; `relabel()` redraws the texts.
 */
export function createAnalysis(root, { loadAnalysis, replay }) {
  const status = part('analysis-status', root);
  const chart = part('analysis-chart', root);
  const summary = part('analysis-summary', root);
  // The player's own biggest mistakes, offered as puzzles (puzzles-from-game.js).
  const puzzles = el('div', { class: 'analysis-puzzles', 'data-testid': 'analysis-puzzles', hidden: true });
  root.append(puzzles);
  let analysis = null;
  let state = 'idle'; // idle | loading | ready | failed
  let current = 0; // the point that holds the tab stop and is shown in the replay

  /** The throw a replay entry (a move or pass at record version `entry.v`) answered. */
  function throwOf(entry) {
    let found = -1;
    analysis.throws.forEach((row, i) => {
      if (row.v < entry.v) found = i;
    });
    return found;
  }

  function noteOf(entry) {
    const i = throwOf(entry);
    const row = analysis.throws[i];
    if (!row || row.kind === 'pass') return null;
    const moves = [{ from: row.played, to: entry.to, kind: 'played' }];
    if (row.kind === 'forced') return { moves, text: t('analysis.forced') };
    const lost = (row.loss * 100).toFixed(1);
    if (row.best === undefined || row.best === null) return { moves, text: t('analysis.engineMove') };
    const to = landing(row.best, row.value);
    moves.push({ from: row.best, to, kind: 'best' });
    const best = { lost, from: row.best, to: to === 'off' ? t('analysis.off') : to };
    // A move labelled "best" that still lost a little is close to the best, not the best.
    if (!JUDGED.has(row.label)) return { moves, text: t('analysis.closeTo', best) };
    return { moves, text: t('analysis.bestWas', { ...best, label: t(`analysis.label.${row.label}`) }) };
  }

  function pointLabel(row, i, chance) {
    const plain = t('analysis.point', { n: i + 1, side: sideName(row.side), value: row.value, p: percent(chance) });
    const point = row.exact ? t('analysis.pointExact', { point: plain }) : plain;
    return JUDGED.has(row.label) ? t('analysis.pointLabelled', { point, label: t(`analysis.label.${row.label}`) }) : point;
  }

  function select(i, focus) {
    current = i;
    let chosen = null;
    for (const point of chart.querySelectorAll('.point')) {
      const mine = Number(point.dataset.index) === i;
      point.setAttribute('tabindex', mine ? '0' : '-1');
      point.classList.toggle('current', mine);
      if (mine) chosen = point;
    }
    if (focus) chosen?.focus();
    const row = analysis?.throws[i];
    if (row) part('analysis-cursor', root).textContent = chosen?.getAttribute('aria-label') ?? '';
  }

  /**
   * The marked throw under a click, if any: on a long game the next throw's circle, drawn later,
   * overlaps a marked one, and a click on a mistake must choose the mistake.
   */
  function markedAt(event) {
    const hit = root.ownerDocument.elementsFromPoint(event.clientX, event.clientY).find((node) => node.matches('.point.marked'));
    return hit ? Number(hit.getAttribute('data-index')) : null;
  }

  /** The throw nearest to a pointer over the chart, by its horizontal position. */
  const nearest = (event) => nearestPoint(chart, event, analysis.throws.length);

  function choose(i) {
    select(i, false);
    replay.showAfter(analysis.throws[i].v);
  }

  function drawChart() {
    const throws = analysis.throws;
    const chances = blackChances(throws);
    const { x, y } = scales(throws.length, 0, 1);
    const ticks = [0, 0.5, 1].map((p) => ({ value: p, text: `${percent(p)}%` }));
    const drawn = frame(chart, { label: t('analysis.chartLabel'), title: t('analysis.chartTitle'), ticks, values: chances, x, y });
    const points = throws.map((row, i) => {
      const judged = JUDGED.has(row.label);
      const point = svg(
        'circle',
        {
          class: `point${judged ? ` marked ${row.label}` : ''}`,
          'data-testid': 'analysis-point',
          'data-index': i,
          'data-v': row.v,
          'data-label': row.label ?? row.kind,
          cx: x(i).toFixed(1),
          cy: y(chances[i]).toFixed(1),
          r: judged ? 9 : 7,
          role: 'button',
          tabindex: i === current ? 0 : -1,
          'aria-label': pointLabel(row, i, chances[i]),
        },
        svg('title', { text: pointLabel(row, i, chances[i]) }),
      );
      point.addEventListener('click', (event) => choose(markedAt(event) ?? i));
      return point;
    });
    chart.replaceChildren(...drawn, ...tableEntry(throws, x, y), ...points);
    // A long game keeps 6 px per throw on a phone: the chart scrolls sideways in its box.
    chart.style.minWidth = `${throws.length * POINT_PX}px`;
    select(current, false);
  }

  chart.addEventListener('pointermove', (event) => {
    if (analysis) select(nearest(event), false);
  });
  chart.addEventListener('click', (event) => {
    if (analysis && !/** @type {Element} */ (event.target).classList.contains('point')) choose(nearest(event));
  });

  /** A dashed line and a caption where the game entered the endgame table (docs/AI.md). */
  function tableEntry(throws, x, y) {
    const first = throws.findIndex((row) => row.exact);
    if (first < 0) return [];
    return [
      svg(
        'g',
        { class: 'table-entry', 'data-testid': 'analysis-table-entry', 'aria-hidden': 'true' },
        svg('line', { x1: x(first), x2: x(first), y1: y(1), y2: y(0) }),
        svg('text', { x: x(first) + 6, y: y(1) + 22, text: t('analysis.exactFrom') }),
      ),
    ];
  }

  chart.addEventListener('keydown', (event) => {
    if (!analysis) return;
    const last = analysis.throws.length - 1;
    const moves = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: last };
    if (event.key in moves) {
      event.preventDefault();
      select(Math.max(0, Math.min(last, moves[event.key])), true);
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      choose(current);
    }
  });

  function drawSummary() {
    const line = (side) =>
      t('analysis.summary', { side: sideName(side), ...analysis[side], loss: (analysis[side].mean_loss * 100).toFixed(1) });
    summary.textContent = `${line('black')} ${line('white')}`;
  }

  function draw() {
    show(root, state !== 'idle');
    status.textContent = state === 'loading' ? t('analysis.loading') : state === 'failed' ? t('analysis.failed') : '';
    show(chart, state === 'ready');
    if (state !== 'ready') return;
    drawChart();
    drawSummary();
    // The room page is /r/{id}.
    offerPuzzles(puzzles, decodeURIComponent(location.pathname.split('/')[2] ?? ''), analysis.throws);
  }

  function highlight(entry) {
    if (!entry || !analysis) return;
    const i = throwOf(entry);
    if (i >= 0) select(i, false);
  }

  return {
    /** Load the analysis, once. */
    async show() {
      if (state !== 'idle') return;
      state = 'loading';
      draw();
      try {
        analysis = await loadAnalysis();
        state = 'ready';
        replay.setNotes(noteOf, highlight);
      } catch {
        state = 'failed';
      }
      draw();
    },
    relabel: draw,
  };
}
