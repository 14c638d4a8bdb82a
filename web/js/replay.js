// The replay: steps through a recorded game, one move or pass at a time, on a board of its own;
// each step's caption also says the chat messages sent since the step before (the last step's,
// those until the end: "good game" comes after the last move).

import { part, show } from './dom.js';
import { t } from './i18n.js';
import { createBoard } from './board.js';
import { entriesFrom, describe } from './movelog.js';
import { Event } from './protocol.js';
import { lineText } from './chat.js';

/**
 * Steps `[{position, entry}]` of a record: the start, then the position after each move or pass
 * (each entry with its record version `v`).
 */
function replaySteps(record) {
  const events = record.events ?? [];
  const started = events.find((event) => event.t === Event.Started);
  if (!started) return [];
  const steps = [{ position: started.d.position, entry: null, v: started.v }];
  const after = events.filter((event) => event.v > started.v).map((event) => ({ t: event.t, d: { ...event.d, v: event.v } }));
  for (const entry of entriesFrom(after)) {
    steps.push({ position: entry.position ?? steps[steps.length - 1].position, entry, v: entry.v });
  }
  const said = events.filter((event) => event.t === Event.Said && !event.d.withheld);
  steps.forEach((step, i) => {
    const after = i === 0 ? -Infinity : steps[i - 1].v;
    const until = i === steps.length - 1 ? Infinity : step.v;
    step.said = said.filter((event) => event.v > after && event.v <= until).map((event) => ({ ...event.d, v: event.v }));
  });
  return steps;
}

/**
 * The replay inside `root` (the `replay` section of the room page), opened by `openButton` with
 * the record that `loadRecord()` fetches. `notes(entry)`, when set by `setNotes`, adds to a step
 * the moves to draw on its board (`[{from, to, kind}]`) and a sentence for the caption; `onStep`
 * hears the entry shown after each change.
 */
export function createReplay(root, openButton, loadRecord) {
  const board = createBoard(part('replay-board', root));
  const caption = part('replay-caption', root);
  const counter = part('replay-step', root);
  /** @type {any[]} */
  let steps = [];
  let index = 0;
  /** @type {(entry: any) => ({moves: any[], text: string} | null)} */
  let notes = () => null;
  /** @type {(entry: any) => void} */
  let onStep = () => {};

  function draw() {
    const step = steps[index];
    board.render(step?.position ?? null);
    counter.textContent = t('replay.step', { i: index, n: Math.max(steps.length - 1, 0) });
    const note = step?.entry ? notes(step.entry) : null;
    if (note) board.showMoves(note.moves);
    if (!step) caption.textContent = t('replay.failed');
    else if (!step.entry) caption.textContent = t('replay.start');
    else caption.textContent = note?.text ? `${describe(step.entry)} ${note.text}` : describe(step.entry);
    if (step?.said.length) caption.textContent += ` — ${step.said.map((line) => lineText(line)).join(' · ')}`;
    part('replay-first', root).disabled = index === 0;
    part('replay-prev', root).disabled = index === 0;
    part('replay-next', root).disabled = index >= steps.length - 1;
    part('replay-last', root).disabled = index >= steps.length - 1;
    onStep(step?.entry ?? null);
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

  /** Load the record (again) and show the replay at its start. */
  async function open() {
    try {
      steps = replaySteps(await loadRecord());
    } catch {
      steps = [];
    }
    index = 0;
    show(root, true);
    draw();
  }
  openButton.addEventListener('click', open);

  return {
    relabel() {
      board.relabel();
      if (steps.length) draw();
    },
    setNotes(notesOf, stepListener) {
      notes = notesOf;
      onStep = stepListener;
      if (steps.length) draw();
    },
    /** Show the step of the first move or pass after record version `v` (opening the replay). */
    async showAfter(v) {
      if (steps.length === 0) await open();
      const found = steps.findIndex((step) => step.entry && step.entry.v > v);
      if (found >= 0) go(found);
    },
  };
}
