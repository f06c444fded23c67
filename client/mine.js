// "My games" (`/games/mine`): the unfinished games of the signed-in account
// (`GET /api/account/games`: your turn first, then by deadline) and those
// whose seats this browser holds (anonymous games: their seat tokens are in
// localStorage; each one's public state says its turn), with "Your turn" and
// a correspondence game's deadline. Redrawn when the live channel pushes
// `your_turn`, and every half minute for the time left.

import { request, heldSeats, h, clockLabel, cap, timeControlOf, timeLeftText, deadlineText } from './api.js';
import { onLive, nameOf } from './live.js';
import { t } from './i18n.js';

const REFRESH_MS = 30000;
/** Anonymous seats asked for (one request each). */
const HELD_MAX = 20;

export function minePage(main, mePromise = Promise.resolve(null)) {
  const list = h('ul', { class: 'games mine', id: 'mine-games' });
  const error = h('p', { class: 'error', id: 'mine-error', role: 'status' });
  const intro = h('p', { class: 'hint', id: 'mine-intro' });
  main.replaceChildren(h('section', { class: 'panel mine-page' }, h('h2', {}, t('nav.mine')), intro, list, error));
  let me = null;
  let busy = false;

  async function refresh() {
    if (busy) return;
    busy = true;
    try {
      const [account, held] = await Promise.all([me ? accountGames() : Promise.resolve([]), heldGames()]);
      const ids = new Set(account.map((g) => g.id));
      const games = [...account, ...held.filter((g) => !ids.has(g.id))];
      fill(list, sortGames(games));
      error.textContent = '';
    } catch (err) {
      error.textContent = t('mine.load_failed', { error: err.message });
    } finally {
      busy = false;
    }
  }

  mePromise.then((account) => {
    me = account && account.username ? account : null;
    intro.textContent = me
      ? t('mine.intro_account', { name: me.username })
      : t('mine.intro_browser');
    refresh();
  });
  onLive((msg) => { if (msg.t === 'your_turn') refresh(); });
  setInterval(() => { if (!document.hidden) refresh(); }, REFRESH_MS);
}

/** The account's unfinished games, as the server orders them. */
async function accountGames() {
  const reply = await request('GET', '/api/account/games');
  return ((reply && reply.games) || []).map((g) => ({
    id: g.id,
    color: g.color || null,
    opponent: opponentText(g.opponent, g.status === 'open' ? t('lobby.nobody_yet') : t('lobby.anonymous')),
    clock: timeControlOf(g),
    turn: g.status === 'open' ? null : g.turn || null,
    yourTurn: !!g.your_turn,
    deadline: typeof g.deadline_ms === 'number' ? g.deadline_ms : null,
    updated: typeof g.updated_ms === 'number' ? g.updated_ms : 0,
  }));
}

function opponentText(o, fallback) {
  if (!o) return fallback;
  if (o.computer) return t('lobby.computer_level', { level: o.computer.level || o.computer });
  return nameOf(o) || fallback;
}

/** The unfinished games whose seats this browser holds, from their public state. */
async function heldGames() {
  const held = heldSeats().slice(0, HELD_MAX);
  const out = await Promise.all(held.map(async ({ id, color }) => {
    let S;
    try { S = await request('GET', `/api/games/${encodeURIComponent(id)}`); } catch (_) { return null; }
    if (!S || S.status === 'finished') return null;
    const other = color === 'white' ? 'black' : 'white';
    let opponent = t('lobby.anonymous');
    if (S.computer && S.computer.color === other) opponent = t('lobby.computer_level', { level: S.computer.level });
    else if (color && S.players && nameOf(S.players[other])) opponent = nameOf(S.players[other]);
    else if (color && S.seats && S.seats[other] && !S.seats[other].taken) opponent = t('lobby.nobody_yet');
    const turn = S.status === 'playing' ? S.turn : null;
    const c = S.correspondence;
    return {
      id: S.id || id,
      color: color || null,
      opponent,
      clock: timeControlOf(S),
      turn,
      yourTurn: !!color && turn === color,
      deadline: c && typeof c.deadline_ms === 'number' ? c.deadline_ms : null,
      updated: 0,
    };
  }));
  return out.filter(Boolean);
}

/** Your turn first; then the nearest deadline; then the most recently changed. */
export function sortGames(games) {
  const far = Number.MAX_SAFE_INTEGER;
  return games.map((g, i) => [g, i]).sort(([a, i], [b, j]) => (
    (b.yourTurn - a.yourTurn)
    || ((a.deadline ?? far) - (b.deadline ?? far))
    || (b.updated - a.updated)
    || (i - j))).map(([g]) => g);
}

function fill(list, games) {
  const now = Date.now();
  const rows = games.map((g) => ({ ...g, left: typeof g.deadline === 'number' ? timeLeftText(g.deadline - now, { coarse: true }) : null }));
  // Redrawn only when the words change: a redraw takes the keyboard focus away from a link.
  const key = JSON.stringify(rows);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  if (!rows.length) {
    list.replaceChildren(h('li', { class: 'empty' }, t('mine.none_before'), h('a', { href: '/' }, t('mine.none_link')), t('mine.none_after')));
    return;
  }
  list.replaceChildren(...rows.map((g) => {
    const state = !g.turn ? t('mine.waiting') : g.yourTurn ? null : t(g.turn === 'white' ? 'mine.white_to_play' : 'mine.black_to_play');
    return h('li', { 'data-id': g.id, class: g.yourTurn ? 'your-turn' : null },
      h('span', { class: 'game-desc' },
        g.yourTurn ? h('strong', { class: 'your-turn-mark' }, t('mine.your_turn')) : null,
        g.yourTurn ? ' · ' : '',
        t('mine.vs', { name: g.opponent }), g.color === 'white' || g.color === 'black' ? ` ${t(`mine.you_play_${g.color}`)}` : '', ` · ${clockLabel(g.clock)}`,
        state ? ` · ${state}` : '',
        g.left !== null && g.turn
          ? h('span', { class: 'deadline', title: deadlineText(g.deadline) }, ` · ${t('mine.left_until', { time: g.left, until: deadlineText(g.deadline) })}`)
          : null),
      h('a', { href: `/game/${g.id}`, class: 'button' }, g.yourTurn ? t('lobby.play') : t('mine.open')));
  }));
}
