// The account page, `/account` (issue 32; docs/protocol.md, "Account controls"): the
// signed-in user changes their password (the other sessions end), sees their live sessions
// and ends them, downloads their data as one archive, and deletes the account (confirmed with
// the password), and lists the users they block (`client/account-blocks.js`).

import { request, h } from './api.js';
import { t, language } from './i18n.js';
import { accountErrorText } from './account.js';
import { mountBlocks } from './account-blocks.js';

/** Draws the page into `main` once the account is known (`me` resolves to it or null). */
export async function accountPage(main, me) {
  const account = await me;
  if (!account || !account.username) {
    main.replaceChildren(h('section', { class: 'panel', id: 'account-page' },
      h('h1', {}, t('acct.title')),
      h('p', { id: 'acct-signed-out' }, t('acct.signed_out'))));
    return;
  }
  const sessions = h('section', { class: 'panel', id: 'acct-sessions' });
  const blocks = h('section', { class: 'panel', id: 'account-blocks' });
  main.replaceChildren(h('div', { id: 'account-page', class: 'account-page' },
    h('h1', {}, t('acct.title_of', { name: account.username })),
    passwordSection(() => loadSessions(sessions)),
    sessions,
    blocks,
    archiveSection(),
    deleteSection()));
  loadSessions(sessions);
  mountBlocks(blocks);
}

function when(ms) {
  return new Date(ms).toLocaleString(language(), { dateStyle: 'medium', timeStyle: 'short' });
}

function passwordSection(onChanged) {
  const old = h('input', { type: 'password', id: 'acct-old-password', autocomplete: 'current-password', required: true });
  const fresh = h('input', { type: 'password', id: 'acct-new-password', autocomplete: 'new-password', required: true });
  const status = h('p', { id: 'acct-password-status', role: 'status' });
  const submit = h('button', { type: 'submit', id: 'acct-password-submit', class: 'primary' }, t('acct.password_change'));
  const form = h('form', { id: 'acct-password-form', novalidate: true },
    h('p', { class: 'field' }, h('label', { for: 'acct-old-password' }, t('acct.password_old')), old),
    h('p', { class: 'field' }, h('label', { for: 'acct-new-password' }, t('acct.password_new')), fresh),
    h('p', { class: 'hint' }, t('acct.password_hint')),
    submit, status);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    submit.disabled = true;
    status.textContent = '';
    try {
      await request('POST', '/api/account/password', { old: old.value, new: fresh.value });
      old.value = '';
      fresh.value = '';
      status.textContent = t('acct.password_changed');
      onChanged();
    } catch (err) {
      status.textContent = errorText(err);
    }
    submit.disabled = false;
  });
  return h('section', { class: 'panel', id: 'acct-password' }, h('h2', {}, t('acct.password')), form);
}

function errorText(err) {
  const code = err && err.code;
  if (code === 'wrong_password') return t('acct.wrong_password');
  if (code === 'games_in_progress') return t('acct.games_in_progress');
  if (code === 'no_such_session') return t('acct.no_such_session');
  return accountErrorText(err);
}

async function loadSessions(section) {
  const status = h('p', { id: 'acct-sessions-status', role: 'status' });
  const list = h('ul', { id: 'acct-session-list', class: 'session-list' });
  const endOthers = h('button', { type: 'button', id: 'acct-end-others' }, t('acct.sessions_end_others'));
  section.replaceChildren(h('h2', {}, t('acct.sessions')), list, endOthers, status);
  let body;
  try {
    body = await request('GET', '/api/account/sessions');
  } catch (err) {
    status.textContent = errorText(err);
    return;
  }
  for (const s of body.sessions) {
    const end = s.current ? null : h('button', {
      type: 'button', class: 'acct-end-session', 'data-session': s.id,
      onclick: async (e) => {
        e.currentTarget.disabled = true;
        try {
          await request('DELETE', `/api/account/sessions/${encodeURIComponent(s.id)}`);
          await loadSessions(section);
        } catch (err) {
          status.textContent = errorText(err);
        }
      },
    }, t('acct.session_end'));
    list.append(h('li', { class: 'acct-session', 'data-session': s.id },
      h('span', {}, t('acct.session_line', { created: when(s.created_ms), seen: when(s.last_seen_ms) })),
      s.current ? h('strong', { class: 'acct-current' }, t('acct.session_current')) : null,
      end));
  }
  endOthers.hidden = body.sessions.length < 2;
  endOthers.addEventListener('click', async () => {
    endOthers.disabled = true;
    try {
      await request('POST', '/api/account/sessions/end-others');
      await loadSessions(section);
    } catch (err) {
      status.textContent = errorText(err);
      endOthers.disabled = false;
    }
  });
}

function archiveSection() {
  return h('section', { class: 'panel', id: 'acct-archive' },
    h('h2', {}, t('acct.archive')),
    h('p', {}, t('acct.archive_hint')),
    h('a', { href: '/api/account/archive', id: 'acct-archive-link', download: '' }, t('acct.archive_download')));
}

function deleteSection() {
  const password = h('input', { type: 'password', id: 'acct-delete-password', autocomplete: 'current-password', required: true });
  const status = h('p', { id: 'acct-delete-status', role: 'alert' });
  const submit = h('button', { type: 'submit', id: 'acct-delete-submit', class: 'danger' }, t('acct.delete_button'));
  const form = h('form', { id: 'acct-delete-form', novalidate: true },
    h('p', {}, t('acct.delete_hint')),
    h('p', { class: 'field' }, h('label', { for: 'acct-delete-password' }, t('acct.delete_password')), password),
    submit, status);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!window.confirm(t('acct.delete_confirm'))) return;
    submit.disabled = true;
    status.textContent = '';
    try {
      await request('POST', '/api/account/delete', { password: password.value });
      location.assign('/');
    } catch (err) {
      status.textContent = errorText(err);
      submit.disabled = false;
    }
  });
  return h('section', { class: 'panel', id: 'acct-delete' }, h('h2', {}, t('acct.delete')), form);
}
