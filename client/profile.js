// The profile page (`/@/{name}`): the player's ratings per speed (with
// deviation and games), a rating history graph (inline SVG, no library),
// the games list (newest first, paginated) linking to each game, the arenas
// the player joined ("Tournaments"), the puzzle dashboard (rating, solved and
// failed, history, per theme), and, for a signed-in visitor who is
// someone else, "Challenge" (clock, colour, rated).

import { request, h, clockLabel, colorName, ratingText, diffText, SPEEDS } from './api.js';
import { t, language, number } from './i18n.js';
import { clockChoice, radio } from './lobby.js';
import { setTitle } from './notify.js';
import { trackOutgoing, nameOf } from './live.js';
import { fillArenas } from './arena.js';
import { themeName, themeLink } from './puzzle-themes.js';
import { blockButton } from './blocks.js';
import { reportBox } from './report.js';

const PAGE = 20;

export async function profilePage(main, name, mePromise = Promise.resolve(null)) {
  setTitle(t('profile.title', { name }));
  const status = h('p', { class: 'status', id: 'profile-status', role: 'status' }, t('page.loading'));
  main.replaceChildren(status);
  let user;
  try {
    user = await request('GET', `/api/users/${encodeURIComponent(name)}`);
  } catch (err) {
    status.textContent = err.status === 404 || err.code === 'unknown_user' || err.code === 'bad_username'
      ? t('profile.no_such_player', { name })
      : t('profile.load_failed', { error: err.message });
    return;
  }
  const me = await mePromise;
  const username = user.username || name;
  setTitle(t('profile.title', { name: username }));
  const ratings = user.ratings || {};

  const header = h('div', { class: 'profile-head' },
    h('h2', { id: 'profile-name' }, username),
    typeof user.created_ms === 'number' ? h('p', { class: 'summary' }, t('profile.since', { date: new Date(user.created_ms).toLocaleDateString(language()) })) : null);
  const self = me && me.username && me.username.toLowerCase() === username.toLowerCase();
  const challengeBox = h('div', { class: 'challenge-box', id: 'challenge-box' });
  if (me && me.username && !self) {
    challengeBox.append(h('button', { type: 'button', id: 'btn-challenge', class: 'primary', onclick: () => openChallenge(challengeBox, username) }, t('profile.challenge', { name: username })));
  }
  const blockBox = me && me.username && !self ? blockButton(username, user.blocked === true) : null;
  const report = me && me.username && !self ? reportBox(username) : null;
  const marked = user.marked ? h('p', { class: 'marked', id: 'profile-marked' }, t(`mod.marked_${user.marked}`)) : null;
  const graph = h('div', { class: 'rating-graph', id: 'rating-graph' });
  const games = h('div', { class: 'profile-games', id: 'profile-games' });
  const arenas = h('ul', { class: 'games arenas', id: 'profile-arenas' });
  const puzzles = h('div', { class: 'puzzle-dashboard', id: 'puzzle-dashboard' }, h('p', { class: 'summary' }, t('page.loading')));
  main.replaceChildren(h('div', { class: 'profile' },
    h('section', { class: 'panel' }, header, marked, challengeBox, blockBox, report, ratingTable(ratings)),
    h('section', { class: 'panel' }, h('h2', {}, t('profile.rating_history')), graph),
    h('section', { class: 'panel' }, h('h2', {}, t('puzzle.dashboard')), puzzles),
    h('section', { class: 'panel' }, h('h2', {}, t('profile.games')), games),
    h('section', { class: 'panel' }, h('h2', {}, t('profile.arenas')), arenas)));
  historyGraph(graph, username, ratings);
  gamesList(games, username, 0);
  arenasList(arenas, username);
  puzzleDashboard(puzzles, username);
}

/**
 * The puzzle dashboard (`GET /api/users/{name}/puzzles`): the puzzle rating, puzzles solved
 * and failed, the rating's history as a graph, and per theme solved and failed.
 */
async function puzzleDashboard(box, name) {
  let reply;
  try {
    reply = await request('GET', `/api/users/${encodeURIComponent(name)}/puzzles`);
  } catch (err) {
    box.replaceChildren(h('p', { class: 'error' }, t('puzzle.dashboard_failed', { error: err.message })));
    return;
  }
  const solved = Number(reply.solved) || 0;
  const failed = Number(reply.failed) || 0;
  if (!reply.rating && !solved && !failed) {
    box.replaceChildren(h('p', { class: 'summary', id: 'puzzle-summary' }, t('puzzle.none_played'), ' ',
      h('a', { href: '/puzzles' }, t('puzzle.start_training'))));
    return;
  }
  const summary = h('p', { class: 'puzzle-summary', id: 'puzzle-summary' },
    reply.rating ? h('strong', { id: 'puzzle-profile-rating' }, t('puzzle.profile_rating', { rating: ratingText(reply.rating) })) : null,
    reply.rating ? ' · ' : null,
    h('span', { id: 'puzzle-solved' }, t('puzzle.solved_n', { n: solved })), ' · ',
    h('span', { id: 'puzzle-failed' }, t('puzzle.failed_n', { n: failed })));
  const points = (reply.history || []).map((p) => ({ at: Number(p.at_ms), rating: Number(p.rating && typeof p.rating === 'object' ? p.rating.rating : p.rating) }))
    .filter((p) => Number.isFinite(p.at) && Number.isFinite(p.rating));
  const graph = svgGraph(points, null, {
    id: 'puzzle-history',
    empty: t('puzzle.no_rated_yet'),
    describe: (numbers) => t('puzzle.graph_desc', numbers),
  });
  const themes = (reply.themes || []).filter((line) => line && typeof line.key === 'string')
    .sort((a, b) => (b.solved + b.failed) - (a.solved + a.failed) || themeName(a.key).localeCompare(themeName(b.key)));
  const table = themes.length ? h('table', { class: 'ratings puzzle-theme-table', id: 'puzzle-theme-table' },
    h('caption', { class: 'visually-hidden' }, t('puzzle.by_theme')),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('puzzle.col_theme')), h('th', { scope: 'col' }, t('puzzle.col_solved')),
      h('th', { scope: 'col' }, t('puzzle.col_failed')), h('th', { scope: 'col' }, t('puzzle.col_success')))),
    h('tbody', {}, themes.map((line) => {
      const tries = (Number(line.solved) || 0) + (Number(line.failed) || 0);
      return h('tr', { 'data-theme': line.key },
        h('th', { scope: 'row' }, themeLink(line.key)),
        h('td', { class: 'solved' }, String(Number(line.solved) || 0)),
        h('td', { class: 'failed' }, String(Number(line.failed) || 0)),
        h('td', {}, tries ? number((Number(line.solved) || 0) / tries, { style: 'percent' }) : ''));
    }))) : null;
  box.replaceChildren(summary, graph, table ? h('h3', {}, t('puzzle.by_theme')) : null, table);
}

/** The arenas the player joined, the last to start first, each a link to its page. */
async function arenasList(list, name) {
  try {
    const reply = await request('GET', `/api/users/${encodeURIComponent(name)}/arenas`);
    fillArenas(list, reply.arenas, t('profile.no_arena'));
  } catch (err) {
    list.replaceChildren(h('li', { class: 'empty' }, t('profile.arenas_failed', { error: err.message })));
  }
}

/** One row per speed: rating (with "?" while provisional), deviation, games. */
function ratingTable(ratings) {
  const rows = SPEEDS.filter(([speed]) => ratings[speed]).map(([speed, label]) => {
    const r = ratings[speed];
    return h('tr', { 'data-speed': speed },
      h('th', { scope: 'row' }, label),
      h('td', { class: 'rating' }, ratingText(r)),
      h('td', {}, typeof r.deviation === 'number' ? `±${Math.round(r.deviation)}` : ''),
      h('td', {}, typeof r.games === 'number' ? String(r.games) : ''));
  });
  if (!rows.length) return h('p', { class: 'summary', id: 'ratings' }, t('profile.no_rated_start'));
  return h('table', { class: 'ratings', id: 'ratings' },
    h('caption', { class: 'visually-hidden' }, t('profile.ratings_caption')),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('profile.speed')), h('th', { scope: 'col' }, t('profile.rating')),
      h('th', { scope: 'col' }, t('profile.deviation')), h('th', { scope: 'col' }, t('profile.games')))),
    h('tbody', {}, rows));
}

/** The points of a history reply: `{points: [...]}` or a bare array, each `{ended_ms, rating}`. */
function historyPoints(reply) {
  const list = Array.isArray(reply) ? reply : (reply && (reply.points || reply.history)) || [];
  return list.map((p) => ({
    at: Number(p.ended_ms ?? p.at_ms ?? p.at),
    rating: Number(p.rating && typeof p.rating === 'object' ? p.rating.rating : p.rating ?? p.after),
  })).filter((p) => Number.isFinite(p.at) && Number.isFinite(p.rating));
}

/** The graph of one speed, chosen among those with games (the most played first). */
function historyGraph(box, name, ratings) {
  const played = SPEEDS.filter(([speed]) => ratings[speed] && ratings[speed].games > 0)
    .sort((a, b) => ratings[b[0]].games - ratings[a[0]].games);
  if (!played.length) {
    box.replaceChildren(h('p', { class: 'summary' }, t('profile.no_rated')));
    return;
  }
  const select = h('select', { id: 'history-speed', 'aria-label': t('profile.graph_speed') },
    played.map(([speed, label]) => h('option', { value: speed }, label)));
  const plot = h('div', { class: 'plot' });
  const draw = async () => {
    const speed = select.value;
    try {
      const reply = await request('GET', `/api/users/${encodeURIComponent(name)}/rating-history?speed=${encodeURIComponent(speed)}`);
      plot.replaceChildren(svgGraph(historyPoints(reply), speed));
    } catch (err) {
      plot.replaceChildren(h('p', { class: 'error' }, t('profile.history_failed', { error: err.message })));
    }
  };
  select.addEventListener('change', draw);
  box.replaceChildren(played.length > 1 ? h('p', { class: 'row' }, select) : h('span', {}), plot);
  if (played.length === 1) select.value = played[0][0];
  draw();
}

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** A speed the server names (`blitz`...) in words; an unknown one as it came. */
function speedName(speed) {
  return (SPEEDS.find(([sp]) => sp === speed) || [speed, speed])[1];
}

/**
 * An inline SVG line of the rating after each game, with its range and a text alternative.
 * `options`: `id` (the prefix of its ids, `history` by default), `describe(numbers)` and
 * `empty` (its words, for another rating than a speed's: the puzzle rating).
 */
export function svgGraph(points, speed, options = {}) {
  const W = 600; const H = 180; const PAD = 34;
  const id = options.id || 'history';
  const label = (SPEEDS.find(([sp]) => sp === speed) || [speed, speed])[1];
  if (!points.length) return h('p', { class: 'summary' }, options.empty || t('profile.no_speed_game', { speed: label.toLowerCase() }));
  const ratings = points.map((p) => p.rating);
  let lo = Math.min(...ratings); let hi = Math.max(...ratings);
  if (hi - lo < 50) { lo -= 25; hi += 25; }
  const x = (i) => (points.length === 1 ? W / 2 : PAD + (i * (W - 2 * PAD)) / (points.length - 1));
  const y = (r) => H - PAD / 2 - ((r - lo) * (H - PAD)) / (hi - lo);
  const first = Math.round(ratings[0]); const last = Math.round(ratings[ratings.length - 1]);
  const numbers = { n: points.length, first, last, low: Math.round(Math.min(...ratings)), high: Math.round(Math.max(...ratings)) };
  const desc = options.describe ? options.describe(numbers) : t('profile.graph_desc', { speed: label, ...numbers });
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': `${id}-title`, id: `${id}-svg`, class: 'history' });
  svg.append(s('title', { id: `${id}-title` }, desc));
  svg.append(s('line', { class: 'axis', x1: PAD, y1: H - PAD / 2, x2: W - PAD / 2, y2: H - PAD / 2 }));
  svg.append(s('text', { x: 2, y: y(hi) + 4, class: 'tick' }, String(Math.round(hi))));
  svg.append(s('text', { x: 2, y: y(lo) + 4, class: 'tick' }, String(Math.round(lo))));
  svg.append(s('polyline', { class: 'curve', points: points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(' ') }));
  points.forEach((p, i) => {
    const dot = s('circle', { cx: x(i).toFixed(1), cy: y(p.rating).toFixed(1), r: 2.5 });
    dot.append(s('title', {}, `${new Date(p.at).toLocaleDateString(language())}: ${Math.round(p.rating)}`));
    svg.append(dot);
  });
  return h('figure', { class: 'history-figure' }, svg, h('figcaption', { class: 'summary', id: `${id}-caption` }, desc));
}

/** The result of a game for this player: "Won", "Lost", "Draw", or the status. */
function resultWord(g) {
  const color = g.color || g.colour;
  if (g.status === 'playing') return t('profile.in_progress');
  if (g.status === 'open') return t('profile.waiting');
  if (g.result === '1/2-1/2') return t('profile.draw');
  if (g.result === '*' || !g.result) return g.reason === 'aborted' ? t('profile.aborted') : t('lobby.finished');
  const whiteWon = g.result === '1-0';
  if (color === 'white' || color === 'black') return (color === 'white') === whiteWon ? t('profile.won') : t('profile.lost');
  return g.result;
}

function opponentCell(o) {
  if (!o) return t('lobby.anonymous');
  if (typeof o === 'string') return o;
  const name = nameOf(o);
  if (name) {
    return h('a', { href: `/@/${encodeURIComponent(name)}` }, name, typeof o.rating === 'object' && o.rating ? ` (${ratingText(o.rating)})` : '');
  }
  if (o.computer) return t('lobby.computer_level', { level: o.computer.level || o.computer });
  return t('lobby.anonymous');
}

function diffOf(g) {
  if (typeof g.rating_diff === 'number') return g.rating_diff;
  const c = g.rating_change;
  if (c && typeof c.diff === 'number') return c.diff;
  if (c && typeof c.before === 'number' && typeof c.after === 'number') return c.after - c.before;
  return null;
}

/** A page of the player's games (newest first) with "Newer" / "Older". */
async function gamesList(box, name, offset) {
  let reply;
  try {
    reply = await request('GET', `/api/users/${encodeURIComponent(name)}/games?limit=${PAGE}&offset=${offset}`);
  } catch (err) {
    box.replaceChildren(h('p', { class: 'error' }, t('profile.games_failed', { error: err.message })));
    return;
  }
  const games = (reply && reply.games) || [];
  const rows = games.map((g) => {
    const diff = diffOf(g);
    return h('tr', { 'data-id': g.id },
      h('td', {}, h('a', { href: `/game/${encodeURIComponent(g.id)}`, class: 'game-link' }, resultWord(g))),
      h('td', {}, opponentCell(g.opponent)),
      h('td', {}, colorName(g.color || g.colour || '')),
      h('td', {}, [clockLabel(g.clock), g.speed ? ` (${speedName(g.speed).toLowerCase()})` : ''].join('')),
      h('td', {}, g.rated ? t('lobby.rated') : t('profile.casual')),
      h('td', { class: typeof diff === 'number' ? (diff >= 0 ? 'rating-diff up' : 'rating-diff down') : '' }, typeof diff === 'number' ? diffText(diff) : ''));
  });
  const older = h('button', { type: 'button', id: 'games-older', disabled: games.length < PAGE, onclick: () => gamesList(box, name, offset + PAGE) }, t('profile.older'));
  const newer = h('button', { type: 'button', id: 'games-newer', disabled: offset === 0, onclick: () => gamesList(box, name, Math.max(0, offset - PAGE)) }, t('profile.newer'));
  box.replaceChildren(
    rows.length
      ? h('table', { class: 'games-table', id: 'games-table' },
        h('caption', { class: 'visually-hidden' }, t('profile.games_caption', { name })),
        h('thead', {}, h('tr', {}, ['result', 'opponent', 'colour', 'clock', 'kind', 'rating'].map((col) => h('th', { scope: 'col' }, t(`profile.col_${col}`))))),
        h('tbody', {}, rows))
      : h('p', { class: 'summary' }, offset ? t('profile.no_older') : t('profile.no_game')),
    h('div', { class: 'row pager' }, newer, older,
      h('span', { class: 'summary' }, rows.length ? t('profile.games_range', { from: offset + 1, to: offset + rows.length }) : '')));
}

/** What each refusal of a challenge means, in words. */
const CHALLENGE_ERRORS = {
  unknown_user: t('profile.err_unknown_user'),
  self_challenge: t('error.self_challenge'),
  rated_needs_clock: t('lobby.rated_needs_clock'),
  rate_limited: t('profile.err_rate_limited'),
  too_many_challenges: t('profile.err_too_many'),
  not_logged_in: t('profile.err_not_logged_in'),
  bad_origin: t('profile.err_bad_origin'),
};

/** The challenge form (clock, colour, rated) under the profile's button. */
function openChallenge(box, to) {
  if (box.querySelector('#challenge-form')) return;
  const error = h('p', { class: 'error', role: 'alert', id: 'challenge-error' });
  const clock = clockChoice('challenge-clock', 'challenge-', '5+3', { correspondence: true });
  const form = h('form', { id: 'challenge-form', class: 'create challenge-form', novalidate: true },
    clock.fieldset,
    h('fieldset', {}, h('legend', {}, t('lobby.your_colour')), h('div', { class: 'choices' },
      radio('challenge-color', 'white', t('color.white')), radio('challenge-color', 'random', t('lobby.random'), true), radio('challenge-color', 'black', t('color.black')))),
    h('fieldset', {}, h('legend', {}, t('lobby.variant')), h('div', { class: 'choices' },
      radio('challenge-variant', 'balanced', t('variant.balanced'), true), radio('challenge-variant', 'marseillais', t('variant.marseillais')))),
    h('p', { class: 'listed' }, h('label', { for: 'challenge-rated' },
      h('input', { type: 'checkbox', id: 'challenge-rated', name: 'rated' }), ` ${t('lobby.rated')}`)),
    h('div', { class: 'row' },
      h('button', { type: 'submit', id: 'challenge-send', class: 'primary' }, t('profile.send_challenge', { name: to })),
      h('button', { type: 'button', id: 'challenge-close', onclick: () => form.remove() }, t('common.cancel'))),
    error);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.textContent = '';
    const chosen = clock.read();
    if (chosen.problem) { error.textContent = chosen.problem; return; }
    const rated = form.querySelector('#challenge-rated').checked;
    if (rated && !chosen.clock) { error.textContent = CHALLENGE_ERRORS.rated_needs_clock; return; }
    const body = {
      to, clock: chosen.clock, color: form.elements['challenge-color'].value,
      variant: form.elements['challenge-variant'].value, rated,
    };
    const send = form.querySelector('#challenge-send');
    send.disabled = true;
    try {
      const reply = await request('POST', '/api/challenges', body);
      const c = (reply && reply.challenge) || reply || {};
      trackOutgoing({ ...body, ...c, to: c.to || to });
      form.remove();
    } catch (err) {
      error.textContent = CHALLENGE_ERRORS[err.code] || t('profile.challenge_failed', { error: err.message });
      send.disabled = false;
    }
  });
  box.append(form);
  const first = form.querySelector('input');
  if (first) first.focus();
}
