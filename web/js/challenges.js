// Challenges on a page (issue 46): the form that challenges the player a page shows, and the
// challenges for this browser's player as they arrive, each with Accept and Decline (a reason
// from the list). They arrive on the lobby socket, which carries the player cookie: the server
// sends `challenge` frames within a second, no polling. On accept both players go to the room:
// the accepter with the seat the answer gives, the challenger with the one its GET then gives.

import { el, part, show } from './dom.js';
import { t } from './i18n.js';
import { LANGUAGES, STRINGS } from './strings.js';
import { SOCIAL_STRINGS } from './social-strings.js';
import { acceptChallenge, challengeOf, declineChallenge, pendingChallenges, roomPage, saveSeat, sendChallenge } from './api.js';
import { DeclineReason } from './protocol.js';

for (const code of LANGUAGES) Object.assign(STRINGS[code], SOCIAL_STRINGS[code]);

const CLOCKS = {
  blitz: { initial: 300, increment: 3 },
  rapid: { initial: 900, increment: 10 },
  days: { days: 3 },
};

/** @type {Map<string, any>} the pending challenges for this player, by id */
const received = new Map();
/** The id of the challenge this page sent, while it waits. */
let mine = null;

function clockText(clock) {
  if (clock.days) return t('social.clock.days');
  return clock.initial >= 900 ? t('social.clock.rapid') : t('social.clock.blitz');
}

function say(text) {
  part('challenge-status').textContent = text;
}

async function go(seat) {
  saveSeat(seat.room, seat);
  location.assign(roomPage(seat.room));
}

function incomingItem(challenge) {
  const reason = el(
    'select',
    { 'data-testid': 'decline-reason', 'aria-label': t('social.reason') },
    ...Object.values(DeclineReason).map((value) => el('option', { value, text: t(`social.reason.${value}`) })),
  );
  const message = challenge.message ? t(`social.message.${challenge.message}`) : '';
  const rated = t(challenge.rated ? 'rating.rated' : 'rating.casual');
  const words = t('social.incoming', { name: challenge.challenger.name, clock: clockText(challenge.clock), rated, message });
  const accept = el('button', { type: 'button', class: 'button primary', 'data-testid': 'accept-challenge', text: t('social.accept') });
  const decline = el('button', { type: 'button', class: 'button', 'data-testid': 'decline-challenge', text: t('social.decline') });
  accept.addEventListener('click', async () => {
    try {
      await go(await acceptChallenge(challenge.id));
    } catch (err) {
      say(t('social.problem', { message: err.message }));
    }
  });
  decline.addEventListener('click', async () => {
    try {
      await declineChallenge(challenge.id, reason.value);
    } catch (err) {
      say(t('social.problem', { message: err.message }));
    }
  });
  return el('li', { 'data-testid': 'incoming-challenge', 'data-id': challenge.id }, el('p', { text: words }), el('div', { class: 'incoming-actions' }, reason, accept, decline));
}

function drawIncoming() {
  const list = part('incoming');
  list.replaceChildren(...[...received.values()].map(incomingItem));
  show(part('incoming-challenges'), received.size > 0);
}

async function heard(challenge) {
  if (challenge.id === mine) {
    const name = challenge.challenged?.name ?? '';
    if (challenge.status === 'accepted') {
      say(t('social.accepted', { name }));
      const seat = await challengeOf(challenge.id);
      if (seat.token) await go({ room: seat.room, seat: seat.seat, token: seat.token });
    } else if (challenge.status === 'declined') {
      say(t('social.declined', { name, reason: t(`social.reason.${challenge.reason ?? 'generic'}`) }));
      mine = null;
    } else if (challenge.status !== 'pending') {
      say(t(`social.${challenge.status}`));
      mine = null;
    }
    return;
  }
  if (challenge.status === 'pending' && challenge.challenged) received.set(challenge.id, challenge);
  else received.delete(challenge.id);
  drawIncoming();
}

/** Listen for this browser's player's challenges (nothing happens without a player cookie). */
export function listenForChallenges() {
  pendingChallenges()
    .then(({ received: waiting }) => {
      for (const challenge of waiting) received.set(challenge.id, challenge);
      drawIncoming();
    })
    .catch(() => {});
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const socket = new WebSocket(`${scheme}://${location.host}/ws/lobby`);
  socket.addEventListener('message', (event) => {
    const frame = JSON.parse(event.data);
    if (frame.t === 'challenge') heard(frame.d.challenge);
  });
  socket.addEventListener('close', () => setTimeout(listenForChallenges, 3000), { once: true });
}

/** The form that challenges `player` (a PlayerRef). */
export function mountChallengeForm(player) {
  const form = /** @type {HTMLFormElement} */ (part('challenge-form'));
  part('challenge-heading').textContent = t('social.challengeHeading', { name: player.name });
  form.onsubmit = async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const message = String(data.get('message'));
    try {
      const sent = await sendChallenge({
        name: player.name,
        clock: CLOCKS[String(data.get('clock'))],
        side: String(data.get('side')),
        rated: data.get('rated') === 'on',
        ...(message ? { message } : {}),
      });
      mine = sent.id;
      say(t('social.sent', { name: player.name }));
    } catch (err) {
      say(t('social.problem', { message: err.message }));
    }
  };
}
