// "Your turn" on every page: the count in the page title ("(1) Marseillais
// chess") and the opt-in browser notifications.
//
// The count is the set of games where it is the signed-in account's turn,
// pushed over /ws/lobby as `your_turn` (on connect and whenever it changes),
// joined on a game page with that game's own turn as the page sees it (the
// live game is the fresher word about itself, and it counts for an
// anonymous seat too).
//
// Notifications are asked for only on a click (the header's "Turn alerts"
// button: `Notification.requestPermission()` needs a user action). A
// correspondence game that becomes your turn while any tab of the site is
// open shows one notification: every tab gets the push, so the tabs agree
// through localStorage under a Web Lock (`navigator.locks`, exclusive across
// the tabs of an origin): the first to take the lock records the games it
// notified, the others see them recorded and stay quiet. The notification's
// `tag` (one per game) makes the browser replace rather than stack one that
// slipped through.

import { h, request, clockLabel } from './api.js';
import { onLive } from './live.js';
import { t } from './i18n.js';

const PREF = 'marseillais.notify';
const KNOWN = 'marseillais.yourturn.known';
const NOTIFIED = 'marseillais.yourturn.notified';
const LOCK = 'marseillais-your-turn';
/** A game notified this recently (by any tab) is not notified again. */
const QUIET_MS = 60000;

let base = document.title;
let pushed = new Set();
let own = null; // {id, yours}: the game this page shows
let baselined = false;

/** The page's own title, to which the count is prefixed. */
export function setTitle(text) {
  base = text;
  apply();
}

/** A game page says whether it is your turn in the game it shows. */
export function setOwnTurn(id, yours) {
  const was = own && own.yours;
  own = { id, yours: !!yours };
  apply();
  return !was && !!yours;
}

/** The games where it is your turn, as this page knows them. */
export function yourTurnGames() {
  const ids = new Set(pushed);
  if (own) {
    if (own.yours) ids.add(own.id);
    else ids.delete(own.id);
  }
  return ids;
}

function apply() {
  const n = yourTurnGames().size;
  const text = n ? `(${n}) ${base}` : base;
  if (document.title !== text) document.title = text;
}

/** Starts listening to the live channel's `your_turn` (once per page). */
export function startNotify() {
  onLive((msg) => {
    if (msg.t !== 'your_turn' || !msg.d || !Array.isArray(msg.d.games)) return;
    const ids = msg.d.games.filter((id) => typeof id === 'string');
    const first = !baselined;
    baselined = true;
    pushed = new Set(ids);
    apply();
    onPush(ids, first);
  });
}

function readJson(key, fallback) {
  try {
    const v = JSON.parse(localStorage.getItem(key) || 'null');
    return v === null ? fallback : v;
  } catch (_) { return fallback; }
}

function writeJson(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (_) { /* private mode */ }
}

/** Runs `fn` alone among the tabs of this site (Web Locks; without them, as is). */
function exclusive(fn) {
  if (navigator.locks && navigator.locks.request) return navigator.locks.request(LOCK, fn);
  return fn();
}

/** Whether notifications are on: allowed by the browser and chosen here. */
export function alertsOn() {
  return typeof Notification !== 'undefined' && Notification.permission === 'granted' && readJson(PREF, 'off') === 'on';
}

/**
 * A push: the games that became your turn are those not in the set the tabs
 * last recorded. A page's first push only records (the page was not open
 * when those turns began); another tab then records the same set and finds
 * nothing new.
 */
function onPush(ids, first) {
  return exclusive(async () => {
    const known = new Set(readJson(KNOWN, []));
    writeJson(KNOWN, ids);
    if (first || !alertsOn()) return;
    const fresh = ids.filter((id) => !known.has(id));
    if (!fresh.length) return;
    let games = [];
    try {
      const reply = await request('GET', '/api/account/games');
      games = (reply && reply.games) || [];
    } catch (_) { return; }
    for (const g of games) {
      const slow = g.clock && typeof g.clock.days_per_turn === 'number';
      if (slow && fresh.includes(g.id)) show(g.id, g.opponent, g.clock);
    }
  });
}

/**
 * A game page: its correspondence game just became your turn. Notified
 * only while the page is not in view, and once over all tabs.
 */
export function turnArrived(id, opponent, clock) {
  if (!alertsOn() || document.visibilityState === 'visible') return;
  exclusive(async () => { show(id, opponent, clock); });
}

/** Shows one notification for a game, unless a tab showed one for it just now. */
function show(id, opponent, clock) {
  const notified = readJson(NOTIFIED, {});
  const now = Date.now();
  if (typeof notified[id] === 'number' && now - notified[id] < QUIET_MS) return;
  notified[id] = now;
  for (const [k, at] of Object.entries(notified)) if (now - at > QUIET_MS) delete notified[k];
  writeJson(NOTIFIED, notified);
  const who = opponent && typeof opponent === 'object' ? opponent.name || opponent.username : opponent;
  try {
    const n = new Notification(t('mine.your_turn'), {
      body: `${who ? `${t('mine.vs', { name: who })} · ` : ''}${t('notify.body', { clock: clockLabel(clock), id })}`,
      tag: `turn-${id}`,
    });
    n.onclick = () => { window.focus(); location.assign(`/game/${id}`); n.close(); };
  } catch (_) { /* not allowed here */ }
}

/**
 * The header's "Turn alerts" toggle: asks the browser's permission on the
 * first click (never before), then switches the alerts on and off. Null
 * when the browser has no Notification API.
 */
export function alertsButton() {
  if (typeof Notification === 'undefined') return null;
  const button = h('button', { type: 'button', id: 'btn-alerts', class: 'header-btn' });
  const render = () => {
    const denied = Notification.permission === 'denied';
    button.disabled = denied;
    button.textContent = denied ? t('notify.blocked') : t('notify.alerts');
    button.title = denied
      ? t('notify.blocked_title')
      : t('notify.alerts_title');
    button.setAttribute('aria-pressed', alertsOn() ? 'true' : 'false');
  };
  button.addEventListener('click', async () => {
    if (alertsOn()) { writeJson(PREF, 'off'); render(); return; }
    let permission = Notification.permission;
    if (permission === 'default') {
      try { permission = await Notification.requestPermission(); } catch (_) { permission = 'denied'; }
    }
    if (permission === 'granted') writeJson(PREF, 'on');
    render();
  });
  render();
  // The permission may change in the browser's site settings meanwhile: read again on coming back.
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') render(); });
  return button;
}
