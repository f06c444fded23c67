// Personal settings: one typed table of names, defaults and checks, kept in
// this browser's localStorage (and, signed in, in the account: see
// settingsSync in settings-panel.js). Every value read back is checked
// against the table, so a stored value from an older client, a hand edit or
// broken JSON falls back to the default instead of breaking a page; private
// mode (no localStorage) keeps the values in memory for the page's life.
//
//   setting(name)            the current value (always a valid one)
//   setSetting(name, value)  checks, stores, tells the listeners; false if refused
//   onSetting(name, fn)      fn(value) after each change of that setting
//                            (this tab, another tab, or the account); returns
//                            a function that removes the listener
//
// Names: confirmMoves ('off'|'on'|'correspondence': on only in
// correspondence games), premoves, sound, legalDots, coordinates (booleans),
// volume (integer 0..100), theme (one of THEMES), language ('auto' follows
// navigator.languages, or 'en'|'fr'|'es'), chat (boolean: every chat panel
// shown, or off for good).

const KEY = 'marseillais.settings';
/** The mute switch of sound.js before settings existed ('1' = muted). */
const OLD_MUTE_KEY = 'marseillais.muted';

/** The board colour themes, in the order the panel lists them. */
export const THEMES = ['brown', 'blue', 'green', 'grey'];
export const CONFIRM_MOVES = ['off', 'on', 'correspondence'];
export const LANGUAGES = ['auto', 'en', 'fr', 'es'];

const isBool = (v) => typeof v === 'boolean';
const oneOf = (list) => (v) => list.includes(v);
const isVolume = (v) => Number.isInteger(v) && v >= 0 && v <= 100;

/** Every setting: its default and what a valid value is. */
const TABLE = {
  confirmMoves: { fallback: 'correspondence', valid: oneOf(CONFIRM_MOVES) },
  premoves: { fallback: true, valid: isBool },
  sound: { fallback: true, valid: isBool },
  volume: { fallback: 70, valid: isVolume },
  theme: { fallback: 'brown', valid: oneOf(THEMES) },
  legalDots: { fallback: true, valid: isBool },
  coordinates: { fallback: true, valid: isBool },
  language: { fallback: 'auto', valid: oneOf(LANGUAGES) },
  // Chat shown at all (issue 32): off hides every chat panel, lines and input, for good.
  chat: { fallback: true, valid: isBool },
};

/** The setting names, in the table's order. */
export const SETTING_NAMES = Object.keys(TABLE);

const listeners = new Map();
const anyListeners = new Set();
let values = load();

/** Reads what is stored, keeping only valid values; migrates the old mute key. */
function load() {
  const out = defaults();
  let stored = null;
  try {
    stored = JSON.parse(localStorage.getItem(KEY) || 'null');
  } catch (_) { stored = null; }
  if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
    for (const name of SETTING_NAMES) {
      if (TABLE[name].valid(stored[name])) out[name] = stored[name];
    }
  }
  try {
    const muted = localStorage.getItem(OLD_MUTE_KEY);
    if (muted !== null) {
      // A muted user stays muted; an explicit newer choice wins.
      if (!(stored && TABLE.sound.valid(stored.sound))) out.sound = muted !== '1';
      localStorage.removeItem(OLD_MUTE_KEY);
      save(out);
    }
  } catch (_) { /* private mode */ }
  return out;
}

function save(all) {
  try { localStorage.setItem(KEY, JSON.stringify(all)); } catch (_) { /* private mode: memory only */ }
}

/** The defaults of every setting, as a fresh object. */
export function defaults() {
  const out = {};
  for (const name of SETTING_NAMES) out[name] = TABLE[name].fallback;
  return out;
}

/** The current value of a setting (undefined for an unknown name). */
export function setting(name) {
  return Object.prototype.hasOwnProperty.call(values, name) ? values[name] : undefined;
}

/** Every setting's current value, as a fresh object. */
export function allSettings() {
  return { ...values };
}

/** Whether `value` is a valid value of setting `name`. */
export function validSetting(name, value) {
  return Object.prototype.hasOwnProperty.call(TABLE, name) && TABLE[name].valid(value);
}

/**
 * Sets one setting. Refuses (returns false, changes nothing) an unknown name
 * or an invalid value. `source` is told to the any-change listeners: 'user'
 * (the default) is saved to the account, 'account' (values just loaded from
 * it) is not sent back.
 */
export function setSetting(name, value, source = 'user') {
  if (!validSetting(name, value)) return false;
  if (values[name] === value) return true;
  values = { ...values, [name]: value };
  save(values);
  notify(name, source);
  return true;
}

/** Sets several settings at once (the account's on sign-in); invalid ones are skipped. */
export function setSettings(object, source = 'user') {
  if (!object || typeof object !== 'object') return;
  for (const name of SETTING_NAMES) {
    if (Object.prototype.hasOwnProperty.call(object, name)) setSetting(name, object[name], source);
  }
}

/** Calls fn(value) after each change of setting `name`; returns the remover. */
export function onSetting(name, fn) {
  if (!listeners.has(name)) listeners.set(name, new Set());
  listeners.get(name).add(fn);
  return () => listeners.get(name).delete(fn);
}

/** Calls fn(name, value, source) after each change of any setting; returns the remover. */
export function onAnySetting(fn) {
  anyListeners.add(fn);
  return () => anyListeners.delete(fn);
}

function notify(name, source) {
  const value = values[name];
  for (const fn of listeners.get(name) || []) {
    try { fn(value); } catch (e) { console.error('setting listener', name, e); }
  }
  for (const fn of anyListeners) {
    try { fn(name, value, source); } catch (e) { console.error('setting listener', name, e); }
  }
}

// Another tab changed the settings: take its values (they are this browser's too).
window.addEventListener('storage', (event) => {
  if (event.key !== KEY) return;
  const before = values;
  values = load();
  for (const name of SETTING_NAMES) {
    if (before[name] !== values[name]) notify(name, 'tab');
  }
});

/** Whether moves are confirmed in a game that is (or is not) a correspondence game. */
export function confirmsMoves(correspondence) {
  const v = setting('confirmMoves');
  return v === 'on' || (v === 'correspondence' && !!correspondence);
}
