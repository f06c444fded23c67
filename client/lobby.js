// The lobby (`/`): the create form (rated when signed in), "Play the computer", "My games",
// the open games to join (with their creator's name and rating, filtered by a rating range),
// the games in progress to watch, the recently finished games (polled every few seconds), and
// the count of players online (from the live channel, live.js).

import {
  request, saveSeat, hasSeat, heldSeats, h, clockLabel, cap, outcomeText, ratingText, diffText,
  DAYS_PER_TURN, daysLabel, timeControlOf, timeLeftText,
} from './api.js';
import { profileUrl } from './account.js';
import { onLive, nameOf, sendLive } from './live.js';
import { ChatPanel, isChatError } from './chat.js';

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
export const LEVELS = [
  [1, 'beginner'], [2, 'novice'], [3, 'casual'], [4, 'intermediate'],
  [5, 'club player'], [6, 'strong'], [7, 'expert'], [8, 'full strength'],
];

export function lobbyPage(main, mePromise = Promise.resolve(null)) {
  let me = null;
  const error = h('p', { class: 'error', role: 'alert', id: 'create-error' });
  const clock = clockChoice('clock', '', '5+3', { correspondence: true });
  // novalidate: the form's own checks say what is wrong in words, in the alert below.
  const form = h('form', { id: 'create-form', class: 'panel create', novalidate: true },
    h('h2', {}, 'New game'),
    clock.fieldset,
    h('fieldset', {}, h('legend', {}, 'Your colour'), h('div', { class: 'choices' },
      radio('color', 'white', 'White'), radio('color', 'random', 'Random', true), radio('color', 'black', 'Black'))),
    h('fieldset', {}, h('legend', {}, 'Variant'), h('div', { class: 'choices' },
      radio('variant', 'balanced', 'Balanced (White opens with one move)', true),
      radio('variant', 'marseillais', 'Marseillais (two moves from the start)'))),
    h('details', { class: 'fen-start' }, h('summary', {}, 'Start from a position (FEN)'),
      h('label', { for: 'fen-input', class: 'visually-hidden' }, 'Starting position (extended FEN)'),
      h('input', { type: 'text', id: 'fen-input', name: 'fen', placeholder: 'extended FEN, e.g. rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', autocomplete: 'off', spellcheck: false })),
    h('p', { class: 'listed' }, h('label', { for: 'listed' },
      h('input', { type: 'checkbox', id: 'listed', name: 'listed', checked: true }),
      ' Listed in the lobby'), h('span', { class: 'hint' }, ' (untick to play only with whoever has the link)')),
    // Shown once the page knows a user is signed in: only accounts play rated games.
    h('p', { class: 'listed', id: 'rated-row', hidden: true }, h('label', { for: 'rated' },
      h('input', { type: 'checkbox', id: 'rated', name: 'rated' }),
      ' Rated'), h('span', { class: 'hint' }, ' (needs a clock; only signed-in players can join)')),
    h('button', { type: 'submit', id: 'create-btn', class: 'primary' }, 'Create game'),
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
      if (!chosen.clock) { error.textContent = 'A rated game needs a clock: choose a time control.'; return; }
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
  const ratingMin = h('input', { type: 'number', id: 'rating-min', min: '0', max: '4000', step: '50', placeholder: 'any', inputmode: 'numeric' });
  const ratingMax = h('input', { type: 'number', id: 'rating-max', min: '0', max: '4000', step: '50', placeholder: 'any', inputmode: 'numeric' });
  const filter = h('form', { class: 'rating-filter', id: 'rating-filter', novalidate: true, onsubmit: (e) => { e.preventDefault(); refresh(); } },
    h('span', { class: 'legend' }, 'Creator\'s rating'),
    h('label', { for: 'rating-min' }, 'from '), ratingMin,
    h('label', { for: 'rating-max' }, ' to '), ratingMax,
    h('button', { type: 'submit', id: 'rating-filter-btn' }, 'Filter'));
  for (const input of [ratingMin, ratingMax]) input.addEventListener('change', () => refresh());
  const playingList = h('ul', { class: 'games', id: 'playing-games' });
  const recentList = h('ul', { class: 'games recent', id: 'recent-games' });
  const listError = h('p', { class: 'error', role: 'status' });
  // The lobby chat (room `lobby` on /ws/lobby): everyone reads and writes.
  let chatAt = null;
  const chat = new ChatPanel({ room: 'lobby', title: 'Lobby chat', send: (room, text) => { chatAt = performance.now(); return sendLive('chat', { room, text }); } });
  main.replaceChildren(h('div', { class: 'lobby' },
    h('div', { class: 'lobby-forms' }, form, computerForm),
    h('div', { class: 'lobby-side' },
      h('section', { class: 'panel' }, online,
        h('h2', {}, 'My games'), myList,
        h('h2', {}, 'Open games'), filter, openList, listError,
        h('h2', {}, 'Games in progress'), playingList,
        h('h2', {}, 'Recent games'), recentList),
      h('div', { class: 'panel' }, chat.el))));

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
      fill(openList, open.games, ratingRange() ? 'No open game in this rating range.' : 'No open game. Create one!', (g) => {
        const mine = hasSeat(g.id) || (!!me && creatorOf(g) && sameName(creatorOf(g).name, me.username));
        const free = g.seats && !g.seats.white ? 'white' : 'black';
        return h('button', {
          type: 'button', class: 'join', 'data-id': g.id,
          onclick: () => (mine ? location.assign(`/game/${g.id}`) : join(g.id)),
        }, mine ? 'Open (yours)' : `Join as ${free}`);
      });
      fill(playingList, playing.games.map(withTimeLeft), 'No game in progress.', (g) =>
        h('a', { href: `/game/${g.id}`, class: 'button watch' }, hasSeat(g.id) || playsIn(g, me) ? 'Play' : 'Watch'));
      fillRecent(recentList, finished.games);
    } catch (err) {
      listError.textContent = `The game list could not be loaded: ${err.message}`;
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
      if (!myList.childElementCount) myList.replaceChildren(h('li', { class: 'empty' }, `Your games could not be loaded: ${err.message}`));
    }
  }

  const off = onLive((msg) => {
    const d = msg.d || {};
    if (msg.t === 'chat' && d.room === 'lobby') chat.add(d);
    if (msg.t === 'chat_history' && d.room === 'lobby') chat.history(d.lines);
    if (msg.t === 'error' && isChatError(d.code) && chatAt !== null && performance.now() - chatAt < 10000) chat.showError(d.code);
    if (msg.t === 'online' && msg.d && typeof msg.d.count === 'number') {
      online.textContent = `${msg.d.count} ${msg.d.count === 1 ? 'player' : 'players'} online`;
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
  return { ...g, left: `${cap(g.turn)} to play, ${timeLeftText(g.deadline_ms - Date.now(), { coarse: true })} left` };
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
  if (err.code === 'seat_taken') return 'Someone else took that seat first.';
  if (err.code === 'not_logged_in') return 'This game is rated: sign up or log in to join it.';
  if (err.code === 'same_player') return 'You cannot play yourself in a rated game.';
  return `Could not join: ${err.message}`;
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
  if (!who) return ' · by Anonymous';
  const rating = ratingText(who.rating);
  return [' · by ', h('a', { href: profileUrl(who.name), class: 'creator' }, who.name), rating ? ` (${rating})` : ''];
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
  if (!o) return 'Anonymous';
  if (typeof o === 'string') return o;
  const name = nameOf(o);
  if (name) return name;
  if (o.computer) return `Computer (level ${o.computer.level || o.computer})`;
  return 'Anonymous';
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
    let opponent = 'Anonymous';
    if (S.computer && S.computer.color === other) opponent = `Computer (level ${S.computer.level})`;
    else if (color && S.players && nameOf(S.players[other])) opponent = nameOf(S.players[other]);
    else if (color && !S.seats[other].taken) opponent = 'nobody yet';
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
  if (!g.result || g.result === '*') return 'aborted';
  if (g.result === '1/2-1/2') return 'draw';
  if (g.color !== 'white' && g.color !== 'black') return g.result;
  const won = (g.result === '1-0') === (g.color === 'white');
  return `${won ? 'won' : 'lost'} ${g.result}`;
}

function fillMine(list, games, me) {
  // The time left in words is part of the key: the list is redrawn when the words change.
  const sorted = games.map((g) => (g.status === 'playing' && typeof g.deadline === 'number'
    ? { ...g, left: timeLeftText(g.deadline - Date.now(), { coarse: true }) } : g)).map((g, i) => [g, i]).sort((a, b) => myOrder(a[0]) - myOrder(b[0]) || a[1] - b[1]).map(([g]) => g);
  const key = JSON.stringify(sorted);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  if (!sorted.length) {
    list.replaceChildren(h('li', { class: 'empty' }, me ? 'No game yet: create one or accept a challenge.' : 'The games you play in this browser appear here.'));
    return;
  }
  list.replaceChildren(...sorted.map((g) => {
    const yourTurn = g.status === 'playing' && g.color && g.turn === g.color;
    const state = g.status === 'playing' ? 'in progress' : g.status === 'open' ? 'waiting for an opponent' : finishedWord(g);
    return h('li', { 'data-id': g.id, class: yourTurn ? 'your-turn' : null },
      h('span', { class: 'game-desc' },
        yourTurn ? h('strong', { class: 'your-turn-mark' }, 'Your turn · ') : null,
        `vs ${g.opponent}`, g.color ? ` (you play ${g.color})` : '', ` · ${clockLabel(g.clock)}`, g.rated ? ' · Rated' : '',
        ` · ${state}`, g.left ? ` · ${g.left} left` : '',
        typeof g.diff === 'number' ? ` · ${diffText(g.diff)}` : ''),
      h('a', { href: `/game/${g.id}`, class: 'button' }, g.status === 'finished' ? 'View' : 'Play'));
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
      h('strong', {}, clockLabel(g.clock)), ' · ', cap(g.variant), g.rated ? ' · Rated' : '', computerText(g),
      creatorText(g), g.sub_moves ? ` · ${g.sub_moves} sub-moves` : '', g.left ? ` · ${g.left}` : ''),
    action(g))));
}

/** Finished games: the outcome in words and links to the game, its PGN and its replay. */
function fillRecent(list, games) {
  if (unchanged(list, games)) return;
  if (!games || !games.length) {
    list.replaceChildren(h('li', { class: 'empty' }, 'No finished game yet.'));
    return;
  }
  list.replaceChildren(...games.map((g) => {
    const outcome = outcomeText({ result: g.result, reason: g.reason, winner: winnerOf(g.result) }) || 'Finished';
    return h('li', { 'data-id': g.id },
      h('span', { class: 'game-desc' },
        h('strong', {}, g.result && g.result !== '*' ? g.result : '—'), ' ',
        h('a', { href: `/game/${g.id}`, class: 'outcome' }, outcome),
        ` · ${clockLabel(g.clock)} · ${cap(g.variant)}${computerText(g)}${g.sub_moves ? ` · ${g.sub_moves} sub-moves` : ''}`),
      h('span', { class: 'links' },
        h('a', { href: `/game/${g.id}.pgn`, class: 'button', 'aria-label': `PGN of game ${g.id}` }, 'PGN'),
        h('a', { href: `/replay?game=${encodeURIComponent(g.id)}`, class: 'button', 'aria-label': `Replay game ${g.id}` }, 'Replay')));
  }));
}

/** " · vs the computer (level 3)" for a game against the computer, else "". */
function computerText(g) {
  return g.computer ? ` · vs the computer (level ${g.computer.level})` : '';
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
    h('h2', {}, 'Play the computer'),
    h('p', { class: 'field' }, h('label', { for: 'computer-level' }, 'Level '), level,
      h('span', { class: 'hint', id: 'computer-level-hint' }, ' 1 is for beginners, 8 is the engine at full strength')),
    h('fieldset', {}, h('legend', {}, 'Your colour'), h('div', { class: 'choices' },
      radio('computer-color', 'white', 'White'), radio('computer-color', 'random', 'Random', true),
      radio('computer-color', 'black', 'Black'))),
    clock.fieldset,
    h('button', { type: 'submit', id: 'computer-btn', class: 'primary' }, 'Play the computer'),
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
    error.textContent = `Could not create the game: ${createErrorText(err)}`;
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
    h('label', {}, 'Minutes ', h('input', { type: 'number', id: `${prefix}custom-base`, min: '0', max: '180', step: '1', value: '5' })),
    h('label', {}, 'Increment (s) ', h('input', { type: 'number', id: `${prefix}custom-inc`, min: '0', max: '180', step: '1', value: '3' })));
  const choices = [
    ...PRESETS.map(([label]) => radio(name, label, label, label === initial)),
    radio(name, 'custom', 'Custom', initial === 'custom'),
    radio(name, 'none', 'No clock', initial === 'none'),
  ];
  // Correspondence: days per turn (each turn has that long; the time does not accumulate).
  const slow = correspondence
    ? h('div', { class: 'choices correspondence', role: 'group', 'aria-labelledby': `${prefix}corr-label` },
      h('span', { class: 'legend', id: `${prefix}corr-label` }, 'Correspondence (days per turn):'),
      DAYS_PER_TURN.map((n) => radio(name, `days-${n}`, daysLabel(n), initial === `days-${n}`)))
    : null;
  const fieldset = h('fieldset', {}, h('legend', {}, 'Time control'), h('div', { class: 'choices' }, choices), slow, custom);
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
    return `Base time must be between 0 and ${MAX_BASE_MINUTES} minutes.`;
  }
  if (!Number.isFinite(increment) || increment < 0 || increment > MAX_INCREMENT_SECS) {
    return `Increment must be between 0 and ${MAX_INCREMENT_SECS} seconds.`;
  }
  if (Math.round(minutes * 60) === 0 && Math.round(increment) === 0) {
    return 'Base time and increment cannot both be zero: choose "No clock" for an untimed game.';
  }
  return null;
}

/** A refused creation in words: the server names fields (`clock: base_secs ...`, `fen: ...`). */
function createErrorText(err) {
  const message = String(err.message || '');
  if (err.code === 'not_logged_in') return 'only signed-in players create rated games: log in first.';
  if (err.code === 'rated_needs_clock') return 'a rated game needs a clock: choose a time control.';
  if (err.code === 'bad_request') {
    if (message.startsWith('fen:')) return `the starting position (FEN) cannot be used: ${message.slice(4).trim()}.`;
    if (message.startsWith('clock:') && message.includes('days')) {
      return 'a correspondence game has 1, 2, 3, 5, 7 or 14 days per turn.';
    }
    if (message.startsWith('clock:')) {
      return `the clock is out of range (base time at most ${MAX_BASE_MINUTES} minutes, increment at most ${MAX_INCREMENT_SECS} seconds, not both zero).`;
    }
    if (message.startsWith('computer')) return 'the computer\'s level must be a whole number from 1 to 8.';
    return 'the server did not understand the request.';
  }
  return message;
}

let radioSeq = 0;
export function radio(name, value, label, checked = false) {
  radioSeq += 1;
  const id = `r-${name}-${radioSeq}`;
  return h('label', { class: 'choice', for: id },
    h('input', { type: 'radio', name, value, id, checked }), h('span', {}, label));
}
