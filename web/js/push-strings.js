// Texts of the settings page's per-device "your turn" switch (push-switch.js), in each language
// of strings.js (push-switch.js merges them into its tables).

const en = {
  'settings.push.heading': 'Your turn on this device',
  'settings.push.switch': 'Tell me when it’s my turn (even with the site closed)',
  'settings.push.help': 'For games of days a move: this device shows a notification when your opponent has moved. It is set for each device.',
  'settings.push.asking': 'Asking this browser…',
  'settings.push.on': 'On: this device will be told when it is your turn.',
  'settings.push.off': 'Off: this device will not be told.',
  'settings.push.unsupported': 'This browser cannot show notifications with the site closed (no service worker or push here). Try a current Chrome, Firefox, Edge or Safari; on an iPhone, add the site to the home screen first.',
  'settings.push.denied': 'Notifications are blocked for this site in this browser. Allow them in the browser’s site settings, then turn the switch on again.',
  'settings.push.failed': 'This browser could not subscribe to its push service ({reason}). While the site is open in another tab, you will still be told.',
  'settings.push.noAnswer': 'This browser’s push service did not answer within {seconds} seconds: is this device offline? Try again later. While the site is open in another tab, you will still be told.',
  'settings.push.error.too_many_subscriptions': 'Your identity already has notifications on 10 devices: turn them off on one first.',
  'settings.push.error.other': 'The server did not keep this device ({code}). Try again later.',
};

const zhHant = {
  'settings.push.heading': '在這部裝置上提醒輪到你',
  'settings.push.switch': '輪到我時通知我（即使網站已關閉）',
  'settings.push.help': '用於每步數天的對局：對手走棋後，這部裝置會顯示通知。每部裝置分別設定。',
  'settings.push.asking': '正在詢問瀏覽器…',
  'settings.push.on': '已開啟：輪到你時會通知這部裝置。',
  'settings.push.off': '已關閉：不會通知這部裝置。',
  'settings.push.unsupported': '這個瀏覽器無法在網站關閉時顯示通知（沒有 service worker 或推送）。請改用新版的 Chrome、Firefox、Edge 或 Safari；在 iPhone 上請先把網站加到主畫面。',
  'settings.push.denied': '這個瀏覽器已封鎖本網站的通知。請在瀏覽器的網站設定中允許通知，再開啟這個開關。',
  'settings.push.failed': '這個瀏覽器無法訂閱它的推送服務（{reason}）。網站在另一個分頁開著時，仍會通知你。',
  'settings.push.noAnswer': '這個瀏覽器的推送服務在 {seconds} 秒內沒有回應：這部裝置離線了嗎？請稍後再試。網站在另一個分頁開著時，仍會通知你。',
  'settings.push.error.too_many_subscriptions': '你的身分已在 10 部裝置上開啟通知：請先在其中一部關閉。',
  'settings.push.error.other': '伺服器沒有記下這部裝置（{code}）。請稍後再試。',
};

const ru = {
  'settings.push.heading': 'Ваш ход на этом устройстве',
  'settings.push.switch': 'Сообщать, когда мой ход (даже если сайт закрыт)',
  'settings.push.help': 'Для партий по несколько дней на ход: устройство покажет уведомление, когда соперник сходил. Настраивается для каждого устройства.',
  'settings.push.asking': 'Спрашиваем браузер…',
  'settings.push.on': 'Включено: это устройство сообщит, когда ваш ход.',
  'settings.push.off': 'Выключено: это устройство не будет сообщать.',
  'settings.push.unsupported': 'Этот браузер не может показывать уведомления при закрытом сайте (нет service worker или push). Попробуйте свежий Chrome, Firefox, Edge или Safari; на iPhone сначала добавьте сайт на экран «Домой».',
  'settings.push.denied': 'Уведомления этого сайта заблокированы в браузере. Разрешите их в настройках сайта и снова включите переключатель.',
  'settings.push.failed': 'Браузер не смог подписаться на свою службу push ({reason}). Пока сайт открыт в другой вкладке, вы всё равно узнаете о своём ходе.',
  'settings.push.noAnswer': 'Служба push браузера не ответила за {seconds} секунд: устройство не в сети? Попробуйте позже. Пока сайт открыт в другой вкладке, вы всё равно узнаете о своём ходе.',
  'settings.push.error.too_many_subscriptions': 'Уведомления уже включены на 10 устройствах: сначала выключите их на одном из них.',
  'settings.push.error.other': 'Сервер не сохранил это устройство ({code}). Попробуйте позже.',
};

export const PUSH_STRINGS = { en, 'zh-Hant': zhHant, ru };
