// Chat controls (issue 32, docs/protocol.md "Blocks"): chat off for good (the
// `chat` setting, settings.js, saved in the account when signed in), chat off
// for one game (a toggle in the game's chat, kept per game id in this
// browser), and blocking the signed-in author of a line from the chat.
// With chat off, no line and no input is shown: the panels are hidden, and a
// short note says how to turn chat on again. (The server still sends the lines:
// what a client shows is the client's business; blocking is what the server
// enforces.)

import { h, request } from './api.js';
import { t } from './i18n.js';
import { setting, onSetting } from './settings.js';
import { account } from './account.js';

const GAME_KEY = 'marseillais.chatoff.';

/** Whether chat is off for game `id` in this browser. */
export function gameChatOff(id) {
  if (!id) return false;
  try { return localStorage.getItem(GAME_KEY + id) === '1'; } catch (_) { return false; }
}

function setGameChatOff(id, off) {
  try {
    if (off) localStorage.setItem(GAME_KEY + id, '1');
    else localStorage.removeItem(GAME_KEY + id);
  } catch (_) { /* private mode: this page only */ }
}

/**
 * Wraps `panels` (an element holding chat panels) in a box that hides them
 * when chat is off for good or, with `gameId`, for that game. Returns the box.
 */
export function chatSwitch(panels, gameId = null) {
  let offHere = gameChatOff(gameId);
  const note = h('p', { class: 'hint chat-off-note', id: gameId ? 'chat-off-note' : 'chat-off-note-lobby' });
  const toggle = gameId
    ? h('button', { type: 'button', class: 'linkish chat-game-toggle', id: 'chat-game-toggle' })
    : null;
  const render = () => {
    const forGood = !setting('chat');
    panels.hidden = forGood || offHere;
    note.hidden = !panels.hidden;
    note.textContent = forGood ? t('chatctl.off_for_good') : t('chatctl.off_here');
    if (toggle) {
      toggle.hidden = forGood;
      toggle.textContent = offHere ? t('chatctl.turn_on_game') : t('chatctl.turn_off_game');
      toggle.setAttribute('aria-pressed', offHere ? 'true' : 'false');
    }
  };
  if (toggle) {
    toggle.addEventListener('click', () => {
      offHere = !offHere;
      setGameChatOff(gameId, offHere);
      render();
    });
  }
  onSetting('chat', render);
  render();
  return h('div', { class: 'chat-switch' }, toggle, note, panels);
}

/**
 * A "Block" button for the signed-in author `name` of a chat line, shown only
 * to a signed-in reader who is not that author; `onBlocked(name)` once the
 * server took the block.
 */
export function blockAuthorButton(name, onBlocked) {
  const button = h('button', {
    type: 'button', class: 'linkish chat-block', hidden: true,
    'data-user': name, title: t('blocks.block_title', { name }),
  }, t('blocks.block'));
  account().then((me) => {
    if (me && me.username && me.username.toLowerCase() !== name.toLowerCase()) button.hidden = false;
  });
  button.addEventListener('click', async () => {
    if (!window.confirm(t('blocks.confirm', { name }))) return;
    button.disabled = true;
    try {
      await request('POST', `/api/blocks/${encodeURIComponent(name)}`);
      onBlocked(name);
    } catch (_) {
      button.disabled = false;
      button.textContent = t('blocks.failed');
    }
  });
  return button;
}
