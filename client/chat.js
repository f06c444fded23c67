// Chat: one panel per room (a game's `player` and `spectator` rooms, the
// lobby's `lobby` room), fed by the server's `chat` and `chat_history`
// messages (docs/protocol.md). Every name and line is put in the page as
// text (`textContent` through `h`), never as HTML. The panel dedupes lines
// (a reconnect sends the recent lines again), keeps at most MAX_LINES, says
// a refusal (`too_long`, `rate_limited`, `not_allowed`, `bad_message`) near
// its input and counts the lines that arrived while it was hidden. An author
// who is signed in is shown as a link to their profile; one who is not as a
// label (White, Black, Anonymous) in muted italics, so that an account whose
// name reads like a label never looks like one (issue 34).

import { h, colorName } from './api.js';
import { t, language } from './i18n.js';
import { profileUrl } from './account.js';
import { nameOf } from './live.js';
import { blockAuthorButton, chatSwitch } from './chat-controls.js';

/** The server's limit on a line (docs/protocol.md); the input's `maxlength`. */
export const MAX_CHARS = 140;
/** The server's limit on the accents (combining marks) stacked on one letter (docs/protocol.md). */
export const MAX_MARKS = 4;
/** Lines kept in a panel (the server sends up to 50 on connect). */
const MAX_LINES = 200;

/** The chat refusals of the server, in words. */
export const CHAT_ERRORS = {
  too_long: t('chat.too_long', { max: MAX_CHARS }),
  rate_limited: t('chat.rate_limited'),
  not_allowed: t('error.not_allowed'),
  // The input sends no empty line: what the server refuses is a line with nothing visible
  // (zero-width characters, fillers) or a letter under too many accents.
  bad_message: t('chat.bad_line', { max: MAX_MARKS }),
  offline: t('chat.offline'),
  chat_silenced: t('chatrule.silenced'),
  chat_word: t('chatrule.word'),
};

/** Whether an `error` code is a chat refusal. */
export function isChatError(code) {
  return code === 'too_long' || code === 'rate_limited' || code === 'not_allowed' || code === 'bad_message'
    || code === 'chat_silenced' || code === 'chat_word' || code === 'chat_banned';
}

/** The author of a line as shown: the username, "White" / "Black", or "Anonymous". */
export function authorText(line) {
  const user = nameOf(line.user);
  if (user) return user;
  const a = String(line.author || '');
  if (a === 'white' || a === 'black') return colorName(a);
  if (a === 'anonymous' || !a) return t('lobby.anonymous');
  return a;
}

/**
 * How a line's author is shown: a signed-in author (`user` set) as a link to
 * the profile (`chat-name`, the normal style); anyone else as a label
 * (`chat-label`: muted italics, a dot of the piece colour for a player, "Not
 * signed in" on hover), so that an account named like a label still reads
 * as a name and the label as no name.
 */
function authorNode(line, onBlocked) {
  const who = authorText(line);
  const user = nameOf(line.user);
  if (user) {
    const link = h('a', { href: profileUrl(user), class: 'chat-author chat-name' }, who);
    // Signed in, another's line: "Block" beside the name (issue 32, chat-controls.js).
    return onBlocked ? h('span', { class: 'chat-who' }, link, ' ', blockAuthorButton(user, onBlocked)) : link;
  }
  const a = String(line.author || '');
  const colour = a === 'white' || a === 'black' ? ` chat-label-${a}` : '';
  return h('span', { class: `chat-author chat-label${colour}`, title: t('chat.not_signed_in') }, who);
}

/** A line's identity: its `id` when the server sends one, else time, author and text. */
function keyOf(line) {
  if (line.id !== undefined && line.id !== null) return `#${line.id}`;
  return `${line.at_ms}|${line.author}|${line.text}`;
}

function timeOf(ms) {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return '';
  return d.toLocaleTimeString(language(), { hour: '2-digit', minute: '2-digit' });
}

export class ChatPanel {
  /**
   * @param {{room: string, title: string, send: (room: string, text: string) => boolean,
   *   writable?: boolean, readOnlyNote?: string, hideLabel?: [string, string], hidden?: boolean,
   *   storageKey?: string, onToggle?: (hidden: boolean) => void}} opts
   *   `hideLabel`: the labels of a show/hide toggle (`[show, hide]`), kept per browser under
   *   `storageKey`; `readOnlyNote`: said instead of the input when the room is not writable.
   */
  constructor(opts) {
    this.room = opts.room;
    this.send = opts.send;
    this.writable = opts.writable !== false;
    this.readOnlyNote = opts.readOnlyNote || '';
    this.lines = [];
    this.keys = new Set();
    this.unread = 0;
    const room = this.room;
    this.list = h('ol', { class: 'chat-lines', id: `chat-lines-${room}`, role: 'log', 'aria-label': opts.title });
    this.error = h('p', { class: 'chat-error error', id: `chat-error-${room}`, role: 'status' });
    this.input = h('input', {
      type: 'text', id: `chat-input-${room}`, maxlength: String(MAX_CHARS), autocomplete: 'off',
      placeholder: t('chat.placeholder'), 'aria-describedby': `chat-error-${room}`,
    });
    this.form = h('form', { class: 'chat-form', id: `chat-form-${room}`, onsubmit: (e) => { e.preventDefault(); this.submit(); } },
      h('label', { for: `chat-input-${room}`, class: 'visually-hidden' }, t('chat.message_to', { room: opts.title.toLowerCase() })),
      this.input,
      h('button', { type: 'submit', id: `chat-send-${room}` }, t('chat.send')));
    this.note = h('p', { class: 'hint chat-readonly', id: `chat-readonly-${room}` });
    this.body = h('div', { class: 'chat-body' }, this.list, this.form, this.note, this.error);
    this.heading = h('h2', { class: 'chat-title' }, opts.title);
    this.toggle = null;
    this.storageKey = opts.storageKey || null;
    this.onToggle = opts.onToggle || null;
    if (opts.hideLabel) {
      this.labels = opts.hideLabel;
      this.toggle = h('button', { type: 'button', class: 'chat-toggle linkish', id: `chat-toggle-${room}`, onclick: () => this.setHidden(!this.hidden) });
    }
    this.el = h('section', { class: 'chat panel-part', id: `chat-${room}`, 'data-room': room }, this.heading, this.toggle, this.body);
    let hidden = !!opts.hidden;
    if (this.storageKey) {
      try {
        const kept = localStorage.getItem(this.storageKey);
        if (kept === 'shown') hidden = false;
        if (kept === 'hidden') hidden = true;
      } catch (_) { /* private mode */ }
    }
    this.setWritable(this.writable);
    this.setHidden(hidden, false);
  }

  /** Hides or shows the room's lines (a player's choice, kept in this browser). */
  setHidden(hidden, keep = true) {
    this.hidden = hidden;
    this.body.hidden = hidden;
    if (!hidden) this.unread = 0;
    if (keep && this.storageKey) {
      try { localStorage.setItem(this.storageKey, hidden ? 'hidden' : 'shown'); } catch (_) { /* private mode */ }
    }
    this.renderToggle();
    if (!hidden) this.scrollDown();
    if (keep && this.onToggle) this.onToggle(hidden);
  }

  renderToggle() {
    if (!this.toggle) return;
    const [show, hide] = this.labels;
    const unread = this.hidden && this.unread ? ` ${t('chat.unread', { n: this.unread })}` : '';
    this.toggle.textContent = this.hidden ? `${show}${unread}` : hide;
    this.toggle.setAttribute('aria-expanded', this.hidden ? 'false' : 'true');
  }

  setWritable(writable) {
    this.writable = writable;
    this.form.hidden = !writable;
    this.note.hidden = writable || !this.readOnlyNote;
    this.note.textContent = writable ? '' : this.readOnlyNote;
  }

  submit() {
    const text = this.input.value.trim();
    if (!text) return;
    this.error.textContent = '';
    if (!this.send(this.room, text)) { this.showError('offline'); return; }
    this.lastSent = text;
    this.input.value = '';
  }

  /** A refusal of the last line sent, in words near the input (the line is put back to edit). */
  showError(code, message) {
    // A moderator's chat ban: the server's message says why and until when.
    this.error.textContent = code === 'chat_banned' && message
      ? t('mod.chat_banned', { message })
      : CHAT_ERRORS[code] || t('chat.refused', { code });
    if (code !== 'not_allowed' && code !== 'chat_banned' && this.lastSent && !this.input.value) this.input.value = this.lastSent;
    this.lastSent = null;
  }

  /** The recent lines sent on (re)connect: merged, without the lines already shown. */
  history(lines) {
    let added = false;
    for (const line of Array.isArray(lines) ? lines : []) added = this.insert(line) || added;
    if (added) this.render();
  }

  /** One new line. */
  add(line) {
    if (!this.insert(line)) return;
    if (this.hidden) { this.unread += 1; this.renderToggle(); }
    this.render();
  }

  insert(line) {
    if (!line || typeof line.text !== 'string') return false;
    const key = keyOf(line);
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    this.lines.push(line);
    // Ordered by time; a stable sort keeps the server's order for equal times.
    this.lines.sort((a, b) => (Number(a.at_ms) || 0) - (Number(b.at_ms) || 0));
    while (this.lines.length > MAX_LINES) this.keys.delete(keyOf(this.lines.shift()));
    return true;
  }

  render() {
    const atBottom = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 24;
    const blocked = (name) => this.hideAuthor(name);
    this.list.replaceChildren(...this.lines.map((line) => h('li', { class: 'chat-line', title: timeOf(line.at_ms) },
      authorNode(line, blocked),
      h('span', { class: 'chat-sep', 'aria-hidden': 'true' }, ': '),
      h('span', { class: 'chat-text' }, line.text))));
    if (atBottom) this.scrollDown();
  }

  scrollDown() {
    this.list.scrollTop = this.list.scrollHeight;
  }

  /** Drops the lines of `name`, just blocked (the server sends no more of theirs). */
  hideAuthor(name) {
    const key = String(name).toLowerCase();
    this.lines = this.lines.filter((line) => String(nameOf(line.user) || '').toLowerCase() !== key);
    this.render();
  }
}

/**
 * A game's two rooms for this viewer. A player writes and reads the
 * `player` room (and may hide it) and may open the `spectator` room (read
 * only, closed until opened, and closable again); a spectator sees only the
 * `spectator` room and writes in it. Which seat the viewer holds is the
 * state's `you`: `setYou` rebuilds the rooms when it changes.
 */
export class GameChat {
  /** @param {(t: string, d: object) => boolean} send the game socket's send */
  constructor(gameSend, gameId = null) {
    this.gameSend = gameSend;
    this.you = undefined;
    this.lastRoom = null;
    // The rooms' panels, in a switch that hides them when chat is off (chat-controls.js).
    this.panels = h('div', { class: 'chat-panels' });
    this.el = h('div', { class: 'game-chat', id: 'game-chat' }, chatSwitch(this.panels, gameId));
    this.rooms = {};
    this.lastAt = null;
  }

  send(room, text) {
    this.lastRoom = room;
    this.lastAt = performance.now();
    return this.gameSend('chat', { room, text });
  }

  /**
   * Whether an `error` is the answer to a chat line: a chat code, and a line
   * sent in the last few seconds (`rate_limited` also answers moves and
   * `hello`s, which carry their own `id`).
   */
  claims(d) {
    if (!d || !isChatError(d.code) || this.lastAt === null) return false;
    if (d.id !== undefined && d.id !== null) return false;
    return performance.now() - this.lastAt < 10000;
  }

  /** The viewer's seat (`white`, `black`) or null for a spectator. */
  setYou(you) {
    const seat = you || null;
    if (this.you === seat) return;
    const kept = { player: this.rooms.player ? this.rooms.player.lines : [], spectator: this.rooms.spectator ? this.rooms.spectator.lines : [] };
    this.you = seat;
    const send = (room, text) => this.send(room, text);
    this.rooms = {};
    if (seat) {
      this.rooms.player = new ChatPanel({
        room: 'player', title: t('chat.players'), send, hideLabel: [t('chat.show_players'), t('chat.hide_players')],
        storageKey: 'marseillais.chat.player',
      });
      // The server sends a player the spectators' lines only after `chat_watch` (per connection).
      this.rooms.spectator = new ChatPanel({
        room: 'spectator', title: t('chat.spectators'), send, writable: false, hidden: true,
        readOnlyNote: t('chat.only_spectators'),
        hideLabel: [t('chat.show_spectators'), t('chat.hide_spectators')],
        storageKey: 'marseillais.chat.spectator',
        onToggle: (hidden) => this.gameSend('chat_watch', { spectator: !hidden }),
      });
    } else {
      this.rooms.spectator = new ChatPanel({ room: 'spectator', title: t('chat.spectators'), send });
    }
    for (const [room, panel] of Object.entries(this.rooms)) panel.history(kept[room]);
    this.panels.replaceChildren(...Object.values(this.rooms).map((p) => p.el));
    this.connected();
  }

  /**
   * On every (re)connect: a player who keeps the spectators' room open asks
   * for it again (`chat_watch` is per connection, off by default).
   */
  connected() {
    if (this.you && this.rooms.spectator && !this.rooms.spectator.hidden) {
      this.gameSend('chat_watch', { spectator: true });
    }
  }

  /** A `chat` or `chat_history` message of the game socket; true when it was one. */
  onMessage(t, d) {
    if (t !== 'chat' && t !== 'chat_history') return false;
    const panel = this.rooms[d && d.room];
    if (!panel) return true;
    if (t === 'chat') panel.add(d);
    else panel.history(d.lines);
    return true;
  }

  /** A chat refusal (`error` with a chat code): said in the room last written to. */
  onError(code, message) {
    const panel = this.rooms[this.lastRoom] || Object.values(this.rooms).find((p) => p.writable);
    if (panel) panel.showError(code, message);
  }
}
