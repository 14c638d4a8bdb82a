// A tournament game's room links back to its tournament. The server knows each tournament
// game's tournament (`GET /api/rooms/{id}/tournament`); the tournament page also notes, in this
// browser, the tournament of each game it opens or shows (`rememberTournament`), so that the link
// shows at once. A tournament id is public: no secret here.

import { roomTournament } from './api.js';

const key = (room) => `senet.tournament.${room}`;

/** Notes that the game in `room` is one of tournament `id`'s. */
export function rememberTournament(room, id) {
  try {
    localStorage.setItem(key(room), id);
  } catch {
    // Storage refused (private mode, full): the room only lacks its link back.
  }
}

/** Shows `node` (holding a link) pointing to the tournament of `room`, if it is one's game. */
export function mountTournamentBack(node, room) {
  let id = null;
  try {
    id = localStorage.getItem(key(room));
  } catch {
    id = null;
  }
  if (id) {
    point(node, id);
    return;
  }
  roomTournament(room).then(
    (answer) => answer?.tournament && point(node, answer.tournament),
    () => {}, // No link back is all a failed look-up costs.
  );
}

function point(node, id) {
  const link = /** @type {HTMLAnchorElement} */ (node.querySelector('a'));
  link.href = `/t/${encodeURIComponent(id)}`;
  node.hidden = false;
}
