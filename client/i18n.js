// The client's languages: every string the page shows comes from one flat
// JSON catalogue per language (client/i18n/{en,fr,es}.json, keys like
// "game.resign"), through `t(key, params)`.
//
// The chosen catalogue is loaded by a top-level await, so every module that
// imports this one (app.js imports it first) runs only once the words are
// there: the page never draws in English and then changes. English is
// loaded alongside as the fallback for a key a catalogue lacks (the test
// tests/server/client_i18n.rs keeps that from happening) and for a failed request.
//
// The language: the `language` setting of settings.js when it names one
// ('en', 'fr', 'es'; settings-panel.js calls `setLanguage` on a change and
// reloads the page), else the one `setLanguage` last kept in localStorage,
// else the first of `navigator.languages` (the browser's Accept-Language) we
// speak, else English. It imports only settings.js, which imports nothing, so
// any module may import this one without a cycle (a cycle through a
// top-level await would never finish loading).

import { setting } from './settings.js';

/** The languages we speak, with their names in themselves (for a chooser). */
export const LANGUAGES = [['en', 'English'], ['fr', 'Français'], ['es', 'Español']];

const CODES = LANGUAGES.map(([code]) => code);
const STORED = 'marseillais.language';

/** 'en' | 'fr' | 'es' from a BCP 47 tag ("fr-CA" -> "fr"), or null. */
function supported(tag) {
  const code = String(tag || '').toLowerCase().split('-')[0];
  return CODES.includes(code) ? code : null;
}

function stored() {
  try { return supported(localStorage.getItem(STORED)); } catch (_) { return null; }
}

/** The language of the browser: the first of `navigator.languages` we speak. */
export function browserLanguage() {
  const tags = (navigator.languages && navigator.languages.length)
    ? navigator.languages : [navigator.language];
  for (const tag of tags) {
    const code = supported(tag);
    if (code) return code;
  }
  return 'en';
}

async function load(code) {
  try {
    const res = await fetch(`/static/i18n/${code}.json`);
    if (!res.ok) return {};
    const data = await res.json();
    return data && typeof data === 'object' ? data : {};
  } catch (_) {
    return {};
  }
}

let current = supported(setting('language')) || stored() || browserLanguage();
let english = {};
let words = {};
[english, words] = await Promise.all([load('en'), current === 'en' ? null : load(current)]);
if (current === 'en') words = english;
let plurals = new Intl.PluralRules(current);
applyDocument();

/** The language the page speaks: 'en', 'fr' or 'es'. */
export function language() {
  return current;
}

/**
 * Chooses the language: 'en', 'fr', 'es', or 'auto' (the browser's). Kept
 * for the next page; loads the catalogue and relabels the static page
 * (`data-i18n` elements, `<html lang>`). Text already drawn by the modules
 * stays as it was: the caller reloads the page if it must change at once.
 * Resolves to true when the language changed.
 */
export async function setLanguage(code) {
  const chosen = supported(code);
  try {
    if (chosen) localStorage.setItem(STORED, chosen);
    else localStorage.removeItem(STORED);
  } catch (_) { /* private mode: this page only */ }
  const next = chosen || browserLanguage();
  if (next === current) return false;
  const loaded = next === 'en' ? english : await load(next);
  current = next;
  words = loaded;
  plurals = new Intl.PluralRules(current);
  applyDocument();
  return true;
}

/**
 * The text of `key` in the page's language, with `{name}` placeholders
 * replaced from `params`. A numeric `params.n` picks the plural form when
 * the catalogue has `key.one` / `key.other` (and whatever other category
 * Intl.PluralRules gives the language, falling back to `.other`): French
 * says "0 jour" and "1 jour", English "0 days". Numbers are written the
 * language's way (Intl). An unknown key shows itself.
 */
export function t(key, params = {}) {
  let text = lookup(key);
  if (text === undefined && typeof params.n === 'number') {
    text = lookup(`${key}.${plurals.select(params.n)}`) ?? lookup(`${key}.other`);
  }
  if (text === undefined) return key;
  return text.replace(/\{(\w+)\}/g, (all, name) => {
    if (!(name in params)) return all;
    const v = params[name];
    return typeof v === 'number' ? number(v) : String(v);
  });
}

function lookup(key) {
  if (Object.hasOwn(words, key)) return words[key];
  if (Object.hasOwn(english, key)) return english[key];
  return undefined;
}

/** Whether the catalogue has `key` (for codes from the server: `error.{code}`). */
export function has(key) {
  return lookup(key) !== undefined;
}

/** A number written the page language's way ("1 500" in French). */
export function number(n, options) {
  try { return new Intl.NumberFormat(current, options).format(n); } catch (_) { return String(n); }
}

/**
 * Relabels the static HTML: `data-i18n` (a key) sets an element's text,
 * `data-i18n-title`, `data-i18n-aria-label` and `data-i18n-placeholder` its
 * attributes; sets `<html lang>` and `data-lang` (the stylesheet keeps
 * `data-i18n` text hidden until then, so the HTML's English never shows).
 */
export function applyDocument(root = document) {
  if (typeof document === 'undefined') return;
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const attr of ['title', 'aria-label', 'placeholder']) {
    for (const el of root.querySelectorAll(`[data-i18n-${attr}]`)) {
      el.setAttribute(attr, t(el.getAttribute(`data-i18n-${attr}`)));
    }
  }
  document.documentElement.lang = current;
  document.documentElement.dataset.lang = current;
}
