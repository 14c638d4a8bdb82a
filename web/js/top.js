// The leaderboard, /top (GET /api/top): the 100 best players with a settled rating who played
// a rated game in the last 30 days, as a table with the rating's deviation and the results.

import { el, part, show } from './dom.js';
import { mountLanguageSwitch, onLanguageChange, t } from './i18n.js';
import { leaderboard } from './api.js';
import { nameOf, playerHref, ratingText } from './players-view.js';

const root = part('top-page');
let players = null;

function row(player, i) {
  return el(
    'tr',
    { 'data-testid': 'top-row', 'data-player': player.id },
    el('td', { text: i + 1 }),
    el('th', { scope: 'row' }, el('a', { href: playerHref(player), text: nameOf(player) })),
    el('td', { text: `${ratingText(player)} ± ${player.deviation}` }),
    el('td', { text: `${player.wins} / ${player.losses} / ${player.draws}` }),
  );
}

function draw() {
  const state = root.dataset.state;
  const status = {
    loading: t('top.loading'),
    ready: players?.length ? t('top.loaded', { n: players?.length }) : t('top.empty'),
    failed: '',
  }[state];
  part('top-status').textContent = status;
  show(part('top-board'), state === 'ready' && players.length > 0);
  if (state === 'ready') part('top-rows').replaceChildren(...players.map(row));
}

async function start() {
  mountLanguageSwitch(part('language'));
  onLanguageChange(draw);
  draw();
  try {
    players = (await leaderboard()).players;
    root.dataset.state = 'ready';
  } catch {
    root.dataset.state = 'failed';
    part('top-error').textContent = t('top.failed');
    show(part('top-error'), true);
  }
  draw();
}

start();
