// The account in the header of every page: "Sign up" / "Log in" (one small
// dialog), or the signed-in username (a link to the profile) and "Log out".
// The session itself is an HttpOnly cookie this code never sees: it asks
// `GET /api/account` who is signed in, once per page.

import { request, h } from './api.js';
import { t } from './i18n.js';

let current = null;

/**
 * The signed-in account (`{username, ratings}`) or null, asked once per page.
 * A visitor gets `200 {"account": null}` (issue 32: no HTTP error in the
 * console on every page); any failure (a server without accounts, offline)
 * also counts as signed out: the page then works as it always did, anonymously.
 */
export function account() {
  if (!current) {
    current = request('GET', '/api/account')
      .then((body) => (body && body.username ? body : null))
      .catch(() => null);
  }
  return current;
}

/** What each refusal of the account endpoints means, in words. */
export const ACCOUNT_ERRORS = {
  username_taken: t('account.username_taken'),
  bad_username: t('account.bad_username'),
  weak_password: t('account.weak_password'),
  bad_credentials: t('error.bad_credentials'),
  rate_limited: t('account.rate_limited'),
  bad_origin: t('account.bad_origin'),
  offline: t('error.offline'),
};

export function accountErrorText(err) {
  return ACCOUNT_ERRORS[err && err.code] || t('account.failed', { error: (err && err.message) || t('account.unknown_error') });
}

/** A profile's address. */
export function profileUrl(name) {
  return `/@/${encodeURIComponent(name)}`;
}

/** Fills the header's `#account` box; resolves to the account (or null). */
export async function accountHeader() {
  const box = document.getElementById('account');
  const me = await account();
  if (!box) return me;
  if (me && me.username) {
    box.replaceChildren(
      h('a', { href: profileUrl(me.username), id: 'account-name', class: 'account-name' }, me.username),
      h('button', { type: 'button', id: 'btn-logout', class: 'header-btn', onclick: logout }, t('account.logout')));
  } else {
    box.replaceChildren(
      h('button', { type: 'button', id: 'btn-signup', class: 'header-btn', onclick: () => openDialog('signup') }, t('account.signup')),
      h('button', { type: 'button', id: 'btn-login', class: 'header-btn', onclick: () => openDialog('login') }, t('account.login')));
  }
  return me;
}

async function logout(e) {
  const button = e.currentTarget;
  button.disabled = true;
  try {
    await request('POST', '/api/account/logout');
  } catch (_) {
    // Even a failed logout reloads: the page then shows what the server says.
  }
  location.reload();
}

let dialog = null;

/** The sign-up / log-in dialog (one form; the mode changes its title, button and endpoint). */
function openDialog(mode) {
  if (!dialog) dialog = buildDialog();
  dialog.setMode(mode);
  dialog.el.showModal();
  dialog.el.querySelector('#account-username').focus();
}

function buildDialog() {
  const title = h('h2', { id: 'account-title' });
  const error = h('p', { class: 'error', id: 'account-error', role: 'alert' });
  const username = h('input', {
    type: 'text', id: 'account-username', name: 'username', autocomplete: 'username',
    autocapitalize: 'off', spellcheck: 'false', required: true,
  });
  const password = h('input', { type: 'password', id: 'account-password', name: 'password', required: true });
  const hint = h('p', { class: 'hint', id: 'account-hint' });
  const submit = h('button', { type: 'submit', id: 'account-submit', class: 'primary' });
  const other = h('button', { type: 'button', id: 'account-switch', class: 'linkish' });
  const form = h('form', { id: 'account-form', method: 'dialog', novalidate: true },
    title,
    h('p', { class: 'field' }, h('label', { for: 'account-username' }, t('account.username')), username),
    h('p', { class: 'field' }, h('label', { for: 'account-password' }, t('account.password')), password),
    hint, error,
    h('div', { class: 'row' }, submit,
      h('button', { type: 'button', id: 'account-cancel', onclick: () => el.close() }, t('common.cancel'))),
    h('p', { class: 'switch' }, other));
  const el = h('dialog', { id: 'account-dialog', class: 'account-dialog', 'aria-labelledby': 'account-title' }, form);
  document.body.append(el);
  let mode = 'login';
  const setMode = (m) => {
    mode = m;
    const signup = m === 'signup';
    title.textContent = signup ? t('account.signup') : t('account.login');
    submit.textContent = signup ? t('account.signup') : t('account.login');
    other.textContent = signup ? t('account.have_account') : t('account.no_account');
    hint.textContent = signup ? t('account.signup_hint') : '';
    password.setAttribute('autocomplete', signup ? 'new-password' : 'current-password');
    error.textContent = '';
  };
  other.addEventListener('click', () => setMode(mode === 'signup' ? 'login' : 'signup'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.textContent = '';
    submit.disabled = true;
    try {
      const path = mode === 'signup' ? '/api/account/register' : '/api/account/login';
      await request('POST', path, { username: username.value.trim(), password: password.value });
      // A reload: every part of the page (seats, lobby, challenges) then reads the session afresh.
      location.reload();
    } catch (err) {
      error.textContent = accountErrorText(err);
      submit.disabled = false;
    }
  });
  return { el, setMode };
}
