// Time controls: the presets the lobby offers, and the room page's two clocks.
//
// The server keeps the time (docs/PROTOCOL.md, "Clocks"); the page only shows it. Each state
// and each event that carries `clocks` gives both sides' remaining milliseconds at that moment;
// the page notes when it received them and runs the side to move's down from there. So a page
// that was slow or asleep is corrected by the next message, and no clock drifts for longer than
// one turn. One requestAnimationFrame loop runs while a clock runs (none in untimed games, none
// in a hidden tab) and touches the DOM only when a shown figure changes.

import { part, show } from './dom.js';
import { sideName, t } from './i18n.js';

/** The lobby's time controls, in seconds: `null` is untimed. */
export const PRESETS = [null, { initial: 180, increment: 2 }, { initial: 300, increment: 3 }, { initial: 600, increment: 5 }];

/** The correspondence controls (days a move), offered for online games only. */
export const CORRESPONDENCE = [1, 2, 3, 5, 7, 14].map((days) => ({ days }));

const DAY_MS = 86_400_000;

/** Under this, a clock shows tenths and warns. */
export const LOW_MS = 20_000;

const SIDES = ['black', 'white'];

/** A preset's form value ("180+2", "3d" for 3 days a move, "" when untimed) and back. */
export function presetValue(control) {
  if (control?.days) return `${control.days}d`;
  return control ? `${control.initial}+${control.increment}` : '';
}

export function parsePreset(value) {
  const days = /^(\d+)d$/.exec(value ?? '');
  if (days) return { days: Number(days[1]) };
  const match = /^(\d+)\+(\d+)$/.exec(value ?? '');
  return match ? { initial: Number(match[1]), increment: Number(match[2]) } : null;
}

/** A preset in words: "Untimed", "3 min + 2 s", "Correspondence, 3 days a move". */
export function presetLabel(control) {
  if (control?.days) return t('clock.days', { n: control.days });
  return control ? t('clock.preset', { m: control.initial / 60, s: control.increment }) : t('clock.untimed');
}

/** "4:59", "1:02:03"; under 20 s "0:19.4"; a day or more "2 d 5 h". Never below zero. */
export function formatClock(ms) {
  const left = Math.max(0, ms);
  if (left >= DAY_MS) {
    const hours = Math.floor(left / 3_600_000);
    return t('clock.daysLeft', { d: Math.floor(hours / 24), h: hours % 24 });
  }
  if (left < LOW_MS) {
    const tenths = Math.floor(left / 100);
    return `0:${String(Math.floor(tenths / 10)).padStart(2, '0')}.${tenths % 10}`;
  }
  const seconds = Math.ceil(left / 1000);
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
  const mmss = `${String(m).padStart(h ? 2 : 1, '0')}:${String(s).padStart(2, '0')}`;
  return h ? `${h}:${mmss}` : mmss;
}

/**
 * The room page's clocks: the elements `clock-black`, `clock-white` (each with a `.time`) under
 * `root`, shown only in timed games. `update(state)` after every change of the state; the figures
 * it was given are counted from that moment. (What a screen reader hears of them, at 60, 30 and
 * 10 s left, is said by the room's announcer; the figures themselves are not a live region.)
 */
export function createClocks(root, now = () => performance.now()) {
  const nodes = Object.fromEntries(SIDES.map((side) => [side, part(`clock-${side}`, root)]));
  let clock = null;
  let since = 0;
  let frame = null;
  // What each clock shows, so the DOM is touched only when it changes.
  const shown = { black: null, white: null };

  function remaining(side) {
    const ms = clock.remaining[side];
    return clock.running === side ? ms - (now() - since) : ms;
  }

  function draw() {
    for (const side of SIDES) {
      const ms = remaining(side);
      const text = formatClock(ms);
      const low = ms < LOW_MS;
      const running = clock.running === side;
      const key = `${text}|${low}|${running}`;
      if (shown[side] === key) continue;
      const node = nodes[side];
      const time = node.querySelector('.time');
      if (time && !shown[side]?.startsWith(`${text}|`)) time.textContent = text;
      shown[side] = key;
      Object.assign(node.dataset, { low: String(low), running: String(running), ms: String(Math.max(0, Math.round(ms))) });
      node.setAttribute('aria-label', t(low ? 'clock.lowLabel' : 'clock.label', { side: sideName(side), time: text }));
    }
  }

  function loop() {
    frame = null;
    if (!clock?.running) return;
    draw();
    frame = requestAnimationFrame(loop);
  }

  return {
    update(state) {
      const next = state?.clock ?? null;
      for (const side of SIDES) show(nodes[side], Boolean(next));
      if (next === clock) return;
      clock = next;
      since = now();
      if (!clock) return;
      draw();
      if (clock.running && frame === null) frame = requestAnimationFrame(loop);
    },
    /** A side's time left now, in ms (0 in an untimed game). */
    remaining(side) {
      return clock ? Math.max(0, remaining(side)) : 0;
    },
    /** Words again after a language switch. */
    relabel() {
      shown.black = shown.white = null;
      if (clock) draw();
    },
  };
}
