// A class game's room (issue 50): the pupil's page notes in this browser which room is their
// class game (`rememberClassGame`); the room page then leads back to /class (where the next
// game or lesson opens by itself) and reports each piece the engine refused to the pupil's
// class, by its rule ("needs practice" on the teacher's page); /learn reports the lessons a
// pupil finishes. A room id is public: no secret.

import { request } from './api.js';

const KEY = 'senet.class.game';
/** The teacher's choice of chat for the class game (`none` or `presets`). */
const CHAT_KEY = 'senet.class.chat';
/** Set by the pupil's page once this browser joined a class (class-pupil.js). */
export const JOINED_KEY = 'senet.class.joined';

/**
 * Notes that `room` is this browser's pupil's class game, and the class's `chat` (`none` or
 * `presets`; the server refuses the rest in any case).
 * @param {string} room
 * @param {string | undefined} chat
 */
export function rememberClassGame(room, chat) {
  try {
    localStorage.setItem(KEY, room);
    localStorage.setItem(CHAT_KEY, chat === 'presets' ? 'presets' : 'none');
  } catch {
    // Storage refused: the room only lacks its way back and its counts.
  }
}

function isClassGame(room) {
  try {
    return localStorage.getItem(KEY) === room;
  } catch {
    return false;
  }
}

/**
 * Shows `node` (holding a link to /class) in the pupil's class game, and keeps the chat to what
 * the teacher chose: none at all, or the preset messages only (`room.css`).
 */
export function mountClassBack(node, room) {
  if (!isClassGame(room)) return;
  let chat = 'none';
  try {
    chat = localStorage.getItem(CHAT_KEY) === 'presets' ? 'presets' : 'none';
  } catch {
    chat = 'none';
  }
  document.body.classList.add(`class-chat-${chat}`);
  // The link gets its address here: the kiosk shows the room's body too, and has no way out.
  node.querySelector('a')?.setAttribute('href', '/class');
  node.hidden = false;
}

/** The pupil touched a piece `rule` refused: counted for their class (never waited for). */
export function reportStumble(room, rule) {
  if (!isClassGame(room)) return;
  request('POST', '/api/class/me/stumbles', { rule }).catch(() => {});
}

/** A pupil finished a lesson of /learn: counted for their class (never waited for). */
export function reportLessonDone(lesson) {
  let joined = null;
  try {
    joined = localStorage.getItem(JOINED_KEY);
  } catch {
    joined = null;
  }
  if (joined) request('POST', `/api/class/me/lessons/${encodeURIComponent(lesson)}`).catch(() => {});
}
