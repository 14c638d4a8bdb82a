// The replay: steps through a recorded game, one move or pass at a time, on a board of its own.

import { part, show } from './dom.js';
import { t } from './i18n.js';
import { createBoard } from './board.js';
import { entriesFrom, describe } from './movelog.js';
import { Event } from './protocol.js';

/** Steps `[{position, entry}]` of a record: the start, then the position after each move or pass. */
function replaySteps(record) {
  const events = record.events ?? [];
  const started = events.find((event) => event.t === Event.Started);
  if (!started) return [];
  const steps = [{ position: started.d.position, entry: null }];
  for (const entry of entriesFrom(events.filter((event) => event.v > started.v))) {
    steps.push({ position: entry.position ?? steps[steps.length - 1].position, entry });
  }
  return steps;
}

/**
 * The replay inside `root` (the `replay` section of the room page), opened by `openButton` with
 * the record that `loadRecord()` fetches.
 */
export function createReplay(root, openButton, loadRecord) {
  const board = createBoard(part('replay-board', root));
  const caption = part('replay-caption', root);
  const counter = part('replay-step', root);
  let steps = [];
  let index = 0;

  function draw() {
    const step = steps[index];
    board.render(step?.position ?? null);
    counter.textContent = t('replay.step', { i: index, n: Math.max(steps.length - 1, 0) });
    if (!step) caption.textContent = t('replay.failed');
    else caption.textContent = step.entry ? describe(step.entry) : t('replay.start');
    part('replay-first', root).disabled = index === 0;
    part('replay-prev', root).disabled = index === 0;
    part('replay-next', root).disabled = index >= steps.length - 1;
    part('replay-last', root).disabled = index >= steps.length - 1;
  }

  const go = (to) => {
    index = Math.max(0, Math.min(steps.length - 1, to));
    draw();
  };
  part('replay-first', root).addEventListener('click', () => go(0));
  part('replay-prev', root).addEventListener('click', () => go(index - 1));
  part('replay-next', root).addEventListener('click', () => go(index + 1));
  part('replay-last', root).addEventListener('click', () => go(steps.length - 1));
  root.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowLeft') go(index - 1);
    if (event.key === 'ArrowRight') go(index + 1);
  });

  openButton.addEventListener('click', async () => {
    try {
      steps = replaySteps(await loadRecord());
    } catch {
      steps = [];
    }
    index = 0;
    show(root, true);
    draw();
  });

  return {
    relabel() {
      board.relabel();
      if (steps.length) draw();
    },
  };
}
