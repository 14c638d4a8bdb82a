// The room's sounds. The chime: a short two-note sound synthesized with Web Audio, played when a
// game starts and when the turn comes back after the opponent's, so a player in another tab
// hears it. The game's sounds: a throw, a move, a swap, the water and bearing off, short files
// of ours in web/sounds/ (written by scripts/make-sounds.py), chosen by what the server says
// happened. The switch in the page's header turns them all off, and the choice is remembered.

import { Effect, Event } from './protocol.js';

const STORAGE_KEY = 'senet.sound';
/** How loud the game's sounds play (the files peak at 0.6 of full scale). */
const VOLUME = 0.5;
/** @type {AudioContext | null} */
let context = null;

/** The game's sounds, named as their files in web/sounds/. */
export const Sound = Object.freeze({
  Throw: 'throw',
  Move: 'move',
  Swap: 'swap',
  Water: 'water',
  Off: 'off',
});

/** Whether the person left the sound on (the default). */
export function soundOn() {
  return localStorage.getItem(STORAGE_KEY) !== 'off';
}

/** Turn the checkbox `input` into the remembered on/off switch. */
export function mountSoundSwitch(input) {
  input.checked = soundOn();
  input.addEventListener('change', () => localStorage.setItem(STORAGE_KEY, input.checked ? 'on' : 'off'));
}

/** The page's audio context, made on first use and woken if the browser holds it suspended. */
function audio() {
  context ??= new AudioContext();
  // Before any click on the page the browser keeps the context suspended: then no sound, no error.
  if (context.state === 'suspended') context.resume().catch(() => {});
  return context;
}

/**
 * Play the chime unless switched off. `root.dataset.chimes` counts the chimes played, which the
 * browser tests read (a headless browser has no speakers to listen to).
 */
export function chime(root) {
  if (!soundOn() || typeof AudioContext === 'undefined') return;
  const ctx = audio();
  const start = ctx.currentTime;
  for (const [i, frequency] of [660, 880].entries()) {
    const tone = ctx.createOscillator();
    const gain = ctx.createGain();
    tone.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, start + i * 0.15);
    gain.gain.exponentialRampToValueAtTime(0.2, start + i * 0.15 + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + i * 0.15 + 0.14);
    tone.connect(gain).connect(ctx.destination);
    tone.start(start + i * 0.15);
    tone.stop(start + i * 0.15 + 0.15);
  }
  root.dataset.chimes = String(Number(root.dataset.chimes ?? 0) + 1);
}

/** The sound of a game event (`type`, `d` as the server sent them), or null for a silent one. */
export function soundOf(type, d) {
  if (type === Event.Rolled) return Sound.Throw;
  if (type !== Event.Moved) return null;
  switch (d.effect) {
    case Effect.Swap:
      return Sound.Swap;
    case Effect.Water:
      return Sound.Water;
    case Effect.Off:
      return Sound.Off;
    default:
      return Sound.Move;
  }
}

/**
 * Every sound decoded, fetched together on the first one asked for (each page waits for the
 * same promise, so sounds asked for in order play in order). Decoded by an offline context,
 * which the browser's autoplay rules leave alone; a buffer plays in any context. Forgotten on
 * failure, so a later event tries again.
 * @type {Promise<Map<string, AudioBuffer>> | null}
 */
let loading = null;

function loadSounds() {
  loading ??= Promise.all(
    Object.values(Sound).map(async (name) => {
      const response = await fetch(new URL(`../sounds/${name}.wav`, import.meta.url));
      if (!response.ok) throw new Error(`sound ${name}: ${response.status}`);
      const decoder = new OfflineAudioContext(1, 1, 11025);
      return /** @type {[string, AudioBuffer]} */ ([name, await decoder.decodeAudioData(await response.arrayBuffer())]);
    }),
  ).then(
    (pairs) => new Map(pairs),
    (error) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}

/**
 * Play the game's sound `name` (a `Sound`) unless switched off. Once it starts,
 * `root.dataset.sound` names it and `root.dataset.sounds` counts them, for the browser tests.
 */
export async function play(root, name) {
  if (!soundOn() || typeof AudioContext === 'undefined') return;
  let buffers;
  try {
    buffers = await loadSounds();
  } catch (error) {
    console.warn(error);
    return;
  }
  const buffer = buffers.get(name);
  if (!buffer || !soundOn()) return;
  const ctx = audio();
  const source = ctx.createBufferSource();
  const gain = ctx.createGain();
  source.buffer = buffer;
  gain.gain.value = VOLUME;
  source.connect(gain).connect(ctx.destination);
  source.start();
  root.dataset.sound = name;
  root.dataset.sounds = String(Number(root.dataset.sounds ?? 0) + 1);
}
