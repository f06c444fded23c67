// The profile's "Block" / "Unblock" button (issue 32, docs/protocol.md
// "Blocks"): shown to a signed-in visitor on someone else's profile, it
// blocks or unblocks that user and then says the new state ("Unblock" once
// blocked). The profile's `blocked` says whether the visitor blocks them now.

import { h, request, errorText } from './api.js';
import { t } from './i18n.js';

/** The button for the user `name`, `blocked` as the profile said. */
export function blockButton(name, blocked) {
  let isBlocked = !!blocked;
  const note = h('span', { class: 'hint block-note', id: 'block-note', role: 'status' });
  const button = h('button', { type: 'button', id: 'btn-block', class: 'block-btn' });
  const render = () => {
    button.textContent = isBlocked ? t('blocks.unblock') : t('blocks.block');
    button.setAttribute('aria-pressed', isBlocked ? 'true' : 'false');
    button.dataset.blocked = isBlocked ? 'true' : 'false';
  };
  button.addEventListener('click', async () => {
    button.disabled = true;
    note.textContent = '';
    try {
      const reply = await request(isBlocked ? 'DELETE' : 'POST', `/api/blocks/${encodeURIComponent(name)}`);
      isBlocked = !!(reply && reply.blocked);
      note.textContent = isBlocked ? t('blocks.now_blocked', { name }) : t('blocks.now_unblocked', { name });
    } catch (err) {
      note.textContent = errorText(err.code, err.message);
    }
    button.disabled = false;
    render();
  });
  render();
  return h('div', { class: 'block-box', id: 'block-box' }, button, ' ', note);
}
