// Texts of the practice features of the room page, in each language of strings.js (analysis.js
// merges them into its tables): the analysis of a finished game and the hint button. Labels
// follow docs/AI.md ("Analysis of a game").

const en = {
  'analysis.heading': 'Chances throw by throw',
  'analysis.loading': 'The engine is analysing the game…',
  'analysis.failed': 'The analysis could not be loaded.',
  'analysis.chartLabel': "Black's chance of winning after each throw. Choose a point to see that move in the replay.",
  'analysis.point': "Throw {n}, {side} {value}: black's chance {p}%",
  'analysis.pointLabelled': '{point}, {label}',
  'analysis.label.best': 'best',
  'analysis.label.inaccuracy': 'inaccuracy',
  'analysis.label.mistake': 'mistake',
  'analysis.label.blunder': 'blunder',
  'analysis.legend': 'Larger marks: inaccuracies, mistakes and blunders. In the replay, the solid arrow is the move played and the dashed one the best move.',
  'analysis.forced': '(The only legal move.)',
  'analysis.engineMove': '(The engine’s choice too.)',
  'analysis.bestWas': '({label}, {lost} points lost: the best move was {from} → {to}.)',
  'analysis.off': 'off',
  'analysis.summary': '{side}: decisions {decisions}, inaccuracies {inaccuracy}, mistakes {mistake}, blunders {blunder}; on average {loss} points lost per decision.',
  'action.hint': 'Hint',
  'hint.move': 'Hint: the engine would move the piece on {from}.',
  'error.hint_not_allowed': 'Hints are for practice: only against the computer or on one screen, never in an online game.',
};

const zhHant = {
  'analysis.heading': '逐擲勝率',
  'analysis.loading': '引擎正在分析這一局…',
  'analysis.failed': '無法載入分析。',
  'analysis.chartLabel': '每一擲之後黑方的勝率。選擇一個點，即可在重播中查看那一步。',
  'analysis.point': '第 {n} 擲，{side} {value}：黑方勝率 {p}%',
  'analysis.pointLabelled': '{point}，{label}',
  'analysis.label.best': '最佳',
  'analysis.label.inaccuracy': '不精確',
  'analysis.label.mistake': '失誤',
  'analysis.label.blunder': '大錯',
  'analysis.legend': '較大的標記：不精確、失誤與大錯。重播中，實線箭頭是實際走法，虛線箭頭是最佳走法。',
  'analysis.forced': '（唯一合法的走法。）',
  'analysis.engineMove': '（引擎也會這樣走。）',
  'analysis.bestWas': '（{label}，損失 {lost} 個百分點：最佳走法是 {from} → {to}。）',
  'analysis.off': '離盤',
  'analysis.summary': '{side}：{decisions} 次抉擇，{inaccuracy} 次不精確，{mistake} 次失誤，{blunder} 次大錯，平均每次抉擇損失 {loss} 個百分點。',
  'action.hint': '提示',
  'hint.move': '提示：引擎會移動 {from} 格上的棋子。',
  'error.hint_not_allowed': '提示僅供練習：只能在對電腦或同一螢幕的對局中使用，線上對局不可使用。',
};

const ru = {
  'analysis.heading': 'Шансы бросок за броском',
  'analysis.loading': 'Движок анализирует партию…',
  'analysis.failed': 'Не удалось загрузить анализ.',
  'analysis.chartLabel': 'Шансы чёрных на победу после каждого броска. Выберите точку, чтобы увидеть этот ход в повторе.',
  'analysis.point': 'Бросок {n}, {side} {value}: шансы чёрных {p}%',
  'analysis.pointLabelled': '{point}, {label}',
  'analysis.label.best': 'лучший',
  'analysis.label.inaccuracy': 'неточность',
  'analysis.label.mistake': 'ошибка',
  'analysis.label.blunder': 'грубая ошибка',
  'analysis.legend': 'Крупные метки: неточности, ошибки и грубые ошибки. В повторе сплошная стрелка — сыгранный ход, пунктирная — лучший.',
  'analysis.forced': '(Единственный разрешённый ход.)',
  'analysis.engineMove': '(Движок сыграл бы так же.)',
  'analysis.bestWas': '({label}, потеряно {lost} п. п.: лучший ход {from} → {to}.)',
  'analysis.off': 'с доски',
  'analysis.summary': '{side}: решений — {decisions}, неточностей — {inaccuracy}, ошибок — {mistake}, грубых ошибок — {blunder}; в среднем потеряно {loss} п. п. за решение.',
  'action.hint': 'Подсказка',
  'hint.move': 'Подсказка: движок пошёл бы фишкой с клетки {from}.',
  'error.hint_not_allowed': 'Подсказки — для тренировки: только в игре с компьютером или на одном экране, никогда в сетевой партии.',
};

export const ANALYSIS_STRINGS = { en, 'zh-Hant': zhHant, ru };
