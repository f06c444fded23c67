// The puzzles around the trainer: the themes' names and descriptions in the
// page's language, the themes page (`/puzzles/themes`: each theme with its
// count, a link to `/puzzles?theme=KEY`) and the lobby's "Puzzle of the day"
// (`GET /api/puzzles/daily`: a small board from the solver's side and a link).
// The trainer itself is puzzles.js.

import { request, h } from './api.js';
import { t } from './i18n.js';
import { setTitle } from './notify.js';
import { placement, FILES } from './fen.js';
import { pieceSvg } from './pieces.js';

/**
 * The theme keys of the wire (src/server/puzzles/theme.rs), in the order the themes page
 * lists them; each has `puzzle.theme.{key}` and `puzzle.theme_desc.{key}` in the catalogues.
 */
export const THEMES = [
  'mateIn1', 'mateIn2', 'mateIn3', 'mateIn4', 'mate', 'doubleCapture', 'fork', 'discoveredAttack',
  'promotion', 'enPassant', 'checkEndsTurn', 'defence', 'advantage', 'crushing', 'opening',
  'middlegame', 'endgame', 'short', 'long',
];

/** A theme's name in words ("Mate in 2"); an unknown key as it came. */
export function themeName(key) {
  return THEMES.includes(key) ? t(`puzzle.theme.${key}`) : String(key);
}

/** A theme's description in words, or "" for an unknown key. */
export function themeDescription(key) {
  return THEMES.includes(key) ? t(`puzzle.theme_desc.${key}`) : '';
}

/** The trainer's address for a theme (`/puzzles?theme=fork`), or for any puzzle. */
export function themeUrl(key) {
  return key ? `/puzzles?theme=${encodeURIComponent(key)}` : '/puzzles';
}

/** A theme as a link to its puzzles. */
export function themeLink(key) {
  return h('a', { href: themeUrl(key), class: 'puzzle-theme', 'data-theme': key }, themeName(key));
}

/** The themes page: every theme with its count, each a link to its puzzles. */
export async function themesPage(main) {
  setTitle(t('puzzle.themes_title'));
  const status = h('p', { class: 'status', id: 'themes-status', role: 'status' }, t('page.loading'));
  main.replaceChildren(status);
  let reply;
  try {
    reply = await request('GET', '/api/puzzles/themes');
  } catch (err) {
    status.textContent = t('puzzle.themes_failed', { error: err.message });
    return;
  }
  const counts = new Map((reply.themes || []).map((line) => [line.key, Number(line.count) || 0]));
  // The known themes in their order, then any the server knows and this page does not.
  const keys = [...THEMES.filter((k) => counts.has(k)), ...[...counts.keys()].filter((k) => !THEMES.includes(k))];
  const items = keys.map((key) => h('li', { 'data-theme': key },
    h('a', { href: themeUrl(key), class: 'theme-name' }, themeName(key)),
    h('span', { class: 'theme-count' }, t('puzzle.count', { n: counts.get(key) })),
    themeDescription(key) ? h('p', { class: 'theme-desc' }, themeDescription(key)) : null));
  main.replaceChildren(h('section', { class: 'panel puzzle-themes' },
    h('h2', {}, t('puzzle.themes_title')),
    h('p', { class: 'summary', id: 'themes-total' },
      h('a', { href: themeUrl(null), id: 'themes-all' }, t('puzzle.all_puzzles')), ` · ${t('puzzle.count', { n: Number(reply.total) || 0 })}`),
    items.length
      ? h('ul', { class: 'theme-list', id: 'theme-list' }, items)
      : h('p', { class: 'summary', id: 'theme-list' }, t('puzzle.no_puzzle_yet'))));
}

/**
 * The lobby's "Puzzle of the day": the position the solver plays from, drawn small from the
 * solver's side with the opponent's last turn shaded, who is to play, and a link to solve it.
 * Hidden while the server has no puzzle (404).
 */
export function dailyPanel() {
  const body = h('div', { class: 'daily-body' }, h('p', { class: 'summary' }, t('page.loading')));
  const panel = h('section', { class: 'panel daily-puzzle', id: 'daily-puzzle' },
    h('h2', {}, t('puzzle.daily')), body);
  request('GET', '/api/puzzles/daily').then((reply) => {
    const p = reply.puzzle;
    const toPlay = t(p.solver === 'black' ? 'puzzle.black_to_play' : 'puzzle.white_to_play');
    body.replaceChildren(
      h('a', { href: p.url, class: 'daily-board-link', id: 'daily-link', 'aria-label': `${t('puzzle.daily')}: ${toPlay}` },
        miniBoard(p.start_fen, p.solver, p.last_turn || [])),
      h('p', { class: 'daily-caption' }, `${toPlay} · `, h('a', { href: p.url, id: 'daily-solve' }, t('puzzle.solve_it'))));
  }, (err) => {
    if (err.status === 404) panel.hidden = true;
    else body.replaceChildren(h('p', { class: 'error' }, t('puzzle.load_failed', { error: err.message })));
  });
  return panel;
}

/** A position drawn small and still (no input, hidden from screen readers: the link says it). */
function miniBoard(fen, orientation, shaded) {
  const pieces = placement(fen);
  const marked = new Set(shaded.flatMap((uci) => [uci.slice(0, 2), uci.slice(2, 4)]));
  const cells = [];
  for (let row = 0; row < 8; row += 1) {
    for (let col = 0; col < 8; col += 1) {
      const file = orientation === 'black' ? 7 - col : col;
      const rank = orientation === 'black' ? row + 1 : 8 - row;
      const name = FILES[file] + rank;
      const cell = h('div', { class: `sq ${(file + rank) % 2 === 0 ? 'light' : 'dark'}${marked.has(name) ? ' last1' : ''}`, 'data-sq': name });
      const piece = pieces.get(name);
      if (piece) cell.innerHTML = pieceSvg(piece);
      cells.push(cell);
    }
  }
  return h('div', { class: 'mini-board', 'aria-hidden': 'true' }, cells);
}
