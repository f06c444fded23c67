// The lobby (`/`): quick pairing (pools.js), the arenas (arena.js), the create form (rated when signed in), "Play the computer",
// the puzzle of the day (puzzle-themes.js), "My games",
// the open games to join (with their creator's name and rating, filtered by a rating range),
// the games in progress to watch, the recently finished games (polled every few seconds), and
// the count of players online (from the live channel, live.js).

import {
  request, saveSeat, hasSeat, heldSeats, h, clockLabel, outcomeText, ratingText, diffText,
  DAYS_PER_TURN, daysLabel, timeControlOf, timeLeftText, variantName,
} from './api.js';
import { profileUrl } from './account.js';
import { onLive, nameOf, sendLive } from './live.js';
import { ChatPanel, isChatError } from './chat.js';
import { chatSwitch } from './chat-controls.js';
import { t } from './i18n.js';
import { poolsPanel } from './pools.js';
import { arenasPanel } from './arena.js';
import { dailyPanel } from './puzzle-themes.js';
import { learnInvite } from './learn.js';
import { playbanBanner, playbanText } from './playban.js';

const PRESETS = [
  ['3+2', 180, 2], ['5+3', 300, 3], ['10+5', 600, 5], ['15+10', 900, 10],
];
const POLL_MS = 3000;
/** "My games" asks for the turn of each game in progress: every third poll, at most this many. */
const MY_GAMES_EVERY = 3;
const MY_GAMES_MAX = 12;
/** The server's clock limits (docs/protocol.md), checked here to say them in words. */
const MAX_BASE_MINUTES = 180;
const MAX_INCREMENT_SECS = 180;

/** The computer's levels in words (docs/engine.md: level 8 is full strength). */
export const LEVELS = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => [n, t(`level.${n}`)]);

/** The study tools: the analysis board, with the opening explorer on the same page. */
function toolsPanel() {
  return h('section', { class: 'panel lobby-tools', id: 'lobby-tools' },
    h('h2', {}, t('lobby.tools')),
    h('p', {},
      h('a', { href: '/analysis', id: 'tools-analysis' }, t('board.page_title')), ' · ',
      h('a', { href: '/analysis#analysis-explorer', id: 'tools-explorer' }, t('explorer.title'))));
}

export function lobbyPage(main, mePromise = Promise.resolve(null)) {
  let me = null;
  const error = h('p', { class: 'error', role: 'alert', id: 'create-error' });
  const clock = clockChoice('clock', '', '5+3', { correspondence: true });
  // novalidate: the form's own checks say what is wrong in words, in the alert below.
  const form = h('form', { id: 'create-form', class: 'panel create', novalidate: true },
    h('h2', {}, t('lobby.new_game')),
    clock.fieldset,
    h('fieldset', {}, h('legend', {}, t('lobby.your_colour')), h('div', { class: 'choices' },
      radio('color', 'white', t('color.white')), radio('color', 'random', t('lobby.random'), true), radio('color', 'black', t('color.black')))),
    h('fieldset', {}, h('legend', {}, t('lobby.variant')), h('div', { class: 'choices' },
      radio('variant', 'balanced', t('lobby.variant_balanced'), true),
      radio('variant', 'marseillais', t('lobby.variant_marseillais')))),
    h('details', { class: 'fen-start' }, h('summary', {}, t('lobby.fen_start')),
      h('label', { for: 'fen-input', class: 'visually-hidden' }, t('lobby.fen_label')),
      h('input', { type: 'text', id: 'fen-input', name: 'fen', placeholder: t('lobby.fen_placeholder', { fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' }), autocomplete: 'off', spellcheck: false })),
    h('p', { class: 'listed' }, h('label', { for: 'listed' },
      h('input', { type: 'checkbox', id: 'listed', name: 'listed', checked: true }),
      ` ${t('lobby.listed')}`), h('span', { class: 'hint' }, ` ${t('lobby.listed_hint')}`)),
    // Shown once the page knows a user is signed in: only accounts play rated games.
    h('p', { class: 'listed', id: 'rated-row', hidden: true }, h('label', { for: 'rated' },
      h('input', { type: 'checkbox', id: 'rated', name: 'rated' }),
      ` ${t('lobby.rated')}`), h('span', { class: 'hint' }, ` ${t('lobby.rated_hint')}`)),
    h('button', { type: 'submit', id: 'create-btn', class: 'primary' }, t('lobby.create')),
    error);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.textContent = '';
    const body = { color: form.elements.color.value, variant: form.elements.variant.value };
    // Sent only when off: listed is the server's default.
    if (!form.querySelector('#listed').checked) body.listed = false;
    const chosen = clock.read();
    if (chosen.problem) { error.textContent = chosen.problem; return; }
    body.clock = chosen.clock;
    if (me && form.querySelector('#rated').checked) {
      if (!chosen.clock) { error.textContent = t('lobby.rated_needs_clock'); return; }
      body.rated = true;
    }
    const fen = form.querySelector('#fen-input').value.trim();
    if (fen) body.fen = fen;
    await createAndOpen(body, error);
  });

  const computerForm = computerPanel();

  const openList = h('ul', { class: 'games', id: 'open-games' });
  const myList = h('ul', { class: 'games', id: 'my-games' });
  const online = h('p', { class: 'online', id: 'online-count', 'aria-live': 'polite' });
  const ratingMin = h('input', { type: 'number', id: 'rating-min', min: '0', max: '4000', step: '50', placeholder: t('lobby.any'), inputmode: 'numeric' });
  const ratingMax = h('input', { type: 'number', id: 'rating-max', min: '0', max: '4000', step: '50', placeholder: t('lobby.any'), inputmode: 'numeric' });
  const filter = h('form', { class: 'rating-filter', id: 'rating-filter', novalidate: true, onsubmit: (e) => { e.preventDefault(); refresh(); } },
    h('span', { class: 'legend' }, t('lobby.creator_rating')),
    h('label', { for: 'rating-min' }, `${t('lobby.rating_from')} `), ratingMin,
    h('label', { for: 'rating-max' }, ` ${t('lobby.rating_to')} `), ratingMax,
    h('button', { type: 'submit', id: 'rating-filter-btn' }, t('lobby.filter')));
  for (const input of [ratingMin, ratingMax]) input.addEventListener('change', () => refresh());
  const playingList = h('ul', { class: 'games', id: 'playing-games' });
  const recentList = h('ul', { class: 'games recent', id: 'recent-games' });
  const listError = h('p', { class: 'error', role: 'status' });
  // The lobby chat (room `lobby` on /ws/lobby): everyone reads and writes.
  let chatAt = null;
  const chat = new ChatPanel({ room: 'lobby', title: t('lobby.chat'), send: (room, text) => { chatAt = performance.now(); return sendLive('chat', { room, text }); } });
  main.replaceChildren(h('div', { class: 'lobby' },
    h('div', { class: 'lobby-forms' }, playbanBanner(mePromise), learnInvite(mePromise), poolsPanel(mePromise), arenasPanel(mePromise), form, computerForm, dailyPanel(), toolsPanel()),
    h('div', { class: 'lobby-side' },
      h('section', { class: 'panel' }, online,
        h('h2', {}, t('nav.mine')), myList,
        h('h2', {}, t('lobby.open_games')), filter, openList, listError,
        h('h2', {}, t('lobby.games_in_progress')), playingList,
        h('h2', {}, t('lobby.recent_games')), recentList),
      h('div', { class: 'panel' }, chatSwitch(chat.el)))));

  /** `&rating_min=..&rating_max=..` from the filter (empty or not a number: no bound). */
  function ratingRange() {
    const q = new URLSearchParams();
    for (const [key, input] of [['rating_min', ratingMin], ['rating_max', ratingMax]]) {
      const n = Number(input.value);
      if (input.value.trim() !== '' && Number.isFinite(n) && n >= 0) q.set(key, String(Math.round(n)));
    }
    const qs = q.toString();
    return qs ? `&${qs}` : '';
  }

  let polls = 0;
  async function refresh() {
    if (polls % MY_GAMES_EVERY === 0) refreshMine();
    polls += 1;
    try {
      const [open, playing, finished] = await Promise.all([
        request('GET', `/api/games?status=open&limit=30${ratingRange()}`),
        request('GET', '/api/games?status=playing&limit=30'),
        request('GET', '/api/games?status=finished&limit=10'),
      ]);
      listError.textContent = '';
      fill(openList, open.games, ratingRange() ? t('lobby.no_open_in_range') : t('lobby.no_open'), (g) => {
        const mine = hasSeat(g.id) || (!!me && creatorOf(g) && sameName(creatorOf(g).name, me.username));
        const free = g.seats && !g.seats.white ? 'white' : 'black';
        return h('button', {
          type: 'button', class: 'join', 'data-id': g.id,
          onclick: () => (mine ? location.assign(`/game/${g.id}`) : join(g.id)),
        }, mine ? t('lobby.open_yours') : t(`lobby.join_as_${free}`));
      });
      fill(playingList, playing.games.map(withTimeLeft), t('lobby.no_game_in_progress'), (g) =>
        h('a', { href: `/game/${g.id}`, class: 'button watch' }, hasSeat(g.id) || playsIn(g, me) ? t('lobby.play') : t('lobby.watch')));
      fillRecent(recentList, finished.games);
    } catch (err) {
      listError.textContent = t('lobby.list_failed', { error: err.message });
    }
  }

  async function join(id) {
    try {
      const grant = await request('POST', `/api/games/${id}/join`);
      saveSeat(grant.id, grant.token, grant.color);
      location.assign(grant.url);
    } catch (err) {
      listError.textContent = joinErrorText(err);
      refresh();
    }
  }

  /**
   * "My games": the signed-in user's games (`GET /api/users/{me}/games`) or,
   * anonymously, the games whose seats this browser holds; games in progress
   * first, "your turn" marked (the turn read from each one's public state).
   */
  async function refreshMine() {
    try {
      const games = me ? await accountGames(me.username) : await heldGames();
      fillMine(myList, games, me);
    } catch (err) {
      if (!myList.childElementCount) myList.replaceChildren(h('li', { class: 'empty' }, t('mine.load_failed', { error: err.message })));
    }
  }

  const off = onLive((msg) => {
    const d = msg.d || {};
    if (msg.t === 'chat' && d.room === 'lobby') chat.add(d);
    if (msg.t === 'chat_history' && d.room === 'lobby') chat.history(d.lines);
    if (msg.t === 'error' && isChatError(d.code) && chatAt !== null && performance.now() - chatAt < 10000) chat.showError(d.code, d.message);
    if (msg.t === 'online' && msg.d && typeof msg.d.count === 'number') {
      online.textContent = t('lobby.online', { n: msg.d.count });
    }
  });
  mePromise.then((account) => {
    me = account && account.username ? account : null;
    form.querySelector('#rated-row').hidden = !me;
    polls = 0;
    refresh();
  });
  const timer = setInterval(() => { if (!document.hidden) refresh(); }, POLL_MS);
  return () => { clearInterval(timer); off(); };
}

/**
 * A listed correspondence game in progress with its turn and time left in
 * words ("White to play, 2 days 5 h left"), coarse so that the list is
 * redrawn only when the words change.
 */
function withTimeLeft(g) {
  if (!g || typeof g.deadline_ms !== 'number' || !g.turn) return g;
  return { ...g, left: t(`lobby.left_${g.turn === 'white' ? 'white' : 'black'}`, { time: timeLeftText(g.deadline_ms - Date.now(), { coarse: true }) }) };
}

/** Whether the signed-in user holds a seat of a listed game (its summary's `players`). */
function playsIn(g, me) {
  if (!me || !g.players) return false;
  return ['white', 'black'].some((c) => sameName(nameOf(g.players[c]), me.username));
}

function sameName(a, b) {
  return !!a && !!b && String(a).toLowerCase() === String(b).toLowerCase();
}

/** A join refused, in words. */
function joinErrorText(err) {
  if (err.code === 'seat_taken') return t('lobby.seat_taken');
  if (err.code === 'not_logged_in') return t('lobby.join_needs_login');
  if (err.code === 'same_player') return t('error.same_player');
  return t('lobby.join_failed', { error: err.message });
}

/**
 * The creator of an open game as the listing names it: `{name, rating}` or
 * null for an anonymous creator. The summary carries the seats' players
 * (`players: {white, black}`, each `{name, rating?}`); the creator holds the
 * one taken seat of an open game.
 */
export function creatorOf(g) {
  const players = g.players || {};
  for (const c of ['white', 'black']) {
    const p = players[c] || g[`${c}_player`] || null;
    const name = nameOf(p);
    if (name) return { name, rating: p.rating && typeof p.rating === 'object' ? p.rating : null };
  }
  const c = g.creator || null;
  const name = nameOf(c);
  return name ? { name, rating: c.rating && typeof c.rating === 'object' ? c.rating : null } : null;
}

/** " · by alice (1512)" / " · by Anonymous". */
function creatorText(g) {
  if (g.status !== 'open' || g.computer) return null;
  const who = creatorOf(g);
  if (!who) return ` · ${t('lobby.by_word')} ${t('lobby.anonymous')}`;
  const rating = ratingText(who.rating);
  return [` · ${t('lobby.by_word')} `, h('a', { href: profileUrl(who.name), class: 'creator' }, who.name), rating ? ` (${rating})` : ''];
}

/** The signed-in user's games, newest first, as `{id, status, color, opponent, result, diff, turn}`. */
async function accountGames(name) {
  const reply = await request('GET', `/api/users/${encodeURIComponent(name)}/games?limit=20`);
  const games = (reply && reply.games) || [];
  const out = games.map((g) => ({
    id: g.id,
    status: g.status,
    color: g.color || g.colour || null,
    opponent: opponentText(g.opponent),
    result: g.result || null,
    clock: timeControlOf(g),
    deadline: typeof g.deadline_ms === 'number' ? g.deadline_ms : null,
    rated: !!g.rated,
    diff: typeof g.rating_diff === 'number' ? g.rating_diff : (g.rating_change && typeof g.rating_change.diff === 'number' ? g.rating_change.diff : null),
    turn: g.turn || null,
  }));
  await addTurns(out);
  return out;
}

function opponentText(o) {
  if (!o) return t('lobby.anonymous');
  if (typeof o === 'string') return o;
  const name = nameOf(o);
  if (name) return name;
  if (o.computer) return t('lobby.computer_level', { level: o.computer.level || o.computer });
  return t('lobby.anonymous');
}

/** The games whose seats this browser holds (at most [`MY_GAMES_MAX`]), from their public state. */
async function heldGames() {
  const held = heldSeats().slice(0, MY_GAMES_MAX);
  const states = await Promise.all(held.map(async ({ id, color }) => {
    try {
      const S = await request('GET', `/api/games/${encodeURIComponent(id)}`);
      return { S, color };
    } catch (_) { return null; }
  }));
  return states.filter(Boolean).map(({ S, color }) => {
    const other = color === 'white' ? 'black' : 'white';
    let opponent = t('lobby.anonymous');
    if (S.computer && S.computer.color === other) opponent = t('lobby.computer_level', { level: S.computer.level });
    else if (color && S.players && nameOf(S.players[other])) opponent = nameOf(S.players[other]);
    else if (color && !S.seats[other].taken) opponent = t('lobby.nobody_yet');
    return {
      id: S.id, status: S.status, color, opponent, clock: timeControlOf(S), rated: !!S.rated,
      deadline: S.correspondence && typeof S.correspondence.deadline_ms === 'number' ? S.correspondence.deadline_ms : null,
      result: S.outcome ? S.outcome.result : null, diff: null, turn: S.status === 'playing' ? S.turn : null,
    };
  });
}

/** Reads the turn of the games in progress that do not say it (bounded: the first few). */
async function addTurns(games) {
  const want = games.filter((g) => g.status === 'playing' && !g.turn).slice(0, MY_GAMES_MAX);
  await Promise.all(want.map(async (g) => {
    try {
      const S = await request('GET', `/api/games/${encodeURIComponent(g.id)}`);
      g.turn = S.turn;
    } catch (_) { /* the list still shows the game */ }
  }));
}

/** In progress first (your turn first of those), then open, then finished; stable otherwise. */
function myOrder(g) {
  if (g.status === 'playing') return g.color && g.turn === g.color ? 0 : 1;
  if (g.status === 'open') return 2;
  return 3;
}

/** A finished game of mine in words: "won 1-0", "lost 0-1", "draw", "aborted". */
function finishedWord(g) {
  if (!g.result || g.result === '*') return t('mine.aborted');
  if (g.result === '1/2-1/2') return t('mine.draw');
  if (g.color !== 'white' && g.color !== 'black') return g.result;
  const won = (g.result === '1-0') === (g.color === 'white');
  return t(won ? 'mine.won' : 'mine.lost', { result: g.result });
}

function fillMine(list, games, me) {
  // The time left in words is part of the key: the list is redrawn when the words change.
  const sorted = games.map((g) => (g.status === 'playing' && typeof g.deadline === 'number'
    ? { ...g, left: timeLeftText(g.deadline - Date.now(), { coarse: true }) } : g)).map((g, i) => [g, i]).sort((a, b) => myOrder(a[0]) - myOrder(b[0]) || a[1] - b[1]).map(([g]) => g);
  const key = JSON.stringify(sorted);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  if (!sorted.length) {
    list.replaceChildren(h('li', { class: 'empty' }, me ? t('lobby.no_game_yet') : t('lobby.games_appear_here')));
    return;
  }
  list.replaceChildren(...sorted.map((g) => {
    const yourTurn = g.status === 'playing' && g.color && g.turn === g.color;
    const state = g.status === 'playing' ? t('mine.in_progress') : g.status === 'open' ? t('mine.waiting') : finishedWord(g);
    return h('li', { 'data-id': g.id, class: yourTurn ? 'your-turn' : null },
      h('span', { class: 'game-desc' },
        yourTurn ? h('strong', { class: 'your-turn-mark' }, `${t('mine.your_turn')} · `) : null,
        t('mine.vs', { name: g.opponent }), g.color === 'white' || g.color === 'black' ? ` ${t(`mine.you_play_${g.color}`)}` : '', ` · ${clockLabel(g.clock)}`, g.rated ? ` · ${t('lobby.rated')}` : '',
        ` · ${state}`, g.left ? ` · ${t('mine.left', { time: g.left })}` : '',
        typeof g.diff === 'number' ? ` · ${diffText(g.diff)}` : ''),
      h('a', { href: `/game/${g.id}`, class: 'button' }, g.status === 'finished' ? t('mine.view') : t('lobby.play')));
  }));
}

/**
 * Whether `list` already shows these games: the lists are polled, and
 * rebuilding an unchanged list would take the keyboard focus (and a screen
 * reader's place) away from a link or button in it every few seconds.
 */
function unchanged(list, games) {
  const key = JSON.stringify((games || []).map((g) => [g, hasSeat(g.id)]));
  if (list.dataset.key === key) return true;
  list.dataset.key = key;
  return false;
}

function fill(list, games, empty, action) {
  if (unchanged(list, games)) return;
  if (!games || !games.length) {
    list.replaceChildren(h('li', { class: 'empty' }, empty));
    return;
  }
  list.replaceChildren(...games.map((g) => h('li', { 'data-id': g.id },
    h('span', { class: 'game-desc' },
      h('strong', {}, clockLabel(g.clock)), ' · ', variantName(g.variant), g.rated ? ` · ${t('lobby.rated')}` : '', computerText(g),
      creatorText(g), g.sub_moves ? ` · ${t('lobby.sub_moves', { n: g.sub_moves })}` : '', g.left ? ` · ${g.left}` : ''),
    action(g))));
}

/** Finished games: the outcome in words and links to the game, its PGN and its replay. */
function fillRecent(list, games) {
  if (unchanged(list, games)) return;
  if (!games || !games.length) {
    list.replaceChildren(h('li', { class: 'empty' }, t('lobby.no_finished')));
    return;
  }
  list.replaceChildren(...games.map((g) => {
    const outcome = outcomeText({ result: g.result, reason: g.reason, winner: winnerOf(g.result) }) || t('lobby.finished');
    return h('li', { 'data-id': g.id },
      h('span', { class: 'game-desc' },
        h('strong', {}, g.result && g.result !== '*' ? g.result : '—'), ' ',
        h('a', { href: `/game/${g.id}`, class: 'outcome' }, outcome),
        ` · ${clockLabel(g.clock)} · ${variantName(g.variant)}${computerText(g)}${g.sub_moves ? ` · ${t('lobby.sub_moves', { n: g.sub_moves })}` : ''}`),
      h('span', { class: 'links' },
        h('a', { href: `/game/${g.id}.pgn`, class: 'button', 'aria-label': t('lobby.pgn_of', { id: g.id }) }, 'PGN'),
        h('a', { href: `/replay?game=${encodeURIComponent(g.id)}`, class: 'button', 'aria-label': t('lobby.replay_of', { id: g.id }) }, t('nav.replay'))));
  }));
}

/** " · vs the computer (level 3)" for a game against the computer, else "". */
function computerText(g) {
  return g.computer ? ` · ${t('lobby.vs_computer', { level: g.computer.level })}` : '';
}

function winnerOf(result) {
  if (result === '1-0') return 'white';
  if (result === '0-1') return 'black';
  return null;
}

/**
 * The "Play the computer" panel: level, colour, time control. One click
 * creates the game (the computer holds the other seat, so it is already
 * playing) and opens it as the seat holder, like "Create game".
 */
function computerPanel() {
  const error = h('p', { class: 'error', role: 'alert', id: 'computer-error' });
  const clock = clockChoice('computer-clock', 'computer-', 'none');
  const level = h('select', { id: 'computer-level', name: 'level' },
    LEVELS.map(([n, words]) => h('option', { value: String(n), selected: n === 1 }, `${n}: ${words}`)));
  const form = h('form', { id: 'computer-form', class: 'panel create computer', novalidate: true },
    h('h2', {}, t('lobby.play_computer')),
    h('p', { class: 'field' }, h('label', { for: 'computer-level' }, `${t('lobby.level')} `), level,
      h('span', { class: 'hint', id: 'computer-level-hint' }, ` ${t('lobby.level_hint')}`)),
    h('fieldset', {}, h('legend', {}, t('lobby.your_colour')), h('div', { class: 'choices' },
      radio('computer-color', 'white', t('color.white')), radio('computer-color', 'random', t('lobby.random'), true),
      radio('computer-color', 'black', t('color.black')))),
    clock.fieldset,
    h('button', { type: 'submit', id: 'computer-btn', class: 'primary' }, t('lobby.play_computer')),
    error);
  level.setAttribute('aria-describedby', 'computer-level-hint');
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.textContent = '';
    const chosen = clock.read();
    if (chosen.problem) { error.textContent = chosen.problem; return; }
    const body = {
      color: form.elements['computer-color'].value,
      clock: chosen.clock,
      computer: { level: Number(level.value) },
    };
    await createAndOpen(body, error);
  });
  return form;
}

/** Creates a game, keeps its seat token and opens it; a refusal is said in `error`. */
async function createAndOpen(body, error) {
  try {
    const grant = await request('POST', '/api/games', body);
    saveSeat(grant.id, grant.token, grant.color);
    location.assign(grant.url || `/game/${grant.id}`);
  } catch (err) {
    error.textContent = t('lobby.create_failed', { error: createErrorText(err) });
  }
}

/**
 * The time-control fieldset (presets, custom, none; with `correspondence`,
 * also "1, 2, 3, 5, 7, 14 days per turn") of a form: radios named `name`,
 * custom inputs `#{prefix}custom-base` / `#{prefix}custom-inc`. `read()`
 * gives `{clock}` (null: untimed; `{days_per_turn}` for correspondence) or
 * `{problem}` in words.
 */
export function clockChoice(name, prefix, initial, { correspondence = false } = {}) {
  const custom = h('div', { class: 'custom-clock', hidden: true },
    h('label', {}, `${t('lobby.minutes')} `, h('input', { type: 'number', id: `${prefix}custom-base`, min: '0', max: '180', step: '1', value: '5' })),
    h('label', {}, `${t('lobby.increment')} `, h('input', { type: 'number', id: `${prefix}custom-inc`, min: '0', max: '180', step: '1', value: '3' })));
  const choices = [
    ...PRESETS.map(([label]) => radio(name, label, label, label === initial)),
    radio(name, 'custom', t('lobby.custom'), initial === 'custom'),
    radio(name, 'none', t('clock.none'), initial === 'none'),
  ];
  // Correspondence: days per turn (each turn has that long; the time does not accumulate).
  const slow = correspondence
    ? h('div', { class: 'choices correspondence', role: 'group', 'aria-labelledby': `${prefix}corr-label` },
      h('span', { class: 'legend', id: `${prefix}corr-label` }, t('lobby.correspondence_days')),
      DAYS_PER_TURN.map((n) => radio(name, `days-${n}`, daysLabel(n), initial === `days-${n}`)))
    : null;
  const fieldset = h('fieldset', {}, h('legend', {}, t('lobby.time_control')), h('div', { class: 'choices' }, choices), slow, custom);
  const value = () => (fieldset.querySelector(`input[name="${name}"]:checked`) || { value: 'none' }).value;
  fieldset.addEventListener('change', () => { custom.hidden = value() !== 'custom'; });
  const read = () => {
    const choice = value();
    if (choice === 'custom') {
      const base = Number(custom.querySelector(`#${prefix}custom-base`).value);
      const inc = Number(custom.querySelector(`#${prefix}custom-inc`).value);
      const problem = clockProblem(base, inc);
      if (problem) return { problem };
      return { clock: { base_secs: Math.round(base * 60), increment_secs: Math.round(inc) } };
    }
    if (choice === 'none') return { clock: null };
    const days = choice.match(/^days-(\d+)$/);
    if (days) return { clock: { days_per_turn: Number(days[1]) } };
    const [, base, inc] = PRESETS.find(([l]) => l === choice);
    return { clock: { base_secs: base, increment_secs: inc } };
  };
  return { fieldset, read };
}

/** Why a custom clock cannot be used, in the form's words, or null. */
function clockProblem(minutes, increment) {
  if (!Number.isFinite(minutes) || minutes < 0 || minutes > MAX_BASE_MINUTES) {
    return t('lobby.base_range', { max: MAX_BASE_MINUTES });
  }
  if (!Number.isFinite(increment) || increment < 0 || increment > MAX_INCREMENT_SECS) {
    return t('lobby.increment_range', { max: MAX_INCREMENT_SECS });
  }
  if (Math.round(minutes * 60) === 0 && Math.round(increment) === 0) {
    return t('lobby.clock_zero');
  }
  return null;
}

/** A refused creation in words: the server names fields (`clock: base_secs ...`, `fen: ...`). */
function createErrorText(err) {
  // The server's own words name the field; the page says it in its language.
  const message = String(err.serverMessage || err.message || '');
  if (err.code === 'not_logged_in') return t('lobby.create_needs_login');
  if (err.code === 'rated_needs_clock') return t('lobby.create_needs_clock');
  if (err.code === 'playban' && err.until_ms) return playbanText(err);
  if (err.code === 'bad_request') {
    // The FEN's fault is the server's English words (they quote the FEN itself).
    if (message.startsWith('fen:')) return t('lobby.bad_fen', { why: message.slice(4).trim() });
    if (message.startsWith('clock:') && message.includes('days')) return t('lobby.bad_days');
    if (message.startsWith('clock:')) {
      return t('lobby.bad_clock', { base: MAX_BASE_MINUTES, inc: MAX_INCREMENT_SECS });
    }
    if (message.startsWith('computer')) return t('lobby.bad_level');
    return t('lobby.bad_request');
  }
  return err.message;
}

let radioSeq = 0;
export function radio(name, value, label, checked = false) {
  radioSeq += 1;
  const id = `r-${name}-${radioSeq}`;
  return h('label', { class: 'choice', for: id },
    h('input', { type: 'radio', name, value, id, checked }), h('span', {}, label));
}
