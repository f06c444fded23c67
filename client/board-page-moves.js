// The analysis board's move list: the tree (move-tree.js) in comma notation,
// the main line in rows of turns (number, White's turn, Black's turn), each
// turn's variations in a block under it, nested in parentheses to any depth,
// comments in italics, and a finished game's marks (?!, ?, ??) with the best
// turn at each mistake. Every sub-move is a button that shows its position;
// the one shown is `.current`. Drawn again whole from the tree on each change.

import { h } from './api.js';
import { t } from './i18n.js';
import { treeTurns, pathKey } from './move-tree.js';

/** The mark of a judgement (the wire's names, docs/analysis.md). */
export const GLYPHS = { inaccuracy: '?!', mistake: '?', blunder: '??' };

/**
 * Draws the tree into `list`. `current`: the path shown; `marks`: pathKey -> a judgement of
 * the game analysis (`{judgement, best_san, ...}`); `go(path)`: show a position; `showBest(key)`:
 * play the best turn of a mistake as a variation.
 */
export function renderMoves(list, tree, { current, marks = new Map(), go, showBest }) {
  const currentKey = pathKey(current);
  const button = ({ node, path }) => {
    const key = pathKey(path);
    const mark = marks.get(key);
    return h('button', {
      type: 'button',
      class: `mv${key === currentKey ? ' current' : ''}${mark ? ` judged ${mark.judgement}` : ''}`,
      'data-path': key,
      'aria-current': key === currentKey ? 'true' : null,
      title: mark ? t(`board.judgement.${mark.judgement}`) : null,
      onclick: () => go(path),
    }, node.san || node.uci, mark ? h('span', { class: 'glyph' }, GLYPHS[mark.judgement] || '') : null);
  };
  const items = (turn) => {
    const parts = turn.leadingComma ? [','] : [];
    turn.items.forEach((item, i) => {
      if (i) parts.push(',');
      parts.push(button(item));
    });
    return parts;
  };
  const comments = (turn) => turn.items
    .filter((item) => item.node.comment)
    .map((item) => h('span', { class: 'comment' }, item.node.comment));
  const judgementNotes = (turn) => turn.items.map((item) => {
    const key = pathKey(item.path);
    const mark = marks.get(key);
    if (!mark) return null;
    const best = Array.isArray(mark.best_san) && mark.best_san.length ? mark.best_san.join(',') : null;
    return h('span', { class: `judgement-note ${mark.judgement}`, 'data-path': key },
      t(`board.judgement.${mark.judgement}`),
      best ? ` ${t('board.best_was')} ` : '',
      best ? h('button', { type: 'button', class: 'linkish best-turn', onclick: () => showBest(key) }, best) : '');
  }).filter(Boolean);

  /** A line written inline: `1... e5,Nf6 2. d4 (2. Nc3) ...`. */
  const inline = (turns) => {
    const out = [];
    let needNumber = true;
    // Spaces as text between the parts, so that the line reads (and copies) as PGN does.
    const add = (...parts) => { if (out.length) out.push(' '); out.push(...parts); };
    for (const turn of turns) {
      if (turn.side === 'w') add(h('span', { class: 'num' }, `${turn.number}.`));
      else if (needNumber) add(h('span', { class: 'num' }, `${turn.number}...`));
      add(h('span', { class: 'turn' }, items(turn)));
      for (const c of comments(turn)) add(c);
      needNumber = false;
      for (const variation of turn.variations) {
        add(h('span', { class: 'variation nested' }, '(', inline(variation), ')'));
        needNumber = true;
      }
      if (turn.items.some((item) => item.node.comment)) needNumber = true;
    }
    return out;
  };

  const rows = [];
  const turns = treeTurns(tree);
  let open = false; // a row whose White cell is drawn and whose Black cell is not yet
  turns.forEach((turn) => {
    if (turn.side === 'w') {
      rows.push(h('span', { class: 'num' }, `${turn.number}.`), h('span', { class: 'turn white' }, items(turn)));
      open = true;
    } else {
      if (!open) rows.push(h('span', { class: 'num' }, `${turn.number}.`), h('span', { class: 'turn white empty' }, '…'));
      rows.push(h('span', { class: 'turn black' }, items(turn)));
      open = false;
    }
    const extra = [...judgementNotes(turn), ...comments(turn)];
    if (turn.variations.length || extra.length) {
      if (open) rows.push(h('span', { class: 'turn black empty' }, ''));
      open = false;
      rows.push(h('div', { class: 'move-extra' }, ...extra,
        ...turn.variations.map((v) => h('div', { class: 'variation' }, inline(v)))));
    }
  });
  list.replaceChildren(...rows);
  list.classList.toggle('empty', !turns.length);
  // The current sub-move kept in view inside the list (never the page scrolled).
  const shown = list.querySelector('.mv.current');
  if (shown) {
    const top = shown.offsetTop; // the list is positioned: its offsetParent
    if (top < list.scrollTop) list.scrollTop = top - 8;
    else if (top + shown.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + shown.offsetHeight - list.clientHeight + 8;
  }
}
