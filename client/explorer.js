// The opening explorer panel of the analysis board (issue 31; docs/explorer.md).
//
// `mountExplorer(section, controller)` fills the page's
// `<section id="analysis-explorer">`: for the board's current position, the
// turns played from it in the games the server holds (`GET /api/explorer`),
// each with its number of games, a White / draw / Black bar and the players'
// average rating, then a few recent games of the position (links to
// `/game/{id}`). Filters: rated or casual, and the clock families. Clicking a
// turn plays its sub-moves on the board (`controller.playSubmoves`), which
// brings the next position here through `controller.onPosition`.
//
// The explorer knows turn starts only: in the middle of a turn (the FEN's
// seventh field is 2) the panel says so and asks nothing. Answers that come
// back after the position changed again are dropped.

import { request, h } from './api.js';
import { t } from './i18n.js';

/** The clock families the server knows, in its order. */
const FAMILIES = ['bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'untimed'];

/** The filters a visitor chose, kept in this browser. */
const FILTER_KEY = 'marseillais.explorer.filter';

function familyName(family) {
  switch (family) {
    case 'bullet': return t('speed.bullet');
    case 'blitz': return t('speed.blitz');
    case 'rapid': return t('speed.rapid');
    case 'classical': return t('speed.classical');
    case 'correspondence': return t('speed.correspondence');
    default: return t('explorer.untimed');
  }
}

function loadFilter() {
  try {
    const saved = JSON.parse(localStorage.getItem(FILTER_KEY) || 'null');
    if (saved && typeof saved === 'object') {
      return {
        rated: ['all', 'rated', 'casual'].includes(saved.rated) ? saved.rated : 'all',
        families: Array.isArray(saved.families)
          ? saved.families.filter((f) => FAMILIES.includes(f))
          : [...FAMILIES],
      };
    }
  } catch (_) { /* a damaged entry: the defaults */ }
  return { rated: 'all', families: [...FAMILIES] };
}

function saveFilter(filter) {
  try { localStorage.setItem(FILTER_KEY, JSON.stringify(filter)); } catch (_) { /* private mode */ }
}

/** Whether an extended FEN is in the middle of a turn (second sub-move to play). */
function midTurn(fen) {
  const fields = String(fen || '').trim().split(/\s+/);
  return fields.length >= 7 && fields[6] === '2';
}

function percent(part, whole) {
  return whole > 0 ? (100 * part) / whole : 0;
}

/** The White / draw / Black bar of counts. */
function resultBar(white, draws, black) {
  const total = white + draws + black;
  const segment = (cls, n, label) => {
    const share = percent(n, total);
    return h('span', {
      class: `explorer-bar-${cls}`,
      style: `width: ${share.toFixed(1)}%`,
      title: `${label}: ${n}`,
    }, share >= 12 ? `${Math.round(share)}%` : '');
  };
  return h('div', { class: 'explorer-bar', role: 'img',
    'aria-label': t('explorer.bar_label', { white, draws, black }) },
  segment('white', white, t('explorer.white_wins')),
  segment('draw', draws, t('explorer.draws')),
  segment('black', black, t('explorer.black_wins')));
}

function playerText(name, rating) {
  const who = name || t('explorer.anonymous');
  return rating === null || rating === undefined ? who : `${who} (${rating})`;
}

export function mountExplorer(section, controller) {
  const filter = loadFilter();
  let fen = null;
  let asked = 0;
  const status = h('p', { class: 'explorer-status', 'aria-live': 'polite' });
  const body = h('div', { class: 'explorer-body' });

  const ratedSelect = h('select', {
    class: 'explorer-rated',
    'aria-label': t('explorer.rated_filter'),
    onchange: () => { filter.rated = ratedSelect.value; saveFilter(filter); refresh(); },
  },
  h('option', { value: 'all' }, t('explorer.rated_all')),
  h('option', { value: 'rated' }, t('explorer.rated_only')),
  h('option', { value: 'casual' }, t('explorer.casual_only')));
  ratedSelect.value = filter.rated;

  const familyBoxes = FAMILIES.map((family) => {
    const box = h('input', {
      type: 'checkbox',
      value: family,
      checked: filter.families.includes(family),
      onchange: () => {
        filter.families = FAMILIES.filter((f) =>
          familyBoxes.some((b) => b.value === f && b.checked));
        saveFilter(filter);
        refresh();
      },
    });
    return box;
  });

  section.replaceChildren(
    h('h2', {}, t('explorer.title')),
    h('div', { class: 'explorer-filters' },
      ratedSelect,
      h('span', { class: 'explorer-families', role: 'group', 'aria-label': t('explorer.speeds_filter') },
        familyBoxes.map((box) => h('label', {}, box, ' ', familyName(box.value))))),
    status,
    body,
  );

  function query() {
    const params = new URLSearchParams();
    params.set('fen', fen);
    if (filter.rated !== 'all') params.set('rated', filter.rated);
    if (filter.families.length < FAMILIES.length) params.set('speeds', filter.families.join(','));
    return `/api/explorer?${params}`;
  }

  function show(answer) {
    const total = answer.white + answer.draws + answer.black;
    if (!answer.turns.length) {
      status.textContent = t('explorer.empty');
      body.replaceChildren();
      return;
    }
    status.textContent = t('explorer.total', { n: total });
    const rows = answer.turns.map((turn) => h('tr', {
      class: 'explorer-turn',
      tabindex: '0',
      'data-turn': turn.turn.join(','),
      onclick: () => controller.playSubmoves(turn.turn),
      onkeydown: (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          controller.playSubmoves(turn.turn);
        }
      },
    },
    h('td', { class: 'explorer-san' }, turn.san.join(',')),
    h('td', { class: 'explorer-games' }, String(turn.games), ' ',
      h('small', {}, `${Math.round(percent(turn.games, total))}%`)),
    h('td', {}, resultBar(turn.white, turn.draws, turn.black)),
    h('td', { class: 'explorer-rating' },
      turn.average_rating === null ? '–' : String(turn.average_rating))));
    const table = h('table', { class: 'explorer-turns' },
      h('thead', {}, h('tr', {},
        h('th', {}, t('explorer.turn')),
        h('th', {}, t('explorer.games')),
        h('th', {}, t('explorer.results')),
        h('th', {}, t('explorer.average_rating')))),
      h('tbody', {}, rows));
    const games = answer.games.map((game) => h('li', {},
      h('a', { href: `/game/${encodeURIComponent(game.id)}` },
        `${playerText(game.white, game.white_rating)} – ${playerText(game.black, game.black_rating)}`),
      ' ', h('span', { class: 'explorer-result' }, game.result),
      ' ', h('small', {}, familyName(game.speed), game.rated ? ` · ${t('explorer.rated')}` : '')));
    body.replaceChildren(
      table,
      games.length ? h('h3', {}, t('explorer.recent_games')) : null,
      games.length ? h('ul', { class: 'explorer-examples' }, games) : null,
    );
  }

  async function refresh() {
    if (!fen) return;
    const mine = ++asked;
    if (midTurn(fen)) {
      status.textContent = t('explorer.mid_turn');
      body.replaceChildren();
      return;
    }
    if (!filter.families.length) {
      // No clock family ticked: no game can count.
      status.textContent = t('explorer.empty');
      body.replaceChildren();
      return;
    }
    status.textContent = t('explorer.loading');
    try {
      const answer = await request('GET', query());
      if (mine === asked) show(answer);
    } catch (e) {
      if (mine !== asked) return;
      status.textContent = e.code === 'not_turn_start' ? t('explorer.mid_turn') : t('explorer.failed');
      body.replaceChildren();
    }
  }

  controller.onPosition((next) => {
    fen = next;
    refresh();
  });
}
