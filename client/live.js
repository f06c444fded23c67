// The live channel of every page (`/ws/lobby`): the count of players online
// and the challenges. A challenge to you shows as a small notification
// (accept / decline) on whatever page is open; a challenge you sent shows
// as "waiting for ..." until it is answered, and an accepted challenge takes
// both players to the game. The page sends on it only the lobby's chat lines
// (`sendLive`; answers to challenges go over HTTP). It also carries the
// lobby chat and the `your_turn` push (notify.js). It reconnects by itself,
// with backoff.

import { request, saveSeat, h, clockLabel, colorName, variantName } from './api.js';
import { t } from './i18n.js';
import { profileUrl } from './account.js';

const listeners = new Set();
const openers = new Set();
let ws = null;
let attempt = 0;
let me = null;
let notes = null;
/** Challenges shown, by id: `{el, outgoing, c}` (c: the challenge as last received). */
const shown = new Map();

/** Opens the channel once per page; `account` is the signed-in account or null. */
export function startLive(account) {
  me = account && account.username ? account.username : null;
  connect();
  window.addEventListener('pagehide', () => { if (ws) { ws.onclose = null; ws.close(1000, 'page hidden'); ws = null; } });
  window.addEventListener('pageshow', (e) => { if (e.persisted) { attempt = 0; connect(); } });
}

/** Sends `{t, d}` on the channel (the lobby chat); false when it is not open. */
export function sendLive(t, d) {
  if (!ws || ws.readyState !== WebSocket.OPEN) return false;
  ws.send(JSON.stringify({ t, d }));
  return true;
}

/**
 * Calls `fn()` each time the channel opens (after a reconnection too), and at once if it is
 * open: what a page asks of every new channel (the lobby: `pools_watch`).
 */
export function onLiveOpen(fn) {
  openers.add(fn);
  if (ws && ws.readyState === WebSocket.OPEN) fn();
  return () => openers.delete(fn);
}

/** Calls `fn(msg)` for every message of the channel (the lobby reads `online`). */
export function onLive(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function connect() {
  if (ws) return;
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  let socket;
  try { socket = new WebSocket(`${proto}//${location.host}/ws/lobby`); } catch (_) { retry(); return; }
  ws = socket;
  socket.onopen = () => {
    attempt = 0;
    for (const fn of openers) fn();
  };
  socket.onmessage = (e) => {
    let msg;
    try { msg = JSON.parse(e.data); } catch (_) { return; }
    if (!msg || typeof msg.t !== 'string') return;
    handle(msg.t, msg.d || {});
    for (const fn of listeners) fn(msg);
  };
  socket.onclose = () => {
    if (ws !== socket) return;
    ws = null;
    retry();
  };
  socket.onerror = () => { /* onclose follows */ };
}

function retry() {
  const delay = Math.min(30000, 1000 * 2 ** attempt) * (0.75 + Math.random() * 0.5);
  attempt += 1;
  setTimeout(connect, delay);
}

/** A user on the wire: a name, or `{name|username, rating?}`. */
export function nameOf(user) {
  if (!user) return null;
  if (typeof user === 'string') return user;
  return user.name || user.username || null;
}

function sameName(a, b) {
  return !!a && !!b && a.toLowerCase() === b.toLowerCase();
}

/** The game a challenge led to, if the message says (`game`, `game_id` or `{id}`). */
function gameOf(d) {
  const g = d.game || d.game_id || null;
  if (!g) return null;
  return typeof g === 'string' ? g : g.id || null;
}

function handle(type, d) {
  if (type === 'challenge') {
    const c = d.challenge || d;
    if (!c.id) return;
    const state = c.state || c.status || 'pending';
    const outgoing = sameName(nameOf(c.from), me);
    if (state === 'accepted') { accepted(c); return; }
    if (state !== 'pending') { gone(c.id, state, c); return; }
    if (outgoing) trackOutgoing(c); else showIncoming(c);
  } else if (type === 'challenge_gone') {
    if (d.reason === 'accepted' || gameOf(d)) accepted(d);
    else gone(d.id, d.reason, d);
  }
}

function container() {
  if (!notes) {
    notes = h('div', { id: 'live-notes', class: 'live-notes', role: 'region', 'aria-label': t('live.challenges') });
    notes.append(h('div', { class: 'visually-hidden', id: 'live-said', role: 'status', 'aria-live': 'polite' }));
    document.body.append(notes);
  }
  return notes;
}

function say(text) {
  const el = container().querySelector('#live-said');
  if (el) el.textContent = text;
}

/** "5+3 · Balanced · rated · you play White" (the colour is the challenged side's). */
function terms(c, forChallenged) {
  const parts = [clockLabel(c.clock), variantName(c.variant || 'balanced'), c.rated ? t('live.rated') : t('live.casual')];
  const color = c.color || 'random';
  if (color === 'white' || color === 'black') {
    const theirs = forChallenged ? (color === 'white' ? 'black' : 'white') : color;
    parts.push(t('live.you_play', { color: colorName(theirs) }));
  }
  return parts.join(' · ');
}

function place(id, el, outgoing, c) {
  const old = shown.get(id);
  if (old) old.el.replaceWith(el); else container().append(el);
  shown.set(id, { el, outgoing, c });
}

function showIncoming(c) {
  const from = nameOf(c.from) || t('live.someone');
  const rating = c.from && c.from.rating && typeof c.from.rating.rating === 'number' ? ` (${Math.round(c.from.rating.rating)}${c.from.rating.provisional ? '?' : ''})` : '';
  const error = h('p', { class: 'error' });
  const accept = h('button', { type: 'button', class: 'primary challenge-accept', id: `challenge-accept-${c.id}` }, t('live.accept'));
  const decline = h('button', { type: 'button', class: 'challenge-decline', id: `challenge-decline-${c.id}` }, t('live.decline'));
  accept.addEventListener('click', () => answer(c.id, 'accept', [accept, decline], error));
  decline.addEventListener('click', () => answer(c.id, 'decline', [accept, decline], error));
  const el = h('div', { class: 'challenge-note incoming', 'data-id': c.id },
    h('p', {}, h('a', { href: profileUrl(from) }, from), t('live.challenges_you', { rating, terms: terms(c, true) })),
    h('div', { class: 'row' }, accept, decline), error);
  place(c.id, el, false, c);
  say(t('live.said_challenge', { name: from }));
}

async function answer(id, verb, buttons, error) {
  for (const b of buttons) b.disabled = true;
  error.textContent = '';
  try {
    const reply = await request('POST', `/api/challenges/${encodeURIComponent(id)}/${verb}`);
    if (verb === 'accept') { accepted({ ...(reply || {}), id, game: gameOf(reply || {}) || (reply && reply.id !== id ? reply.id : null) }); return; }
    remove(id);
  } catch (err) {
    error.textContent = err.code === 'not_found' || err.status === 404
      ? t('live.no_longer_open')
      : t(verb === 'accept' ? 'live.accept_failed' : 'live.decline_failed', { error: err.message });
    for (const b of buttons) b.disabled = false;
  }
}

/** Shows a challenge this user sent, until it is answered; the profile page calls it too. */
export function trackOutgoing(c) {
  const to = nameOf(c.to) || t('live.them');
  const error = h('p', { class: 'error' });
  const cancel = h('button', { type: 'button', class: 'challenge-cancel', id: `challenge-cancel-${c.id}` }, t('common.cancel'));
  cancel.addEventListener('click', async () => {
    cancel.disabled = true;
    try {
      await request('POST', `/api/challenges/${encodeURIComponent(c.id)}/cancel`);
      remove(c.id);
    } catch (err) {
      error.textContent = t('live.cancel_failed', { error: err.message });
      cancel.disabled = false;
    }
  });
  const el = h('div', { class: 'challenge-note outgoing', 'data-id': c.id },
    h('p', { class: 'challenge-text' }, t('live.waiting', { name: to, terms: terms(c, false) })),
    h('div', { class: 'row' }, cancel), error);
  place(c.id, el, true, c);
}

function accepted(d) {
  const game = gameOf(d);
  if (d.token && game) saveSeat(game, d.token, d.color);
  if (!game) { remove(d.id); return; }
  const entry = shown.get(d.id);
  if (entry) entry.el.replaceChildren(h('p', {}, t('live.accepted_opening')));
  say(t('live.accepted_said'));
  if (location.pathname !== `/game/${game}`) location.assign(d.url || `/game/${game}`);
}

/** Why a challenge went, as the server says it: the key of its sentence (`{name}` the challenged). */
const GONE = {
  declined: 'live.gone_declined',
  decline: 'live.gone_declined',
  expired: 'live.gone_expired',
  cancelled: 'live.gone_cancelled',
  canceled: 'live.gone_cancelled',
  challenger_left: 'live.gone_left',
};

function gone(id, reason, d) {
  const entry = shown.get(id);
  if (!entry) return;
  if (entry.outgoing && (reason === 'declined' || reason === 'decline' || reason === 'expired')) {
    const to = nameOf(d.to) || nameOf(entry.c && entry.c.to) || t('live.they');
    const text = t(GONE[reason], { name: to });
    const close = h('button', { type: 'button', class: 'challenge-close', onclick: () => remove(id) }, t('common.ok'));
    entry.el.replaceChildren(h('p', { class: 'challenge-text' }, text), h('div', { class: 'row' }, close));
    say(text);
    return;
  }
  remove(id);
}

function remove(id) {
  const entry = shown.get(id);
  if (entry) entry.el.remove();
  shown.delete(id);
}
