// Puzzles from one's own game (issue 49 item 4): under a finished game's analysis, the biggest
// mistakes of the side (or sides) this browser played, each a link to /puzzles, where the server
// hands out the position before the mistake and judges the answer (docs/PROTOCOL.md, "Puzzles").
// The page is not told the answer here either: the link names the game and the throw only.

import { el, show } from './dom.js';
import { sideName, t } from './i18n.js';
import { LANGUAGES, STRINGS } from './strings.js';
import { loadSeat } from './api.js';
import { sidesOf } from './announce.js';

const STRINGS_HERE = {
  en: {
    'fromGame.heading': 'Your mistakes as puzzles',
    'fromGame.lead': 'Find the better move where you went wrong; the server judges it.',
    'fromGame.link': 'Throw {n}: {side} threw {value} ({label})',
  },
  'zh-Hant': {
    'fromGame.heading': '把你的失誤變成棋題',
    'fromGame.lead': '在你走錯的地方找出更好的一步；由伺服器判定。',
    'fromGame.link': '第 {n} 擲：{side}擲得 {value}（{label}）',
  },
  ru: {
    'fromGame.heading': 'Ваши ошибки как задачи',
    'fromGame.lead': 'Найдите ход лучше там, где вы ошиблись; ответ проверит сервер.',
    'fromGame.link': 'Бросок {n}: {side} выбросили {value} ({label})',
  },
};
for (const code of LANGUAGES) Object.assign(STRINGS[code], STRINGS_HERE[code]);

/** How many mistakes are offered: the biggest first. */
const OFFERED = 3;
const MISTAKES = new Set(['mistake', 'blunder']);

/**
 * The biggest mistakes and blunders of `sides` in `throws` (the analysis' rows), with their
 * index in the game, biggest loss first, at most OFFERED.
 */
export function ownMistakes(throws, sides) {
  return throws
    .map((row, index) => ({ row, index }))
    .filter(({ row }) => sides.includes(row.side) && MISTAKES.has(row.label))
    .sort((a, b) => b.row.loss - a.row.loss || a.index - b.index)
    .slice(0, OFFERED);
}

/**
 * Draw the offer into `root` (a container of the analysis section) for the game `room`, whose
 * analysis has `throws`: nothing for a spectator or a game without a mistake of this seat's.
 */
export function offerPuzzles(root, room, throws) {
  const seat = loadSeat(room)?.seat ?? null;
  const offered = ownMistakes(throws, sidesOf(seat));
  show(root, offered.length > 0);
  root.replaceChildren(
    el('h4', { text: t('fromGame.heading') }),
    el('p', { class: 'hint', text: t('fromGame.lead') }),
    el(
      'ul',
      { class: 'from-game' },
      offered.map(({ row, index }) =>
        el(
          'li',
          {},
          el('a', {
            class: 'button',
            'data-testid': 'puzzle-from-game',
            'data-v': row.v,
            href: `/puzzles?${new URLSearchParams({ game: room, v: String(row.v) })}`,
            text: t('fromGame.link', { n: index + 1, side: sideName(row.side), value: row.value, label: t(`analysis.label.${row.label}`) }),
          }),
        ),
      ),
    ),
  );
}
