// Follow and Block on another player's page (issue 46): each button says what it will do
// ("Follow" / "Unfollow", "Block" / "Unblock"), which shows the state (no aria-pressed: a label
// that changes with the state is one or the other, never both); the status line (a live region)
// says what changed, or why not (500 followed at most, 1,000 blocked).

import { part, show } from './dom.js';
import { hasText, onLanguageChange, t } from './i18n.js';
import { blocks, follows, setListed } from './api.js';
import { nameOf } from './players-view.js';
import { LANGUAGES, STRINGS } from './strings.js';
import { SOCIAL_STRINGS } from './social-strings.js';

for (const code of LANGUAGES) Object.assign(STRINGS[code], SOCIAL_STRINGS[code]);

/** The last thing said: `[key, params]`, re-worded on a language switch. */
let said = null;

function say(key, params = {}) {
  said = [key, params];
  part('social-status').textContent = t(key, params);
}

/** Mount the two buttons for `player` (a PlayerRef other than the asker's). */
export async function mountFollowButtons(player) {
  const state = { follows: false, blocks: false };
  try {
    const [followed, blocked] = await Promise.all([follows(), blocks()]);
    state.follows = followed.follows.some((entry) => entry.player.id === player.id);
    state.blocks = blocked.blocks.some((entry) => entry.id === player.id);
  } catch {
    return; // no identity after all, or the server unreachable: no buttons
  }
  const buttons = { follows: part('follow'), blocks: part('block') };
  const words = {
    follows: ['social.follow', 'social.unfollow', 'social.followed', 'social.unfollowed'],
    blocks: ['social.block', 'social.unblock', 'social.blocked', 'social.unblocked'],
  };
  const draw = () => {
    for (const list of ['follows', 'blocks']) {
      buttons[list].textContent = t(words[list][state[list] ? 1 : 0]);
      buttons[list].dataset.on = String(state[list]);
    }
    if (said) part('social-status').textContent = t(...said);
  };
  for (const list of ['follows', 'blocks']) {
    buttons[list].addEventListener('click', async () => {
      const button = buttons[list];
      button.disabled = true;
      try {
        await setListed(list, player.id, !state[list]);
        state[list] = !state[list];
        say(words[list][state[list] ? 2 : 3], { name: nameOf(player) });
      } catch (err) {
        const key = `social.error.${err.code}`;
        if (hasText(key)) say(key);
        else say('social.problem', { message: err.message });
      }
      button.disabled = false;
      draw();
    });
  }
  onLanguageChange(draw);
  draw();
  show(part('social-actions'), true);
}
