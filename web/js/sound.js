// The room's chime: a short two-note sound synthesized with Web Audio (no sound files), played
// when a game starts and when the turn comes back after the opponent's, so a player in another
// tab hears it. The switch in the page's header turns it off, and the choice is remembered.

const STORAGE_KEY = 'senet.sound';
let context = null;

/** Whether the person left the sound on (the default). */
export function soundOn() {
  return localStorage.getItem(STORAGE_KEY) !== 'off';
}

/** Turn the checkbox `input` into the remembered on/off switch. */
export function mountSoundSwitch(input) {
  input.checked = soundOn();
  input.addEventListener('change', () => localStorage.setItem(STORAGE_KEY, input.checked ? 'on' : 'off'));
}

/**
 * Play the chime unless switched off. `root.dataset.chimes` counts the chimes played, which the
 * browser tests read (a headless browser has no speakers to listen to).
 */
export function chime(root) {
  if (!soundOn() || typeof AudioContext === 'undefined') return;
  context ??= new AudioContext();
  // Before any click on the page the browser keeps the context suspended: then no sound, no error.
  if (context.state === 'suspended') context.resume().catch(() => {});
  const start = context.currentTime;
  for (const [i, frequency] of [660, 880].entries()) {
    const tone = context.createOscillator();
    const gain = context.createGain();
    tone.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, start + i * 0.15);
    gain.gain.exponentialRampToValueAtTime(0.2, start + i * 0.15 + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + i * 0.15 + 0.14);
    tone.connect(gain).connect(context.destination);
    tone.start(start + i * 0.15);
    tone.stop(start + i * 0.15 + 0.15);
  }
  root.dataset.chimes = String(Number(root.dataset.chimes ?? 0) + 1);
}
