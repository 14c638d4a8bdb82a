// The server's HTTP API (docs/PROTOCOL.md, "HTTP") and the seat tokens this browser holds.

/** An HTTP error answer: `code` is the protocol's error code, `status` the HTTP status. */
class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code);
    this.status = status;
    this.code = code;
  }
}

export async function request(method, path, body) {
  const init = { method, headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, 'network', err.message);
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data?.error ?? `http_${response.status}`, data?.message);
  return data;
}

const roomPath = (id) => `/api/rooms/${encodeURIComponent(id)}`;

/** The room's page, where its link leads. */
export function roomPage(id) {
  return `/r/${encodeURIComponent(id)}`;
}

/** Create a room: `{mode, side, level?}`; answers `{room, url, seat, token}`. */
export function newRoom(options) {
  return request('POST', '/api/rooms', options);
}

/** Take the free seat of a room; answers `{seat, token}` (409 room_full when none is free). */
export function joinRoom(id) {
  return request('POST', `${roomPath(id)}/join`, {});
}

/** The public summary of a room (404 when it does not exist). */
export function roomSummary(id) {
  return request('GET', roomPath(id));
}

/** The whole game as recorded by the server. */
export function roomRecord(id) {
  return request('GET', `${roomPath(id)}/record`);
}

/** `{tournament}`: the tournament whose game a room is, or null. */
export function roomTournament(id) {
  return request('GET', `${roomPath(id)}/tournament`);
}

/** The engine's analysis of a finished game (404 not_finished before its end). */
export function roomAnalysis(id) {
  return request('GET', `${roomPath(id)}/analysis`);
}

// Seat tokens live in localStorage, one entry per room, so a reload keeps the seat.
// They are never put in a URL.
const seatKey = (room) => `senet.seat.${room}`;

/** Remember `{seat, token}` for a room. */
export function saveSeat(room, seat) {
  localStorage.setItem(seatKey(room), JSON.stringify({ seat: seat.seat, token: seat.token }));
}

/** Drop the seat of a room (its token was refused). */
export function forgetSeat(room) {
  localStorage.removeItem(seatKey(room));
}

/** The `{seat, token}` this browser holds for a room, or null. */
export function loadSeat(room) {
  try {
    const seat = JSON.parse(localStorage.getItem(seatKey(room)) ?? 'null');
    return typeof seat?.token === 'string' ? seat : null;
  } catch {
    return null;
  }
}

// The lobby (docs/PROTOCOL.md, "The lobby").

/** Post a seek: `{side, clock, visitor}`; answers `{room, url, seat, token}`. */
export function postSeek(options) {
  return request('POST', '/api/seeks', options);
}

/** Take a listed seek; answers `{room, url, seat, token}` (409 seek_taken when too late). */
export function takeSeek(room) {
  return request('POST', `/api/seeks/${encodeURIComponent(room)}/take`);
}

/** Cancel one's own seek with its seat token (in the body, never the URL). */
export function cancelSeek(room, token) {
  return request('DELETE', `/api/seeks/${encodeURIComponent(room)}`, { token });
}

/** Quick pairing: `{clock, visitor}`; answers a seat and `paired` (false: one's own seek waits). */
export function pairUp(options) {
  return request('POST', '/api/pairing', options);
}

// Players (issue 29). The identity is the `senet_player` cookie: HttpOnly, so this code never
// sees the secret; fetch sends it with every same-origin request.

/** This browser's player (404 no_player when it has none). */
export function me() {
  return request('GET', '/api/me');
}

/** Create this browser's player (or answer the one it has). */
export function createMe() {
  return request('POST', '/api/me');
}

/** Choose a display name (400 bad_name / name_reserved, 409 name_taken, 429 rename_too_soon). */
export function rename(name) {
  return request('PUT', '/api/me/name', { name });
}

/** A one-time code moving this identity to another device: `{code, expires_at}`. */
export function transferCode() {
  return request('POST', '/api/me/transfer');
}

/** Take over the identity a code was shown for (400 bad_code). */
export function redeemCode(code) {
  return request('POST', '/api/me/redeem', { code });
}

/** Delete this browser's identity; its games stay, under a deleted player. */
export function deleteMe() {
  return request('DELETE', '/api/me');
}

/** A player's page by name (404 no_player). */
export function playerNamed(name) {
  return request('GET', `/api/players?name=${encodeURIComponent(name)}`);
}

/** A player's page by id (404 no_player). */
export function playerById(id) {
  return request('GET', `/api/players/${encodeURIComponent(id)}`);
}

/** The leaderboard: `{players: [...]}`. */
export function leaderboard() {
  return request('GET', '/api/top');
}

/** How busy this server is: `{online, rooms, scope}` (docs/PROTOCOL.md, "HTTP"). */
export function serverCounts() {
  return request('GET', '/api/counts');
}

// Challenges, follows and blocks (issue 46; docs/PROTOCOL.md, "Challenges").

/** Challenge a named player: `{name, clock, side, rated, message}`; answers the challenge. */
export function sendChallenge(options) {
  return request('POST', '/api/challenges', options);
}

/** A challenge as the asker may see it (the challenger's seat and token once accepted). */
export function challengeOf(id) {
  return request('GET', `/api/challenges/${encodeURIComponent(id)}`);
}

/** The asker's pending challenges: `{sent, received}`. */
export function pendingChallenges() {
  return request('GET', '/api/challenges');
}

/** Accept; answers the accepter's `{room, url, seat, token}`. */
export function acceptChallenge(id) {
  return request('POST', `/api/challenges/${encodeURIComponent(id)}/accept`);
}

/** Decline with a reason from the list. */
export function declineChallenge(id, reason) {
  return request('POST', `/api/challenges/${encodeURIComponent(id)}/decline`, { reason });
}

/** The challenger takes a pending challenge back. */
export function cancelChallenge(id) {
  return request('DELETE', `/api/challenges/${encodeURIComponent(id)}`);
}

/** Follow or unfollow, block or unblock a player by id (`list`: 'follows' or 'blocks'). */
export function setListed(list, id, listed) {
  return request(listed ? 'PUT' : 'DELETE', `/api/me/${list}/${encodeURIComponent(id)}`);
}

/** This browser's player's correspondence games where they are to move: `{player, games: [{room,
 * due_at, opponent}]}`, soonest due first (`player` null and no games without an identity). */
export function yourTurn() {
  return request('GET', '/api/me/turns');
}

/**
 * Whether this browser has a player identity, asked without a 404 from `GET /api/me` for a
 * visitor (a console error): the your-turn list says who asks. False when unreachable.
 * @returns {Promise<boolean>}
 */
export function isIdentified() {
  return yourTurn().then(
    (turns) => turns.player !== null,
    () => false,
  );
}

// Web Push (issue 46; docs/PROTOCOL.md, "Web Push").

/** The server's VAPID public key, base64url: `{key}`, the `applicationServerKey`. */
export function pushKey() {
  return request('GET', '/api/push/key');
}

/** Keep this device's subscription (`PushSubscription.toJSON()`) for this browser's player. */
export function savePush(subscription) {
  return request('POST', '/api/me/push', subscription);
}

/** Forget this device's subscription. */
export function forgetPush(endpoint) {
  return request('DELETE', '/api/me/push', { endpoint });
}

/** The players this browser's player follows: `{follows: [{player, online, playing, recent}], max}`. */
export function follows() {
  return request('GET', '/api/me/follows');
}

/** The players this browser's player blocks: `{blocks: [PlayerRef], max}`. */
export function blocks() {
  return request('GET', '/api/me/blocks');
}
