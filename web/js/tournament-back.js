// A tournament game's room links back to its tournament. The tournament page notes, in this
// browser, the tournament of each game it opens or shows (`rememberTournament`); the room page
// then shows the way back (`mountTournamentBack`). A tournament id is public: no secret here.

const key = (room) => `senet.tournament.${room}`;

/** Notes that the game in `room` is one of tournament `id`'s. */
export function rememberTournament(room, id) {
  try {
    localStorage.setItem(key(room), id);
  } catch {
    // Storage refused (private mode, full): the room only lacks its link back.
  }
}

/** Shows `node` (holding a link) pointing to the tournament of `room`, if this browser knows it. */
export function mountTournamentBack(node, room) {
  let id = null;
  try {
    id = localStorage.getItem(key(room));
  } catch {
    id = null;
  }
  if (!id) return;
  const link = /** @type {HTMLAnchorElement} */ (node.querySelector('a'));
  link.href = `/t/${encodeURIComponent(id)}`;
  node.hidden = false;
}
