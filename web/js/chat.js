// The room's chat (issue 33; docs/PROTOCOL.md, "Chat"): the preset buttons everyone may use, the
// free-text box once both identified players turned it on, the players' choices, and the lines
// this seat may read, each preset in the reader's own language and all text set as text (never
// HTML). New messages from others are said politely through the room's announcer, but not while
// the person is typing a message: those wait until the box is left or the message sent. A player
// may mute the other side or a spectator for the rest of the game, and anyone may report the chat
// once (the server keeps the room's last 20 messages with the reason for the operators).
// Spectators chat under an identity (their handle then outlives the socket): one without is
// offered an unnamed one, a button in place of the presets.
// Importing this module adds the chat texts (chat-strings.js) to the tables.

import { el, part, show } from './dom.js';
import { hasText, t, sideName } from './i18n.js';
import { LANGUAGES, STRINGS } from './strings.js';
import { CHAT_STRINGS } from './chat-strings.js';
import { sidesOf } from './announce.js';
import { ErrorCode, Event, Mode, Phase, Seat } from './protocol.js';

for (const code of LANGUAGES) Object.assign(STRINGS[code], CHAT_STRINGS[code]);

/** Which seats have someone in them. */
const seatedOf = (state) => ({ black: Boolean(state.players?.black?.seated), white: Boolean(state.players?.white?.seated) });

/** The preset ids the server takes, in the order the buttons show them. */
export const PRESETS = ['hello', 'good-luck', 'have-fun', 'you-too', 'good-game', 'well-played', 'thank-you', 'have-to-go', 'bye'];
/** Lines kept on the page, as the server's state keeps them. */
const KEPT = 200;
// The longest message, in characters (code points): the server's `MAX_TEXT_CHARS`.
const MAX_TEXT_CHARS = 140;

/** A line's speaker in words, for this seat: "You", a side's name, a spectator's name. */
function speaker(seat, line) {
  if (line.by === seat && sidesOf(seat).length === 1) return t('chat.you');
  if (line.by === Seat.Black || line.by === Seat.White) return sideName(line.by);
  return line.name ?? t('chat.spectator');
}

/** A line as one sentence for `seat` ("Black: Hello!"): the replay's captions use it too. */
export function lineText(line, seat = null) {
  return `${speaker(seat, line)}: ${words(line)}`;
}

/** What a line says, in the reader's language for a preset. */
function words(line) {
  if (line.withheld) return t('chat.withheld');
  return line.preset ? t(`chat.preset.${line.preset}`) : line.text ?? '';
}

/** The status line's sentence for a refusal's code. */
const refusal = (code) => (hasText(`error.${code}`) ? t(`error.${code}`) : t('error.other', { code }));

/**
 * The chat section `section` of the room page. `send(type, data)` sends a frame and returns its
 * id (null when offline); `say(text)` announces; `identify()` makes this browser a player and
 * answers it once the socket is welcomed again with it. Returns `setState(state, seat,
 * identified)` (on welcome, with its `identified`; on sync, keeping it), `event(type, d)` (a `said`, `chat-set`, `muted` or `chat-hidden` event, applied), `reply(type,
 * d)` (whether the answer was to a chat frame, then shown), and `relabel()`.
 */
export function createChat(section, { send, say, identify: makeIdentity }) {
  const lines = part('chat-lines', section);
  const presets = part('chat-presets', section);
  const form = part('chat-form', section);
  const input = part('chat-input', section);
  const freeText = part('chat-free-text', section);
  const spectators = part('chat-spectators', section);
  const status = part('chat-status', section);
  const muteOther = part('chat-mute', section);
  const reportOpen = part('chat-report-open', section);
  const reportForm = part('chat-report', section);
  const reportReason = part('chat-report-reason', section);
  const identityOffer = part('chat-identity', section);
  const identify = part('chat-identify', section);
  const sent = new Set(); // ids of chat frames not yet answered
  let seat = null;
  /** @type {{lines: any[], black: any, white: any, muted?: string[]}} */
  let chat = { lines: [], black: {}, white: {} };
  let waiting = []; // sentences held back while the person types
  let reportId = null; // the report frame awaiting its answer
  let reported = false; // the server takes one report per player (or spectator) and room
  let over = false; // after the game nobody needs muting
  let seated = { black: false, white: false }; // nor an empty seat
  let anonymous = false; // the socket carries no identity: a spectator is offered one

  // `maxlength` counts UTF-16 units (an emoji is two): it is set at twice the server's bound, and
  // the input is cut to the server's characters (code points) here, so an emoji counts once.
  input.addEventListener('input', () => {
    const chars = [...input.value];
    if (chars.length > MAX_TEXT_CHARS) input.value = chars.slice(0, MAX_TEXT_CHARS).join('');
  });

  const mine = () => (seat === Seat.Black || seat === Seat.White ? seat : null);
  const typing = () => section.ownerDocument.activeElement === input && input.value.trim() !== '';

  function post(type, data) {
    const id = send(type, data);
    if (id !== null) sent.add(id);
    status.textContent = '';
    return id;
  }

  const muted = (who) => (chat.muted ?? []).includes(who);

  /** A player's button to mute the spectator who said `line`, unless muted already. */
  function muteButton(line) {
    if (over || !mine() || line.channel !== 'spectators' || line.by === seat || muted(line.by)) return [];
    const who = speaker(seat, line);
    return [el('button', { type: 'button', class: 'mute', 'data-testid': 'chat-mute-line', text: t('chat.muteSpectator', { who }), onclick: () => post('mute', { who: line.by }) })];
  }

  function render() {
    lines.replaceChildren(
      ...chat.lines.map((line) =>
        el(
          'li',
          { 'data-testid': 'chat-line', 'data-channel': line.channel, 'data-by': line.by },
          el('span', { class: 'by', text: `${speaker(seat, line)}: ` }),
          el('span', { class: 'words', text: words(line) }),
          ...muteButton(line),
        ),
      ),
    );
    lines.scrollTop = lines.scrollHeight;
    const side = mine();
    freeText.checked = Boolean(side && chat[side]?.free_text);
    spectators.checked = Boolean(side && chat[side]?.spectators);
    show(/** @type {HTMLElement} */ (freeText.closest('label')), Boolean(side));
    show(/** @type {HTMLElement} */ (spectators.closest('label')), Boolean(side));
    // Text only once both players turned it on (and the server still checks who they are).
    const bothOn = Boolean(chat.black?.free_text && chat.white?.free_text);
    show(form, Boolean(side) && bothOn);
    const other = side === Seat.Black ? Seat.White : Seat.Black;
    show(muteOther, Boolean(side) && !over && seated[other] && !muted(other));
    muteOther.textContent = t('chat.mute', { who: sideName(other) });
    show(reportOpen, !reported);
    if (reported) show(reportForm, false);
    const offer = seat === Seat.Spectator && anonymous;
    show(presets, !offer);
    show(identityOffer, offer);
  }

  /** No identity on this socket: the presets give way to the offer, which takes the focus. */
  function needIdentity() {
    const focused = presets.contains(section.ownerDocument.activeElement);
    anonymous = true;
    render();
    if (focused) identify.focus();
  }

  function flush() {
    for (const sentence of waiting) say(sentence);
    waiting = [];
  }

  function tell(line) {
    if (line.by === seat) return;
    const sentence = t('chat.said', { who: speaker(seat, line), words: words(line) });
    if (typing()) waiting.push(sentence);
    else say(sentence);
  }

  presets.replaceChildren(
    ...PRESETS.map((id) =>
      el('button', { type: 'button', 'data-testid': `chat-preset-${id}`, 'data-preset': id, onclick: () => post('chat', { preset: id }) }),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    post('chat', { text });
    input.value = '';
    flush();
  });
  input.addEventListener('blur', flush);
  muteOther.addEventListener('click', () => post('mute', { who: mine() === Seat.Black ? Seat.White : Seat.Black }));
  reportOpen.addEventListener('click', () => {
    const open = reportForm.hidden;
    show(reportForm, open);
    reportOpen.setAttribute('aria-expanded', String(open));
    if (open) reportReason.focus();
  });
  reportForm.addEventListener('submit', (event) => {
    event.preventDefault();
    reportId = post('report', { reason: reportReason.value.trim() });
  });
  identify.addEventListener('click', async () => {
    identify.disabled = true;
    try {
      const player = await makeIdentity();
      anonymous = false;
      render();
      presets.firstElementChild?.focus();
      status.textContent = t('chat.identified', { name: player.name });
    } catch (err) {
      status.textContent = refusal(err.code);
    } finally {
      identify.disabled = false;
    }
  });
  freeText.addEventListener('change', () => post('chat-settings', { free_text: freeText.checked }));
  spectators.addEventListener('change', () => post('chat-settings', { spectators: spectators.checked }));

  function relabel() {
    for (const button of presets.children) button.textContent = t(`chat.preset.${button.dataset.preset}`);
    render();
  }

  return {
    setState(state, newSeat, identified = !anonymous) {
      seat = newSeat;
      anonymous = !identified;
      show(section, state.mode === Mode.Online);
      chat = { lines: [], black: {}, white: {}, ...(state.chat ?? {}) };
      over = state.phase === Phase.Over;
      seated = seatedOf(state);
      relabel();
    },
    /** After any event: who sits where (an opponent who arrives can be muted). */
    seats(state) {
      const now = seatedOf(state);
      if (now.black === seated.black && now.white === seated.white) return;
      seated = now;
      render();
    },
    event(type, d) {
      switch (type) {
        case Event.Said: {
          // A spectators' message this seat may not read (yet): its version, not its words.
          if (d.withheld) return true;
          const line = { ...d };
          chat.lines = [...chat.lines, line].slice(-KEPT);
          tell(line);
          break;
        }
        case Event.ChatSet:
          chat = { ...chat, [d.side]: { free_text: d.free_text, spectators: d.spectators } };
          break;
        case Event.ChatHidden:
          chat.lines = chat.lines.filter((line) => line.v !== d.message);
          break;
        case Event.Muted: {
          if (d.side !== mine()) return true;
          chat = { ...chat, muted: [...(chat.muted ?? []), d.who] };
          const line = chat.lines.find((l) => l.by === d.who);
          const who = d.who === Seat.Black || d.who === Seat.White ? sideName(d.who) : line ? speaker(seat, line) : t('chat.spectator');
          render();
          status.textContent = t('chat.mutedWho', { who });
          return true;
        }
        case Event.GameOver:
          over = true;
          render();
          return false; // the room's own event too
        default:
          return false;
      }
      render();
      return true;
    },
    reply(type, d) {
      if (!sent.delete(d.id)) return false;
      if (d.code === ErrorCode.ChatNeedsPlayer) needIdentity();
      if (d.code) status.textContent = refusal(d.code);
      else if (d.id === reportId) {
        reported = true;
        reportReason.value = '';
        render();
        lines.focus();
        status.textContent = t('chat.reported');
      }
      return true;
    },
    relabel,
  };
}
