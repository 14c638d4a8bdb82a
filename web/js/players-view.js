// Players as every page shows them (issue 29): a name that links to the player's page, a rating
// with its provisional "?", and a rating change ("1500? → 1623?  +123"). Importing this module
// adds the player texts (players-strings.js) to the tables.

import { el } from './dom.js';
import { t } from './i18n.js';
import { LANGUAGES, STRINGS } from './strings.js';
import { PLAYERS_STRINGS } from './players-strings.js';

for (const code of LANGUAGES) Object.assign(STRINGS[code], PLAYERS_STRINGS[code]);

/** A rating (a PlayerRef, a Player or a Change) as shown: "1623", or "1500?" while provisional. */
export function ratingText({ rating, provisional }) {
  return `${rating}${provisional ? '?' : ''}`;
}

/** The name a player is shown under: a deleted one's in the page's language. */
export function nameOf(player) {
  return player.deleted ? t('rating.deleted') : player.name;
}

/** The player's page: by name while named (the address people share), else by id. */
export function playerHref(player) {
  return `/p/${encodeURIComponent(player.named && !player.deleted ? player.name : player.id)}`;
}

/** A player's name linking to their page, then the rating: `Anna 1623?` (or "anonymous"). */
export function playerLabel(player) {
  if (!player) return el('span', { class: 'player-ref', text: t('rating.anonymous') });
  return el(
    'span',
    { class: 'player-ref' },
    el('a', { href: playerHref(player), text: nameOf(player) }),
    ' ',
    el('span', { class: 'rating', text: ratingText(player) }),
  );
}

/** A rating change: "1500? → 1623?  +123". */
export function changeText({ before, after }) {
  const delta = after.rating - before.rating;
  return t('rating.change', {
    before: ratingText(before),
    after: ratingText(after),
    delta: delta > 0 ? `+${delta}` : delta < 0 ? `−${-delta}` : '±0',
  });
}
