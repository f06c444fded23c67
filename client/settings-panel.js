// The settings panel and what applies the settings to every page:
//
// - settingsButton(): the header's "Settings" button, opening one dialog on
//   every page. A dialog rather than a /settings page: a change shows at once
//   on the board behind it (theme, dots, coordinates), and opening it in the
//   middle of a live game leaves neither the game nor its socket. It is a
//   native <dialog> (focus kept inside, Escape closes) of native controls
//   (radio buttons, checkboxes, a range, selects), each applied on change.
// - applyLook(): the page-wide side of the look (the theme's board colours are
//   CSS variables chosen by <html data-theme>); board.js reads dots and
//   coordinates itself.
// - syncSettings(me): signed in, the account's settings replace this
//   browser's on page load (the account is the same on every device, a
//   browser's copy may be weeks old), or, if the account has none yet, this
//   browser's are saved to it; then every change made here is saved to the
//   account, debounced (a volume drag is one save).

import { request, h } from './api.js';
import {
  THEMES, CONFIRM_MOVES, LANGUAGES, setting, setSetting, setSettings, onSetting,
  onAnySetting, allSettings,
} from './settings.js';
import { play } from './sound.js';
import { t, setLanguage, LANGUAGES as SPOKEN } from './i18n.js';

/** How long after the last change the account save waits. */
const SAVE_DELAY_MS = 600;

/**
 * Sets <html data-theme> now and on every change of the theme; keeps i18n.js's
 * language the `language` setting's (a change reloads the page, since text
 * already drawn stays in the language it was drawn in).
 */
export function applyLook() {
  const root = document.documentElement;
  const theme = () => { root.dataset.theme = setting('theme'); };
  theme();
  onSetting('theme', theme);
  const speak = async (code) => {
    if (await setLanguage(code)) location.reload();
  };
  if (setting('language') === 'auto') {
    // A language i18n.js remembers from before this setting existed becomes the setting.
    let kept = null;
    try { kept = localStorage.getItem('marseillais.language'); } catch (_) { kept = null; }
    if (kept && kept !== 'auto') setSetting('language', kept, 'migrate');
  } else {
    speak(setting('language'));
  }
  onSetting('language', speak);
}

let dialog = null;

/** The header's button that opens the settings (inserted before the account box). */
export function settingsButton() {
  const header = document.querySelector('header.top');
  if (!header || header.querySelector('#btn-settings')) return;
  // On a phone only the gear shows (the header stays one line); its name is still said.
  const button = h('button', {
    type: 'button', id: 'btn-settings', class: 'header-btn settings-btn',
    'aria-haspopup': 'dialog', 'aria-label': t('settings.open'), onclick: openSettings,
  }, h('span', { class: 'gear', 'aria-hidden': 'true' }, '\u2699'),
  h('span', { class: 'settings-label' }, t('settings.open')));
  const account = header.querySelector('#account');
  if (account) header.insertBefore(button, account);
  else header.append(button);
}

/** Opens the settings dialog (built on first use), its controls showing the current values. */
export function openSettings() {
  if (!dialog) dialog = buildDialog();
  dialog.refresh();
  dialog.el.showModal();
  // The chosen theme first: arrow keys then move through the themes.
  const first = dialog.el.querySelector('input:checked') || dialog.el.querySelector('input');
  if (first) first.focus();
}

function checkbox(name, label) {
  const input = h('input', { type: 'checkbox', id: `set-${name}`, name });
  input.addEventListener('change', () => setSetting(name, input.checked));
  const row = h('p', { class: 'check-row' }, input, h('label', { for: input.id }, label));
  return { row, refresh: () => { input.checked = setting(name); } };
}

function select(name, label, options) {
  const el = h('select', { id: `set-${name}`, name },
    ...options.map(([value, text]) => h('option', { value }, text)));
  el.addEventListener('change', () => setSetting(name, el.value));
  const row = h('p', { class: 'field' }, h('label', { for: el.id }, label), el);
  return { row, refresh: () => { el.value = setting(name); } };
}

// Literal keys (not `settings.theme.${name}`), so that tests/server/client_i18n.rs sees each one.
const THEME_NAMES = {
  brown: () => t('settings.theme.brown'),
  blue: () => t('settings.theme.blue'),
  green: () => t('settings.theme.green'),
  grey: () => t('settings.theme.grey'),
};
const CONFIRM_NAMES = {
  off: () => t('settings.confirmMoves.off'),
  on: () => t('settings.confirmMoves.on'),
  correspondence: () => t('settings.confirmMoves.correspondence'),
};

function themes() {
  const inputs = THEMES.map((theme) => {
    const input = h('input', { type: 'radio', name: 'theme', id: `set-theme-${theme}`, value: theme });
    input.addEventListener('change', () => { if (input.checked) setSetting('theme', theme); });
    return input;
  });
  const row = h('fieldset', { class: 'themes' },
    h('legend', {}, t('settings.theme')),
    ...THEMES.map((theme, i) => h('label', { class: 'theme-choice', for: inputs[i].id, 'data-theme': theme },
      inputs[i],
      h('span', { class: 'swatch', 'aria-hidden': 'true' }, h('span', { class: 'swatch-light' }), h('span', { class: 'swatch-dark' })),
      h('span', {}, THEME_NAMES[theme]()))));
  return { row, refresh: () => { for (const input of inputs) input.checked = input.value === setting('theme'); } };
}

function volume() {
  const input = h('input', { type: 'range', id: 'set-volume', name: 'volume', min: '0', max: '100', step: '5' });
  const shown = h('output', { for: 'set-volume', id: 'set-volume-value' });
  input.addEventListener('input', () => {
    setSetting('volume', Number(input.value));
    shown.textContent = input.value;
  });
  // Hear the level chosen, once the slider is let go (not at every step of a drag).
  input.addEventListener('change', () => play('move'));
  const row = h('p', { class: 'field' }, h('label', { for: input.id }, t('settings.volume')), input, shown);
  return {
    row,
    refresh: () => {
      input.value = String(setting('volume'));
      shown.textContent = String(setting('volume'));
      input.disabled = !setting('sound');
    },
  };
}

function buildDialog() {
  const parts = {
    theme: themes(),
    legalDots: checkbox('legalDots', t('settings.legalDots')),
    coordinates: checkbox('coordinates', t('settings.coordinates')),
    sound: checkbox('sound', t('settings.sound')),
    volume: volume(),
    confirmMoves: select('confirmMoves', t('settings.confirmMoves'),
      CONFIRM_MOVES.map((v) => [v, CONFIRM_NAMES[v]()])),
    premoves: checkbox('premoves', t('settings.premoves')),
    chat: checkbox('chat', t('chatctl.setting')),
    // Each language is named in itself: whoever reads one of them finds it.
    language: select('language', t('settings.language'),
      LANGUAGES.map((v) => [v, v === 'auto' ? t('settings.language.auto') : NATIVE_NAMES[v]])),
  };
  const where = h('p', { class: 'hint', id: 'settings-where' });
  const saveError = h('p', { class: 'error', id: 'settings-error', role: 'alert' });
  const form = h('form', { id: 'settings-form', method: 'dialog' },
    h('h2', { id: 'settings-title' }, t('settings.title')),
    h('fieldset', {}, h('legend', {}, t('settings.board')),
      parts.theme.row, parts.legalDots.row, parts.coordinates.row),
    h('fieldset', {}, h('legend', {}, t('settings.sounds')), parts.sound.row, parts.volume.row),
    h('fieldset', {}, h('legend', {}, t('settings.moves')), parts.confirmMoves.row, parts.premoves.row),
    h('fieldset', {}, h('legend', {}, t('chatctl.legend')), parts.chat.row),
    parts.language.row,
    where, saveError,
    h('div', { class: 'row' },
      h('button', { type: 'submit', id: 'settings-close', class: 'primary' }, t('settings.close'))));
  const el = h('dialog', { id: 'settings-dialog', class: 'account-dialog settings-dialog', 'aria-labelledby': 'settings-title' }, form);
  document.body.append(el);
  const refresh = () => {
    for (const part of Object.values(parts)) part.refresh();
    where.textContent = syncedToAccount ? t('settings.where.account') : t('settings.where.browser');
    saveError.textContent = lastSaveFailed ? t('settings.saveFailed') : '';
  };
  // A change from elsewhere (another tab, the account, the game's mute button) shows here too.
  onAnySetting(() => { if (el.open) refresh(); });
  onSaveState(() => { if (el.open) refresh(); });
  return { el, refresh };
}

/** Each language's name in itself, from i18n.js. */
const NATIVE_NAMES = Object.fromEntries(SPOKEN);

// ---- the account's copy ----

let syncedToAccount = false;
let lastSaveFailed = false;
let timer = null;
const saveStateListeners = new Set();

function onSaveState(fn) { saveStateListeners.add(fn); }

function saveState(failed) {
  lastSaveFailed = failed;
  for (const fn of saveStateListeners) fn();
}

async function saveNow() {
  timer = null;
  try {
    await request('PUT', '/api/account/settings', allSettings());
    saveState(false);
  } catch (_) {
    // Kept in this browser all the same; the next change tries the account again.
    saveState(true);
  }
}

function scheduleSave() {
  if (timer) clearTimeout(timer);
  timer = setTimeout(saveNow, SAVE_DELAY_MS);
}

/**
 * Signed in (`me` resolves to an account), loads the account's settings over
 * this browser's (or saves this browser's if the account has none), then saves
 * each change made in this tab. Resolves once the account's values are applied.
 */
export async function syncSettings(me) {
  const account = await me;
  if (!account || !account.username) return;
  let stored;
  try {
    stored = await request('GET', '/api/account/settings');
  } catch (_) {
    return; // The account cannot be read now: this browser's settings stay, nothing is saved over it.
  }
  syncedToAccount = true;
  if (stored && stored.settings) setSettings(stored.settings, 'account');
  else saveNow();
  onAnySetting((_name, _value, source) => { if (source === 'user') scheduleSave(); });
  // A change made just before leaving the page is not lost to the debounce.
  window.addEventListener('pagehide', () => {
    if (!timer) return;
    clearTimeout(timer);
    timer = null;
    try {
      fetch('/api/account/settings', {
        method: 'PUT', keepalive: true, headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(allSettings()),
      }).catch(() => {});
    } catch (_) { /* leaving anyway */ }
  });
}
