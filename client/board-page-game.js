// The analysis board opened on a finished game (`/analysis?game=ID`): the
// server's analysis of the game (GET /api/games/{id}/analysis, streamed as
// NDJSON, docs/protocol.md) read to its `done` line, whose `judgements` mark
// the move list (?!, ?, ?? on the last sub-move of the judged turn, `ply`
// counted along the game's main line) with the best turn at each, and whose
// `accuracy` gives each player's accuracy. The thresholds and the formula
// are the server's (docs/analysis.md); this panel only shows them.

import { h, colorName } from './api.js';
import { t, number } from './i18n.js';
import { streamLines } from './analysis.js';
import { mainLinePath, pathKey } from './move-tree.js';
import { GLYPHS } from './board-page-moves.js';

const KINDS = ['inaccuracy', 'mistake', 'blunder'];

export class GameReview {
  /** `id`: the game; `tree()`: the board's tree (its main line is the game); `onMarks(map)`: pathKey -> judgement. */
  constructor({ id, tree, onMarks }) {
    this.id = id;
    this.tree = tree;
    this.onMarks = onMarks;
    this.status = h('p', { class: 'analysis-status', id: 'review-status', role: 'status' });
    this.table = h('div', { class: 'review-summary', id: 'review-summary' });
    this.button = h('button', { type: 'button', id: 'review-start', onclick: () => this.start() }, t('board.review_start'));
    this.el = h('section', { class: 'game-review', id: 'game-review', 'aria-label': t('board.review_label') },
      h('h3', {}, t('board.review_heading')), h('div', { class: 'row' }, this.button, this.status), this.table);
  }

  async start() {
    this.button.disabled = true;
    this.status.textContent = t('board.review_running');
    let positions = 0;
    let done = null;
    try {
      await streamLines(`/api/games/${encodeURIComponent(this.id)}/analysis`, {}, (line) => {
        if (line.done) done = line;
        else if (line.error) throw Object.assign(new Error(line.error.message), { code: line.error.code });
        else if (Number.isInteger(line.ply)) {
          positions += 1;
          this.status.textContent = t('board.review_progress', { n: positions });
        }
      });
      if (!done) throw new Error(t('analysis.stopped_early'));
      this.show(done);
      this.button.hidden = true;
    } catch (err) {
      const wait = err.status === 429 || err.status === 503 ? ` ${t('analysis.try_later')}` : '';
      this.status.textContent = `${t('board.review_failed', { error: err.message })}${wait}`;
      this.button.disabled = false;
    }
  }

  /** The `done` line: marks on the move list, the accuracy and the counts per player. */
  show(done) {
    const marks = new Map();
    const judgements = Array.isArray(done.judgements) ? done.judgements : [];
    const counts = { white: { inaccuracy: 0, mistake: 0, blunder: 0 }, black: { inaccuracy: 0, mistake: 0, blunder: 0 } };
    for (const j of judgements) {
      if (!KINDS.includes(j.judgement) || !Number.isInteger(j.ply)) continue;
      const path = mainLinePath(this.tree(), j.ply);
      if (!path || !path.length) continue;
      marks.set(pathKey(path), j);
      if (counts[j.color]) counts[j.color][j.judgement] += 1;
    }
    this.status.textContent = done.accuracy || judgements.length ? '' : t('board.review_no_marks');
    const accuracy = done.accuracy || {};
    const cell = (v) => (typeof v === 'number' ? `${number(v, { maximumFractionDigits: 0 })}%` : '—');
    this.table.replaceChildren(h('table', { class: 'review-table' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), h('th', { scope: 'col' }, t('board.accuracy')),
        ...KINDS.map((k) => h('th', { scope: 'col', title: t(`board.judgement.${k}`) }, GLYPHS[k])))),
      h('tbody', {}, ...['white', 'black'].map((color) => h('tr', { 'data-color': color },
        h('th', { scope: 'row' }, colorName(color)),
        h('td', { class: 'accuracy', id: `accuracy-${color}` }, cell(accuracy[color])),
        ...KINDS.map((k) => h('td', { class: k }, String(counts[color][k]))))))));
    this.onMarks(marks);
  }
}
