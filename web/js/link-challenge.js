// A challenge opened by its link, /c/{id} (issue 46): whoever has the link, with or without an
// identity, sees who challenges, the time control, the side they would play, rated or casual and
// the challenger's message, and may accept (to the game, with the seat the answer gives) or
// decline (the challenger hears it at once). A challenge no longer open, or one's own, says so.

import { el, part, show } from './dom.js';
import { hasText, mountLanguageSwitch, onLanguageChange, sideName, t } from './i18n.js';
import { acceptChallenge, challengeOf, declineChallenge, roomPage, saveSeat, yourTurn } from './api.js';
import { ErrorCode } from './protocol.js';
import { presetLabel } from './clock.js';
import { LANGUAGES, STRINGS } from './strings.js';
import { SOCIAL_STRINGS } from './social-strings.js';
import { PLAYERS_STRINGS } from './players-strings.js';

for (const code of LANGUAGES) Object.assign(STRINGS[code], SOCIAL_STRINGS[code], PLAYERS_STRINGS[code]);

const root = part('link-challenge');
const id = decodeURIComponent(location.pathname.replace(/^\/c\//, ''));
/** The challenge as last read; null before. */
let challenge = null;
/** This browser's player's id, or null. */
let asker = null;
/** The last status or refusal, re-worded on a language switch; null for none.
 * @type {[string, Record<string, unknown>, boolean] | null} */
let said = ['link.loading', {}, false];

function say(key, params = {}, alert = false) {
  said = [key, params, alert];
  draw();
}


/** The side the one who accepts plays: the other of the challenger's, unless drawn at random. */
const yourSide = (side) => (side === 'black' ? sideName('white') : side === 'white' ? sideName('black') : t('link.sideRandom'));

function drawCard() {
  const name = challenge.challenger.name;
  part('link-heading').textContent = t('link.heading', { name });
  const message = part('link-message');
  show(message, Boolean(challenge.message));
  if (challenge.message) message.textContent = `“${t(`social.message.${challenge.message}`)}”`;
  part('link-terms').replaceChildren(
    el('li', { text: t('link.clock', { clock: presetLabel(challenge.clock) }) }),
    el('li', { text: t('link.side', { side: yourSide(challenge.side) }) }),
    el('li', { text: t(challenge.rated ? 'rating.rated' : 'rating.casual') }),
  );
  const open = challenge.status === 'pending' && asker !== challenge.challenger.id;
  show(part('link-actions'), open);
  show(part('link-anyone'), open);
}

function draw() {
  const [key, params, alert] = said ?? [null, {}, false];
  const problem = part('link-error');
  part('link-status').textContent = key && !alert ? t(key, params) : '';
  problem.textContent = key && alert ? t(key, params) : '';
  show(problem, Boolean(key && alert));
  show(part('link-card'), Boolean(challenge));
  if (challenge) drawCard();
}

/** The status of a challenge that is no longer open, or whose it is.
 * @returns {[string, Record<string, unknown>] | null} */
function standing() {
  if (asker === challenge.challenger.id) return ['link.yours', {}];
  if (challenge.status !== 'pending') return ['link.gone', { status: t(`link.status.${challenge.status}`) }];
  return null;
}

function refuse(err) {
  const key = `link.error.${err.code}`;
  if (err.code === ErrorCode.ChallengeNotFound) say('link.notFound', {}, true);
  else if (hasText(key)) say(key, {}, true);
  else if (err.status === 0) say('lobby.unreachable', {}, true);
  else say('social.problem', { message: err.message }, true);
}

async function act(button, work) {
  for (const other of part('link-actions').querySelectorAll('button')) other.disabled = true;
  try {
    await work();
  } catch (err) {
    refuse(err);
    challenge = await challengeOf(id).catch(() => challenge);
  }
  for (const other of part('link-actions').querySelectorAll('button')) other.disabled = false;
  draw();
  button.focus();
}

function wire() {
  part('link-accept').addEventListener('click', (event) => act(event.target, async () => {
    const seat = await acceptChallenge(id);
    saveSeat(seat.room, seat);
    location.assign(roomPage(seat.room));
  }));
  part('link-decline').addEventListener('click', (event) => act(event.target, async () => {
    await declineChallenge(id, 'generic');
    challenge = { ...challenge, status: 'declined' };
    say('link.declined', { name: challenge.challenger.name });
  }));
}

async function start() {
  mountLanguageSwitch(part('language'));
  onLanguageChange(draw);
  wire();
  draw();
  try {
    asker = (await yourTurn().catch(() => null))?.player ?? null;
    challenge = await challengeOf(id);
    root.dataset.state = 'ready';
    const standingNow = standing();
    said = standingNow ? [standingNow[0], standingNow[1], false] : null;
  } catch (err) {
    root.dataset.state = 'failed';
    refuse(err);
  }
  draw();
}

start();
