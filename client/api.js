// HTTP helpers and the seat tokens kept in this browser (localStorage, one
// per game id), so that a reload or a second tab continues as the player.

import { t, has, language } from './i18n.js';

export class ApiError extends Error {
  /** `message` (the page shows it) is in the page's language: see `errorText`. */
  constructor(status, code, message, extra = {}) {
    super(errorText(code, message));
    this.status = status;
    this.code = code;
    Object.assign(this, extra);
    /** The server's own (English) words: some carry details the code does not. */
    this.serverMessage = message;
  }
}

/**
 * A server error in the page's language, from its code (the codes of
 * docs/protocol.md, HTTP and section 3.6, are the catalogue's `error.{code}`).
 * In English the server's own message is kept when there is one (it often
 * says more, e.g. which field); an unknown code falls back to it in any
 * language.
 */
export function errorText(code, serverMessage) {
  if (language() === 'en' && serverMessage) return serverMessage;
  if (code && has(`error.${code}`)) return t(`error.${code}`);
  return serverMessage || t('error.unknown');
}

/** Sends a JSON request; resolves to the JSON reply or throws an ApiError. */
export async function request(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, 'offline', t('error.offline'));
  }
  let data = null;
  try { data = await res.json(); } catch (_) { data = null; }
  if (!res.ok) {
    const { code = 'error', message = `HTTP ${res.status}`, ...extra } = data || {};
    throw new ApiError(res.status, code, message, extra);
  }
  return data;
}

const PREFIX = 'marseillais.seat.';

export function seatToken(id) {
  try { return localStorage.getItem(PREFIX + id); } catch (_) { return null; }
}

/** Keeps a seat's token (and, when known, its colour: "My games" says "your turn" from it). */
export function saveSeat(id, token, color) {
  try {
    localStorage.setItem(PREFIX + id, token);
    if (color === 'white' || color === 'black') localStorage.setItem(COLOR_PREFIX + id, color);
  } catch (_) { /* private mode */ }
}

const COLOR_PREFIX = 'marseillais.seatcolor.';

/** The games whose seats this browser holds: `[{id, color}]` (colour null when not kept). */
export function heldSeats() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i += 1) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith(PREFIX)) continue;
      const id = key.slice(PREFIX.length);
      if (!/^[0-9A-Za-z]{1,32}$/.test(id)) continue;
      out.push({ id, color: localStorage.getItem(COLOR_PREFIX + id) });
    }
  } catch (_) { /* private mode */ }
  return out;
}

export function hasSeat(id) {
  return !!seatToken(id);
}

/** Shortcut for `document.createElement` with properties and children. */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

/** "5+3", "15 s + 2", "3 days" (correspondence: `{days_per_turn}`), "No clock". */
export function clockLabel(clock) {
  if (!clock) return t('clock.none');
  if (typeof clock.days_per_turn === 'number') return daysLabel(clock.days_per_turn);
  const base = clock.base_secs % 60 === 0 ? `${clock.base_secs / 60}` : t('time.secs_short', { n: clock.base_secs });
  return `${base}+${clock.increment_secs}`;
}

/** The days per turn a correspondence game may have (docs/protocol.md). */
export const DAYS_PER_TURN = [1, 2, 3, 5, 7, 14];

/** "1 day", "3 days". */
export function daysLabel(days) {
  return t('time.days', { n: days });
}

/**
 * The time control of a game from its state or summary: the live `clock`
 * (`{base_secs, increment_secs}`), a correspondence game's
 * `{days_per_turn}` (the summary's `clock`, or the state's
 * `correspondence`: its `clock` is null), or null when untimed.
 */
export function timeControlOf(g) {
  if (!g) return null;
  if (g.correspondence && typeof g.correspondence.days_per_turn === 'number') {
    return { days_per_turn: g.correspondence.days_per_turn };
  }
  const c = g.clock;
  if (c && typeof c.days_per_turn === 'number') return { days_per_turn: c.days_per_turn };
  if (c && typeof c.base_secs === 'number') return { base_secs: c.base_secs, increment_secs: c.increment_secs };
  return null;
}

/**
 * The time left of a correspondence turn in words, rounded down (the page
 * never promises more time than there is): "2 days 5 h", "1 day 0 h",
 * "3 h 12 min", under an hour "12 min 5 s", under a minute "35 s".
 * `coarse` drops the seconds above a minute ("12 min").
 */
export function timeLeftText(ms, { coarse = false } = {}) {
  const secs = Math.max(0, Math.floor((Number(ms) || 0) / 1000));
  const days = Math.floor(secs / 86400);
  const hours = Math.floor((secs % 86400) / 3600);
  const mins = Math.floor((secs % 3600) / 60);
  const s = secs % 60;
  if (days) return t('time.days_hours', { days: daysLabel(days), h: hours });
  if (hours) return t('time.hours_mins', { h: hours, min: mins });
  // Coarse (the lists, redrawn only when their text changes): no seconds above a minute.
  if (mins) return coarse ? t('time.mins', { min: mins }) : t('time.mins_secs', { min: mins, s });
  return t('time.secs_short', { n: s });
}

/** A deadline (Unix ms) as local date and time: "Tue 3 Dec, 14:05". */
export function deadlineText(ms) {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return '';
  const day = d.toLocaleDateString(language(), { weekday: 'short', day: 'numeric', month: 'short' });
  const time = d.toLocaleTimeString(language(), { hour: '2-digit', minute: '2-digit' });
  return `${day}, ${time}`;
}

/** The ways a game ends, as the server names them (`outcome.reason`); words: `reason.{name}`. */
export const REASONS = [
  'checkmate', 'stalemate', 'second_move_stalemate', 'insufficient_material', 'fivefold_repetition',
  'seventy_five_move_rule', 'threefold_repetition', 'fifty_move_rule', 'agreement', 'resignation',
  'time_forfeit', 'abandonment', 'aborted', 'unterminated',
];

/** "checkmate", "the 75-move rule": how a game ended, in words (an unknown reason as it came). */
export function reasonText(reason) {
  if (REASONS.includes(reason)) return t(`reason.${reason}`);
  return String(reason || '').replaceAll('_', ' ');
}

/** "White wins by checkmate", "Draw by agreement", "Game aborted". */
export function outcomeText(outcome) {
  if (!outcome) return '';
  if (outcome.reason === 'aborted') return t('outcome.aborted');
  const why = reasonText(outcome.reason);
  if (outcome.winner === 'white' || outcome.winner === 'black') {
    return t(`outcome.${outcome.winner}_wins`, { reason: why });
  }
  if (outcome.result === '1/2-1/2') return t('outcome.draw', { reason: why });
  return t('outcome.over', { reason: why });
}

/**
 * A rating on the wire (`{rating, deviation, provisional}`) in words: "1512",
 * "1500?" while provisional; "" when there is none.
 */
export function ratingText(r) {
  if (!r || typeof r.rating !== 'number') return '';
  return `${Math.round(r.rating)}${r.provisional ? '?' : ''}`;
}

/** A rating change as "+12", "-8", "±0". */
export function diffText(diff) {
  const n = Math.round(Number(diff) || 0);
  if (n > 0) return `+${n}`;
  if (n < 0) return `-${-n}`;
  return '±0';
}

/** The speeds of the ratings, in the server's order, with their names. */
export const SPEEDS = ['bullet', 'blitz', 'rapid', 'classical', 'correspondence']
  .map((speed) => [speed, t(`speed.${speed}`)]);

/** "Balanced" / "Marseillais" in the page's language (an unknown variant capitalised). */
export function variantName(variant) {
  if (variant === 'balanced' || variant === 'marseillais') return t(`variant.${variant}`);
  return cap(variant);
}

/** "White" / "Black" in the page's language (a colour the server named); anything else capitalised. */
export function colorName(color) {
  if (color === 'white' || color === 'black') return t(`color.${color}`);
  return cap(color);
}

export function cap(s) {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}
