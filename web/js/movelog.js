// The list of what happened: one entry per move or pass, built from events (live or recorded)
// and worded in the current language each time it is shown.

import { t, sideName } from './i18n.js';
import { Effect, Event } from './protocol.js';

/**
 * Fold events `[{t, d}]` into entries `{v, kind: "move"|"pass", side, value, ...moved}`.
 * `moved` does not repeat the thrown value, so the last `rolled` supplies it.
 */
export function entriesFrom(events, lastRoll = { value: null }) {
  const entries = [];
  for (const { t: type, d } of events) {
    if (type === Event.Rolled) lastRoll.value = d.value;
    else if (type === Event.Moved) entries.push({ ...d, kind: 'move', value: lastRoll.value });
    else if (type === Event.Passed) entries.push({ ...d, kind: 'pass' });
  }
  return entries;
}

/** One entry as a sentence: "Black 3: 10 → 13, swap". */
export function describe(entry) {
  const base = { side: sideName(entry.side), value: entry.value ?? '?', from: entry.from, to: entry.to };
  if (entry.kind === 'pass') return t('log.pass', base);
  switch (entry.effect) {
    case Effect.Swap:
      return t('log.swap', { ...base, swapped: entry.swapped ?? entry.from });
    case Effect.Water:
      return t('log.water', { ...base, rest: entry.rest });
    case Effect.Off:
      return t('log.off', base);
    default:
      return t('log.step', base);
  }
}
