// The account page's list of blocked users (issue 32): `mountBlocks(el)`
// fills `el` with whom the account blocks (`GET /api/blocks`, newest first),
// each with an "Unblock" button that removes the row once the server took it.

import { h, request, errorText } from './api.js';
import { t, language } from './i18n.js';
import { profileUrl } from './account.js';

/** Fills `element` with the account's blocks; resolves once shown. */
export async function mountBlocks(element) {
  const status = h('p', { class: 'status', id: 'blocks-status', role: 'status' }, t('blocks.loading'));
  const list = h('ul', { class: 'blocks-list', id: 'blocks-list' });
  element.replaceChildren(h('h2', {}, t('blocks.title')), h('p', { class: 'hint' }, t('blocks.explain')), status, list);
  let reply;
  try {
    reply = await request('GET', '/api/blocks');
  } catch (err) {
    status.textContent = errorText(err.code, err.message);
    return;
  }
  const blocks = Array.isArray(reply && reply.blocks) ? reply.blocks : [];
  const empty = () => { status.textContent = list.children.length ? '' : t('blocks.none'); };
  for (const entry of blocks) {
    const name = String(entry.username || '');
    const when = Number.isFinite(entry.at_ms) ? new Date(entry.at_ms).toLocaleDateString(language()) : '';
    const error = h('span', { class: 'error' });
    const button = h('button', { type: 'button', class: 'unblock-btn', 'data-user': name }, t('blocks.unblock'));
    const row = h('li', { class: 'block-row', 'data-user': name },
      h('a', { href: profileUrl(name) }, name), ' ',
      h('span', { class: 'hint' }, when ? t('blocks.since', { date: when }) : ''), ' ', button, ' ', error);
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        await request('DELETE', `/api/blocks/${encodeURIComponent(name)}`);
        row.remove();
        empty();
      } catch (err) {
        error.textContent = errorText(err.code, err.message);
        button.disabled = false;
      }
    });
    list.append(row);
  }
  empty();
}
