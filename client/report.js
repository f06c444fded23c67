// Reporting a player (issue 32): a "Report" button that opens a small form
// (reason, short text) and files `POST /api/reports` with the game it
// concerns, if any. Used on the profile page and on a game page (naming the
// opponent). The reported player never sees a report.

import { request, h } from './api.js';
import { t } from './i18n.js';

const REASONS = ['cheating', 'abusive_chat', 'sandbagging', 'rating_manipulation', 'other'];

/** A "Report NAME" button with its form, closed until clicked. */
export function reportBox(username, game = null) {
  const box = h('div', { class: 'report-box', id: 'report-box' });
  const open = h('button', { type: 'button', id: 'btn-report', onclick: () => showForm() }, t('report.button', { name: username }));
  box.append(open);
  function showForm() {
    const reason = h('select', { id: 'report-reason', 'aria-label': t('report.reason') },
      ...REASONS.map((r) => h('option', { value: r }, t(`report.reason_${r}`))));
    const text = h('textarea', { id: 'report-text', maxlength: '500', rows: '3', 'aria-label': t('report.text') });
    const status = h('p', { class: 'status', id: 'report-status', role: 'status' });
    const send = h('button', { type: 'submit', id: 'report-send', class: 'primary' }, t('report.send'));
    const form = h('form', { class: 'report-form', id: 'report-form' },
      h('label', {}, t('report.reason'), ' ', reason),
      h('label', {}, t('report.text'), ' ', text),
      send, status);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      send.disabled = true;
      const body = { username, reason: reason.value, text: text.value };
      if (game) body.game = game;
      try {
        await request('POST', '/api/reports', body);
        form.replaceChildren(h('p', { class: 'status', id: 'report-done', role: 'status' }, t('report.sent')));
      } catch (err) {
        status.textContent = err.code === 'too_many_reports' ? t('report.too_many') : t('report.failed', { error: err.message });
        send.disabled = false;
      }
    });
    box.replaceChildren(form);
    reason.focus();
  }
  return box;
}

/** On a game page: "Report" naming the opponent, for a signed-in player of the game. */
export async function gameReport(main, id, mePromise) {
  const me = await mePromise;
  if (!me || !me.username) return;
  let game;
  try { game = await request('GET', `/api/games/${encodeURIComponent(id)}`); } catch (_) { return; }
  const players = game.players || {};
  const mine = (c) => players[c] && players[c].name && players[c].name.toLowerCase() === me.username.toLowerCase();
  const other = mine('white') ? players.black : mine('black') ? players.white : null;
  if (!other || !other.name) return;
  main.append(h('section', { class: 'panel report-panel' }, reportBox(other.name, id)));
}
