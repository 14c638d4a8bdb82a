// What the class pages share (issue 50, docs/UI.md "Class"): their texts merged into the tables,
// the class routes of docs/PROTOCOL.md "Classes", and dates as the teacher reads them.

import { LANGUAGES, STRINGS } from './strings.js';
import { CLASS_STRINGS } from './class-strings.js';
import { LEARN_STRINGS } from './learn-strings.js';
import { request } from './api.js';

// The lessons' titles too: the teacher picks a lesson and reads "needs practice" beside one.
for (const code of LANGUAGES) Object.assign(STRINGS[code], CLASS_STRINGS[code], LEARN_STRINGS[code]);

const classPath = (id) => `/api/classes/${encodeURIComponent(id)}`;

/** The teacher's open classes: `{classes: [{id, name, code, chat, lesson, expires_at, pupils}]}`. */
export const listClasses = () => request('GET', '/api/classes');
/** Open a class: `{name, chat}`; answers the class. */
export const createClass = (body) => request('POST', '/api/classes', body);
/** The class with its `pupils` (their report) and `games`. */
export const classOf = (id) => request('GET', classPath(id));
/** Delete a class at once, its pupils' names with it. */
export const deleteClass = (id) => request('DELETE', classPath(id));
/** A teacher's action on all: `pair`, `computer`, `lesson`, `pause`, `resume`, `end`. */
export const classAction = (id, action, body = {}) => request('POST', `${classPath(id)}/${action}`, body);
/** Remove a pupil from the class. */
export const removePupil = (id, pupil) => request('DELETE', `${classPath(id)}/pupils/${encodeURIComponent(pupil)}`);
/** Where the class's QR code and report are. */
export const qrPath = (id) => `${classPath(id)}/qr.svg`;
export const csvPath = (id) => `${classPath(id)}/report.csv`;

/** A pupil joins: `{code, name}`; answers `{pupil, class}` and sets the pupil's cookie. */
export const joinClass = (body) => request('POST', '/api/classes/join', body);
/** The pupil, their class, their latest game with its seat token, and the lesson started. */
export const pupilMe = () => request('GET', '/api/class/me');

/** The date a class is deleted, in the page's language. */
export function dateText(ms) {
  return new Date(ms).toLocaleDateString(document.documentElement.lang || 'en', { year: 'numeric', month: 'long', day: 'numeric' });
}

/** The pupils' page with the class's code: what the QR code and the projector show. */
export function joinAddress() {
  return `${location.host}/class`;
}
