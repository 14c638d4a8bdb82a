// Texts of the /learn page, in each language of strings.js (learn.js merges them into its tables).
// `lesson.<id>.*` belong to the lessons of lessons/lessons.json: what a `why` asserts is listed
// there as the lesson's claims and checked against the engine by tests/lessons.rs. Each language
// states the same numbers (the browser test compares them). House names follow the seed pages.

const en = {
  'learn.pageTitle': 'Senet — learn the rules',
  'learn.heading': 'Learn the rules by playing',
  'learn.intro': 'Short lessons on a real board; you play black. Answer by clicking the board: the right answer is worked out by the same rules engine that judges every game on this server.',
  'learn.listHeading': 'Lessons',
  'learn.listSummary': 'All lessons ({done} of {total} done)',
  'learn.count': 'Lesson {n} of {total}',
  'learn.doneMark': '(done)',
  'learn.unreachable': 'The lessons could not be loaded. Reload the page to try again.',
  'learn.task.path': 'Click the squares in order, then Check.',
  'learn.task.square': 'Click the square, then Check.',
  'learn.task.pieces': 'Click every piece that may move, then Check. If none can, press “No legal move”.',
  'learn.task.throws': 'Choose every throw that does it, then Check.',
  'learn.throwsLabel': 'Throws',
  'learn.throwChoice': 'Throw {n}',
  'learn.check': 'Check',
  'learn.noMove': 'No legal move',
  'learn.clear': 'Clear',
  'learn.next': 'Next lesson',
  'learn.finish': 'Finish',
  'learn.picked': 'Your answer: {list}',
  'learn.pickFirst': 'Choose your answer on the board first, or press “No legal move”.',
  'learn.pickThrowsFirst': 'Choose the throws first.',
  'learn.right': 'Right!',
  'learn.wrong': 'Not quite — try again.',
  'learn.hint.path': 'Hint: count the throw square by square from the piece, along the track (the middle row runs right to left), and mind what stands where it lands.',
  'learn.hint.square': 'Hint: count the throw square by square from the piece along the track, then ask what happens on that square.',
  'learn.hint.pieces': 'Hint: try each piece in turn: where would the throw take it, and is that square free, a lone enemy, or part of a block?',
  'learn.hint.throws': 'Hint: try each throw from 1 to 5 and count it out along the track.',
  'learn.readSticks': 'Read the value from the sticks yourself.',
  'learn.sticksUnread': 'Sticks: {faces}.',
  'learn.off': 'off the board',
  'learn.cellWithPiece': '{square}: {piece}',
  'learn.cellPicked': '{label} (your choice number {n})',
  'learn.finishedHeading': 'All lessons done',
  'learn.finishedText': 'You know the rules this server plays by. Try them in a game: with a friend online, on one screen, or against the computer.',
  'learn.play': 'Play a game',
  'learn.restart': 'Start the lessons again',

  'lesson.route-10-11.title': 'Around the first turn',
  'lesson.route-10-11.setup': 'You threw 3. The piece on 9 moves three squares along the track.',
  'lesson.route-10-11.why': 'Squares are counted along the track, not across the screen: after 10 the track turns down to 11, directly below, and the middle row runs right to left. So the piece on 9 steps on 10 and 11 and lands on 12.',

  'lesson.route-20-21.title': 'Around the second turn',
  'lesson.route-20-21.setup': 'You threw 4. The piece on 18 moves four squares along the track.',
  'lesson.route-20-21.why': 'The middle row ends at 20, on the left; the track turns down to 21 and the last row runs left to right again. So the piece steps on 19, 20 and 21 and lands on 22.',

  'lesson.sticks-blank.title': 'Four blank faces',
  'lesson.sticks-blank.setup': 'The sticks fell with all four blank faces up. Where does your piece on 3 land?',
  'lesson.sticks-blank.why': 'Four blank faces count 5, never 0: the piece goes from 3 to 8. A throw is lost only when no piece can use it, never because the sticks are blank.',

  'lesson.swap.title': 'Swapping places',
  'lesson.swap.setup': 'You threw 2. Your piece on 12 lands on 14, where a white piece stands alone. Where does the white piece go?',
  'lesson.swap.why': 'A single enemy piece is not captured but swapped: your piece takes 14 and the white piece goes back to 12, the square yours came from.',

  'lesson.start.title': 'The first throw',
  'lesson.start.setup': 'Black always throws first (take white against the computer and the computer begins). At the start you threw 1. Which of your pieces may move?',
  'lesson.start.why': 'All five: each white piece stands alone between two black ones, so any black piece may swap with the white piece just ahead, and the piece on 10 steps to 11.',

  'lesson.block-land.title': 'A block cannot be landed on',
  'lesson.block-land.setup': 'You threw 3. White has pieces side by side on 16 and 17, and one alone on 21. Which of your pieces may move?',
  'lesson.block-land.why': 'Two or more enemy pieces side by side form a block: 13 + 3 would land on 16, part of the block, so that piece cannot move. The white piece on 21 is alone, so the piece on 18 may swap with it.',

  'lesson.block-pass.title': 'A block cannot be passed',
  'lesson.block-pass.setup': 'You threw 4. White holds 14 and 15 side by side, and 7 alone. Which of your pieces may move?',
  'lesson.block-pass.why': 'Your piece on 13 would pass over the block on 14 and 15 (it counts even on the House of Rebirth), and a block can be neither landed on nor passed. A single piece can be passed: 5 + 4 jumps over 7 and lands on 9.',

  'lesson.block-turn.title': 'A block across the turn',
  'lesson.block-turn.setup': 'You threw 3. White stands on 10 and 11, at the end of the first row and the start of the second. Which of your pieces may move?',
  'lesson.block-turn.why': '10 and 11 are neighbours on the track although they sit on different rows, so the two white pieces form a block: 7 + 3 would land on it. The piece on 2 passes the lone white piece on 4 and lands on 5.',

  'lesson.safe-15.title': 'No swap on the House of Rebirth',
  'lesson.safe-15.setup': 'You threw 3. A single white piece stands on 15, the House of Rebirth. Which of your pieces may move?',
  'lesson.safe-15.why': '15 is a safe square: the white piece there cannot be swapped, so 12 + 3 is illegal. It can still be passed, so 13 + 3 goes to 16, and 8 + 3 to 11.',

  'lesson.safe-26.title': 'No swap on the House of Happiness',
  'lesson.safe-26.setup': 'You threw 2. A single white piece stands on 26, the House of Happiness. Which of your pieces may move?',
  'lesson.safe-26.why': '26 is a safe square too: 24 + 2 would land on the white piece there, and it cannot be swapped. Only the piece on 10 can use the 2.',

  'lesson.must-stop-26.title': 'From 24 with a 3',
  'lesson.must-stop-26.setup': 'Your piece on 24 has not stopped on 26 yet, and you threw 3. Can it go to 27? Click every piece that may move.',
  'lesson.must-stop-26.why': 'No: every piece must stop exactly on 26, the House of Happiness, before going further, and 24 + 3 would pass it (with a 2 it could stop there). The piece on 12 can use the 3.',

  'lesson.water.title': 'The House of Water',
  'lesson.water.setup': 'You threw 1. Your piece on 26 moves to 27, the House of Water. Where does it end up?',
  'lesson.water.why': 'A piece that lands on 27 goes back to 15, the House of Rebirth, which is free here. The 1 still earns you another throw.',

  'lesson.water-taken.title': 'The water when 15 is taken',
  'lesson.water-taken.setup': 'You threw 1 and your piece on 26 falls into the water on 27. But white stands on 15, and your own piece on 14. Where does it end up?',
  'lesson.water-taken.why': 'It goes to the first free square before 15: 14 is taken too, so it stops on 13. Nothing is swapped: the white piece stays on 15.',

  'lesson.extra-throw.title': 'Throwing again',
  'lesson.extra-throw.setup': 'Your piece on 3 has an open road ahead. After which throws do you throw again once it has moved?',
  'lesson.extra-throw.why': 'A move made with a 1, 4 or 5 earns another throw; after a 2 or a 3 the turn passes to the other side.',

  'lesson.no-move.title': 'When nothing can move',
  'lesson.no-move.setup': 'You threw 4. Which of your pieces may move?',
  'lesson.no-move.why': 'None: 9 + 4 would pass the white block on 11 and 12, and 23 and 24 would pass 26 without stopping. The turn passes to white, even though a 4 usually gives another throw.',

  'lesson.bear-off-exact.title': 'Bearing off exactly',
  'lesson.bear-off-exact.setup': 'Your pieces stand on 26, 28, 29 and 30. With which throws can one of them leave the board?',
  'lesson.bear-off-exact.why': 'A piece leaves only with the exact count to the square after 30: 1 from 30, 2 from 29, 3 from 28, 5 from 26. A 4 bears nothing off: it overshoots from 28, 29 and 30, and from 26 it would land on your own piece on 30.',

  'lesson.bear-off-block.title': 'A block before the exit',
  'lesson.bear-off-block.setup': 'You threw 3, exactly what the piece on 28 needs to bear off. But white holds 29 and 30. Which of your pieces may move?',
  'lesson.bear-off-block.why': 'Bearing off from 28 passes 29 and 30, and a block cannot be passed, not even on the way off the board. Only the piece on 20 can use the 3.',
};

const zhHant = {
  'learn.pageTitle': '塞尼特 — 邊下邊學規則',
  'learn.heading': '邊下邊學規則',
  'learn.intro': '每課一個小局面，你執黑方。直接在棋盤上點選作答；正確答案由裁判本站每一局的同一套規則引擎算出。',
  'learn.listHeading': '課程',
  'learn.listSummary': '全部課程（已完成 {done}／{total}）',
  'learn.count': '第 {n} 課，共 {total} 課',
  'learn.doneMark': '（已完成）',
  'learn.unreachable': '課程載入失敗，請重新整理頁面再試。',
  'learn.task.path': '依序點出棋子經過和落下的格子，再按「檢查」。',
  'learn.task.square': '點出那一格，再按「檢查」。',
  'learn.task.pieces': '點出所有能走的棋子，再按「檢查」；一枚都不能走，就按「沒有合法著」。',
  'learn.task.throws': '選出所有符合的點數，再按「檢查」。',
  'learn.throwsLabel': '點數',
  'learn.throwChoice': '點數 {n}',
  'learn.check': '檢查',
  'learn.noMove': '沒有合法著',
  'learn.clear': '清除',
  'learn.next': '下一課',
  'learn.finish': '完成',
  'learn.picked': '你的答案：{list}',
  'learn.pickFirst': '請先在棋盤上作答，或按「沒有合法著」。',
  'learn.pickThrowsFirst': '請先選出點數。',
  'learn.right': '答對了！',
  'learn.wrong': '不太對，再試一次。',
  'learn.hint.path': '提示：從棋子起沿著路線一格一格數（中間一排由右往左），也看看落點上有什麼。',
  'learn.hint.square': '提示：從棋子起沿著路線一格一格數，再想想那一格會發生什麼。',
  'learn.hint.pieces': '提示：逐一試每顆棋子：這次投擲會把它帶到哪裡？那一格是空的、單獨的敵子，還是封鎖的一部分？',
  'learn.hint.throws': '提示：從 1 到 5 逐一試每個投擲，沿著路線數數看。',
  'learn.readSticks': '點數請自己從籤上讀出來。',
  'learn.sticksUnread': '籤：{faces}。',
  'learn.off': '離盤',
  'learn.cellWithPiece': '{square}：{piece}',
  'learn.cellPicked': '{label}（你的第 {n} 個選擇）',
  'learn.finishedHeading': '全部課程完成',
  'learn.finishedText': '本站採用的規則你已經掌握了。去下一局試試吧：和朋友線上對弈、同屏對弈，或與電腦對弈。',
  'learn.play': '開始對弈',
  'learn.restart': '從頭再學一次',

  'lesson.route-10-11.title': '第一個轉彎',
  'lesson.route-10-11.setup': '你擲得 3。第 9 格的棋子沿賽道前進三格。',
  'lesson.route-10-11.why': '格子按賽道編號數，不看畫面左右：10 之後轉到正下方的 11，第二排由右往左走。所以 9 號的棋子經過 10、11，落在 12。',

  'lesson.route-20-21.title': '第二個轉彎',
  'lesson.route-20-21.setup': '你擲得 4。第 18 格的棋子沿賽道前進四格。',
  'lesson.route-20-21.why': '第二排在左端的 20 結束，賽道往下轉到 21，第三排又由左往右走。所以棋子經過 19、20、21，落在 22。',

  'lesson.sticks-blank.title': '四面空白',
  'lesson.sticks-blank.setup': '四根籤全部空白朝上。你在第 3 格的棋子落在哪裡？',
  'lesson.sticks-blank.why': '四面空白算 5，從來不是 0：棋子從 3 走到 8。只有沒有棋子能用這次點數時才過手，不會因為擲到空白而過手。',

  'lesson.swap.title': '換位',
  'lesson.swap.setup': '你擲得 2。你在第 12 格的棋子落到 14，那裡只有一枚白子。白子會到哪裡？',
  'lesson.swap.why': '單枚敵子不會被吃掉，而是和你換位：你的棋子佔了 14，白子退到 12，也就是你的棋子原來的位置。',

  'lesson.start.title': '第一擲',
  'lesson.start.setup': '每局都由黑方先擲（與電腦對弈時選白方，就由電腦先擲）。開局你擲得 1。哪些棋子能走？',
  'lesson.start.why': '五枚都能走：每枚白子都單獨夾在兩枚黑子之間，所以任何一枚黑子都能和前方那枚白子換位；第 10 格的棋子則走到 11。',

  'lesson.block-land.title': '不能落在牆上',
  'lesson.block-land.setup': '你擲得 3。白方在 16、17 連成一片，另有一枚單子在 21。哪些棋子能走？',
  'lesson.block-land.why': '兩枚或更多敵子相連就成了牆：13 加 3 會落在牆上的 16，所以這枚不能走。21 的白子是單子，18 的棋子可以和它換位。',

  'lesson.block-pass.title': '不能越過牆',
  'lesson.block-pass.setup': '你擲得 4。白方佔著相連的 14 和 15，另有一枚單子在 7。哪些棋子能走？',
  'lesson.block-pass.why': '13 的棋子會越過 14、15 這堵牆（就算有一枚在再生屋上也照樣算），而牆既不能落上去，也不能越過。單子可以越過：5 加 4 跳過 7，落在 9。',

  'lesson.block-turn.title': '轉彎處的牆',
  'lesson.block-turn.setup': '你擲得 3。白方站在 10 和 11，一枚在第一排末端，一枚在第二排開頭。哪些棋子能走？',
  'lesson.block-turn.why': '10 和 11 雖然不在同一排，在賽道上卻是相鄰的，所以這兩枚白子成了牆：7 加 3 會落在牆上。2 的棋子越過 4 上的單枚白子，落在 5。',

  'lesson.safe-15.title': '再生屋上不能換位',
  'lesson.safe-15.setup': '你擲得 3。一枚白子單獨站在 15 號再生屋。哪些棋子能走？',
  'lesson.safe-15.why': '15 是安全屋：上面的白子換不到，所以 12 加 3 不合法。但可以越過它：13 加 3 走到 16，8 加 3 走到 11。',

  'lesson.safe-26.title': '幸福屋上不能換位',
  'lesson.safe-26.setup': '你擲得 2。一枚白子單獨站在 26 號幸福屋。哪些棋子能走？',
  'lesson.safe-26.why': '26 也是安全屋：24 加 2 會落在那枚白子上，而它換不到。只有 10 的棋子能用這個 2。',

  'lesson.must-stop-26.title': '24 號擲得 3',
  'lesson.must-stop-26.setup': '你在 24 的棋子還沒停過 26，這次擲得 3。它能走到 27 嗎？點出所有能走的棋子。',
  'lesson.must-stop-26.why': '不能：每枚棋都必須剛好停在 26 號幸福屋，才能繼續前進，而 24 加 3 會越過它（擲 2 才能停上去）。能用這個 3 的是 12 的棋子。',

  'lesson.water.title': '水屋',
  'lesson.water.setup': '你擲得 1。你在 26 的棋子走到 27 號水屋。它最後停在哪裡？',
  'lesson.water.why': '停在 27 的棋子要退回 15 號再生屋，而這裡再生屋正好空著。這個 1 照樣讓你再擲一次。',

  'lesson.water-taken.title': '15 號被佔時掉進水屋',
  'lesson.water-taken.setup': '你擲得 1，26 的棋子掉進 27 號水屋。可是 15 上有白子，14 上是你自己的棋子。它最後停在哪裡？',
  'lesson.water-taken.why': '它要停在 15 之前第一個空格：14 也有棋，所以停在 13。這不算換位：15 上的白子不動。',

  'lesson.extra-throw.title': '再擲一次',
  'lesson.extra-throw.setup': '你在 3 的棋子前方暢通無阻。擲得哪些點數時，走完這枚棋後可以再擲一次？',
  'lesson.extra-throw.why': '用 1、4 或 5 走完一步合法著，就能再擲一次；用 2 或 3 走完，回合就交給對方。',

  'lesson.no-move.title': '無棋可走',
  'lesson.no-move.setup': '你擲得 4。哪些棋子能走？',
  'lesson.no-move.why': '一枚都不能：9 加 4 會越過 11、12 的白牆，23 和 24 則會不停 26 就越過去。回合交給白方，即使 4 平常能讓你再擲一次。',

  'lesson.bear-off-exact.title': '剛好離盤',
  'lesson.bear-off-exact.setup': '你的棋子在 26、28、29、30。擲得哪些點數時，有棋子能離盤？',
  'lesson.bear-off-exact.why': '離盤要剛好數到 30 之後那一格：30 用 1，29 用 2，28 用 3，26 用 5。擲 4 誰也離不了盤：從 28、29、30 都會超出，從 26 則會落在你自己 30 上的棋子。',

  'lesson.bear-off-block.title': '出口前的牆',
  'lesson.bear-off-block.setup': '你擲得 3，正是 28 的棋子離盤所需的點數。可是白方佔著 29 和 30。哪些棋子能走？',
  'lesson.bear-off-block.why': '從 28 離盤要經過 29 和 30，而牆不能越過，離盤途中也一樣。只有 20 的棋子能用這個 3。',
};

const ru = {
  'learn.pageTitle': 'Сенет — правила на практике',
  'learn.heading': 'Правила сенета на практике',
  'learn.intro': 'Короткие уроки на настоящей доске; вы играете чёрными. Отвечайте щелчками по доске: правильный ответ вычисляет тот же движок правил, что судит каждую партию на этом сервере.',
  'learn.listHeading': 'Уроки',
  'learn.listSummary': 'Все уроки (пройдено {done} из {total})',
  'learn.count': 'Урок {n} из {total}',
  'learn.doneMark': '(пройден)',
  'learn.unreachable': 'Не удалось загрузить уроки. Обновите страницу и попробуйте ещё раз.',
  'learn.task.path': 'Щёлкните по клеткам по порядку, затем нажмите «Проверить».',
  'learn.task.square': 'Щёлкните по клетке, затем нажмите «Проверить».',
  'learn.task.pieces': 'Отметьте все фишки, которыми можно ходить, и нажмите «Проверить». Если ходить нечем, нажмите «Нет допустимого хода».',
  'learn.task.throws': 'Выберите все подходящие значения броска и нажмите «Проверить».',
  'learn.throwsLabel': 'Значения броска',
  'learn.throwChoice': 'Бросок {n}',
  'learn.check': 'Проверить',
  'learn.noMove': 'Нет допустимого хода',
  'learn.clear': 'Сбросить',
  'learn.next': 'Следующий урок',
  'learn.finish': 'Завершить',
  'learn.picked': 'Ваш ответ: {list}',
  'learn.pickFirst': 'Сначала выберите ответ на доске или нажмите «Нет допустимого хода».',
  'learn.pickThrowsFirst': 'Сначала выберите значения броска.',
  'learn.right': 'Верно!',
  'learn.wrong': 'Не совсем так — попробуйте ещё раз.',
  'learn.hint.path': 'Подсказка: отсчитайте бросок по клеткам от фишки вдоль пути (средний ряд идёт справа налево) и посмотрите, что стоит там, куда она попадает.',
  'learn.hint.square': 'Подсказка: отсчитайте бросок по клеткам от фишки вдоль пути и подумайте, что происходит на этой клетке.',
  'learn.hint.pieces': 'Подсказка: проверьте каждую фишку: куда её приведёт бросок и что там — пусто, одинокая фишка соперника или часть блока?',
  'learn.hint.throws': 'Подсказка: проверьте каждый бросок от 1 до 5, отсчитывая его вдоль пути.',
  'learn.readSticks': 'Определите значение по палочкам сами.',
  'learn.sticksUnread': 'Палочки: {faces}.',
  'learn.off': 'снятие с доски',
  'learn.cellWithPiece': '{square}: {piece}',
  'learn.cellPicked': '{label} (ваш выбор № {n})',
  'learn.finishedHeading': 'Все уроки пройдены',
  'learn.finishedText': 'Вы знаете правила, по которым играет этот сервер. Проверьте их в партии: с другом по сети, вдвоём на одном устройстве или против компьютера.',
  'learn.play': 'Сыграть партию',
  'learn.restart': 'Пройти уроки заново',

  'lesson.route-10-11.title': 'Первый поворот',
  'lesson.route-10-11.setup': 'Выпало 3. Фишка с клетки 9 проходит по маршруту три клетки.',
  'lesson.route-10-11.why': 'Клетки считают по маршруту, а не по экрану: после 10 маршрут поворачивает вниз, на 11, а второй ряд идёт справа налево. Поэтому фишка с 9 проходит 10 и 11 и встаёт на 12.',

  'lesson.route-20-21.title': 'Второй поворот',
  'lesson.route-20-21.setup': 'Выпало 4. Фишка с клетки 18 проходит по маршруту четыре клетки.',
  'lesson.route-20-21.why': 'Второй ряд кончается клеткой 20 слева; маршрут поворачивает вниз, на 21, и третий ряд снова идёт слева направо. Поэтому фишка проходит 19, 20 и 21 и встаёт на 22.',

  'lesson.sticks-blank.title': 'Четыре пустые стороны',
  'lesson.sticks-blank.setup': 'Все четыре палочки легли пустой стороной вверх. Куда встанет ваша фишка с клетки 3?',
  'lesson.sticks-blank.why': 'Четыре пустые стороны дают 5, а не 0: фишка идёт с 3 на 8. Бросок пропадает, только если его не может использовать ни одна фишка, а не из-за пустых сторон.',

  'lesson.swap.title': 'Обмен местами',
  'lesson.swap.setup': 'Выпало 2. Ваша фишка с клетки 12 встаёт на 14, где стоит одиночная белая фишка. Куда попадёт белая?',
  'lesson.swap.why': 'Одиночную фишку противника не бьют, а меняются с ней местами: ваша фишка занимает 14, а белая переходит на 12, откуда пришла ваша.',

  'lesson.start.title': 'Первый бросок',
  'lesson.start.setup': 'Первыми всегда бросают чёрные (если играть против компьютера белыми, начинает компьютер). В начальной позиции выпало 1. Какими фишками можно ходить?',
  'lesson.start.why': 'Всеми пятью: каждая белая фишка стоит одна между двумя чёрными, поэтому любая чёрная может поменяться местами с белой впереди, а фишка с 10 просто переходит на 11.',

  'lesson.block-land.title': 'На блок вставать нельзя',
  'lesson.block-land.setup': 'Выпало 3. Белые стоят рядом на 16 и 17 и поодиночке на 21. Какими фишками можно ходить?',
  'lesson.block-land.why': 'Две или более соседние фишки противника образуют блок: 13 + 3 приводит на 16, в блок, поэтому эта фишка ходить не может. Белая на 21 одна, и фишка с 18 может поменяться с ней местами.',

  'lesson.block-pass.title': 'Через блок проходить нельзя',
  'lesson.block-pass.setup': 'Выпало 4. Белые занимают соседние клетки 14 и 15, а ещё одна белая фишка стоит одна на 7. Какими фишками можно ходить?',
  'lesson.block-pass.why': 'Фишка с 13 прошла бы через блок на 14 и 15 (он действует и в Доме возрождения), а на блок нельзя ни встать, ни пройти через него. Одиночную фишку перепрыгнуть можно: 5 + 4 ведёт через 7 на 9.',

  'lesson.block-turn.title': 'Блок на повороте',
  'lesson.block-turn.setup': 'Выпало 3. Белые стоят на 10 и 11 — в конце первого ряда и в начале второго. Какими фишками можно ходить?',
  'lesson.block-turn.why': 'Клетки 10 и 11 — соседние по маршруту, хоть и в разных рядах, поэтому две белые фишки образуют блок: 7 + 3 приводит прямо на него. Фишка с 2 проходит мимо одиночной белой на 4 и встаёт на 5.',

  'lesson.safe-15.title': 'В Доме возрождения обмена нет',
  'lesson.safe-15.setup': 'Выпало 3. На клетке 15, в Доме возрождения, стоит одиночная белая фишка. Какими фишками можно ходить?',
  'lesson.safe-15.why': 'Клетка 15 безопасна: стоящую там белую фишку нельзя обменять, поэтому ход 12 + 3 недопустим. Пройти мимо неё можно: 13 + 3 ведёт на 16, а 8 + 3 — на 11.',

  'lesson.safe-26.title': 'В Доме счастья обмена нет',
  'lesson.safe-26.setup': 'Выпало 2. На клетке 26, в Доме счастья, стоит одиночная белая фишка. Какими фишками можно ходить?',
  'lesson.safe-26.why': 'Клетка 26 тоже безопасна: ход 24 + 2 привёл бы на белую фишку, а обменять её нельзя. Использовать 2 может только фишка с 10.',

  'lesson.must-stop-26.title': 'С 24 при броске 3',
  'lesson.must-stop-26.setup': 'Ваша фишка на 24 ещё не останавливалась на 26, и выпало 3. Можно ли пойти на 27? Отметьте все фишки, которыми можно ходить.',
  'lesson.must-stop-26.why': 'Нет: каждая фишка обязана остановиться ровно на 26, в Доме счастья, прежде чем идти дальше, а 24 + 3 проскакивает эту клетку (при броске 2 фишка встала бы на неё). Бросок 3 может использовать фишка с 12.',

  'lesson.water.title': 'Дом воды',
  'lesson.water.setup': 'Выпало 1. Ваша фишка с 26 идёт на 27, в Дом воды. Где она окажется?',
  'lesson.water.why': 'Фишка, вставшая на 27, возвращается на 15, в Дом возрождения, — здесь он свободен. А бросок 1 всё равно даёт ещё один бросок.',

  'lesson.water-taken.title': 'Вода, когда клетка 15 занята',
  'lesson.water-taken.setup': 'Выпало 1, и ваша фишка с 26 падает в воду на 27. Но на 15 стоит белая, а на 14 — ваша собственная фишка. Где она окажется?',
  'lesson.water-taken.why': 'Она встаёт на первую свободную клетку перед 15: 14 тоже занята, поэтому на 13. Обмена нет: белая фишка остаётся на 15.',

  'lesson.extra-throw.title': 'Дополнительный бросок',
  'lesson.extra-throw.setup': 'Перед вашей фишкой на 3 путь свободен. После каких бросков вы бросаете ещё раз, когда она сделает ход?',
  'lesson.extra-throw.why': 'Ход на 1, 4 или 5 даёт ещё один бросок; после 2 или 3 очередь переходит к противнику.',

  'lesson.no-move.title': 'Когда ходить нечем',
  'lesson.no-move.setup': 'Выпало 4. Какими фишками можно ходить?',
  'lesson.no-move.why': 'Никакими: 9 + 4 проходит через белый блок на 11 и 12, а 23 и 24 проскочили бы 26, не остановившись. Очередь переходит к белым, хотя 4 обычно даёт ещё один бросок.',

  'lesson.bear-off-exact.title': 'Точное снятие с доски',
  'lesson.bear-off-exact.setup': 'Ваши фишки стоят на 26, 28, 29 и 30. При каких бросках одну из них можно снять с доски?',
  'lesson.bear-off-exact.why': 'Фишка уходит с доски только при точном счёте до клетки за 30: с 30 — 1, с 29 — 2, с 28 — 3, с 26 — 5. Бросок 4 не снимает ни одной: с 28, 29 и 30 он слишком велик, а с 26 привёл бы на вашу же фишку на 30.',

  'lesson.bear-off-block.title': 'Блок перед выходом',
  'lesson.bear-off-block.setup': 'Выпало 3 — ровно столько, сколько нужно фишке на 28, чтобы уйти с доски. Но белые занимают 29 и 30. Какими фишками можно ходить?',
  'lesson.bear-off-block.why': 'Снятие с 28 проходит через 29 и 30, а через блок пройти нельзя — даже на пути с доски. Бросок 3 может использовать только фишка с 20.',
};

export const LEARN_STRINGS = { en, 'zh-Hant': zhHant, ru };
