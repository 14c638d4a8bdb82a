// Texts of the "your turn" list (your-turn.js) on the home page and the player page, in each
// language of strings.js (your-turn.js merges them into its tables).

const en = {
  'turns.heading': 'Your turn',
  'turns.count': { one: 'It is your move in {n} game.', other: 'It is your move in {n} games.' },
  'turns.against': 'Your move against {opponent}',
  'turns.due': 'time runs out {when}',
  'turns.open': 'Play',
  'turns.openLabel': 'Play your move against {opponent}',
  'turns.notification': 'Your move against {opponent}',
};

const zhHant = {
  'turns.heading': '輪到你了',
  'turns.count': '你有 {n} 盤棋輪到你走。',
  'turns.against': '對 {opponent}，輪到你走',
  'turns.due': '時間 {when} 用完',
  'turns.open': '走棋',
  'turns.openLabel': '對 {opponent}，走你的一步',
  'turns.notification': '對 {opponent}，輪到你走',
};

const ru = {
  'turns.heading': 'Ваш ход',
  'turns.count': {
    one: 'Ваш ход в {n} партии.',
    few: 'Ваш ход в {n} партиях.',
    many: 'Ваш ход в {n} партиях.',
    other: 'Ваш ход в {n} партии.',
  },
  'turns.against': 'Ваш ход против {opponent}',
  'turns.due': 'время истекает {when}',
  'turns.open': 'Ходить',
  'turns.openLabel': 'Сделать ход против {opponent}',
  'turns.notification': 'Ваш ход против {opponent}',
};

export const TURNS_STRINGS = { en, 'zh-Hant': zhHant, ru };
