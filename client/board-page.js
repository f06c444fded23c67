// The analysis board (`/analysis`): a free board on which one plays sub-moves
// for both sides, into a move tree with variations (move-tree.js), from the
// start, from a FEN (`?fen=`, the share link), from an imported comma PGN
// (the box, or `?import=1`: a PGN another page left in sessionStorage), or
// from a finished game (`?game=ID`: its PGN, then its analysis marks).
//
// The page has no rules: every position's legal sub-moves, with their SAN
// and the FEN after each, come from POST /api/analysis/position (cached per
// FEN), so the turn in progress (whose sub-move, first or second; no second
// after a check; the first turn a single sub-move) is the server's. PGN
// import and export are the server's too (POST /api/analysis/pgn and
// /pgn/export); the engine lines come from engine-lines.js.
//
// The opening explorer (client/explorer.js, another module) mounts in
// `#analysis-explorer` with the controller `boardPage` returns:
// `onPosition(fn(fen, node))`, called whenever the position shown changes
// (and once at once when one is shown), and `playSubmoves(ucis)`, which
// plays sub-moves from the position shown into the tree.

import { request, h, reasonText, colorName } from './api.js';
import { t } from './i18n.js';
import { Board } from './board.js';
import { placement, kingSquare } from './fen.js';
import { setTitle } from './notify.js';
import * as tree from './move-tree.js';
import { renderMoves } from './board-page-moves.js';
import { BoardArrows } from './board-arrows.js';
import { EnginePanel, EvalBar } from './engine-lines.js';
import { GameReview } from './board-page-game.js';
import { mountExplorer } from './explorer.js';

export const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
/** Where another page leaves a PGN for `/analysis?import=1` (the replay page, a puzzle). */
export const HANDOVER_KEY = 'marseillais.analysis.pgn';
/** Positions kept in the page's cache of POST /api/analysis/position replies. */
const CACHE_MAX = 600;

/** Opens the board with a PGN: kept for the next page, which reads it from `?import=1`. */
export function analysePgn(pgn, fallbackFen) {
  try { sessionStorage.setItem(HANDOVER_KEY, pgn); } catch (_) { /* private mode: the FEN below */ }
  return `/analysis?import=1${fallbackFen ? `&fen=${encodeURIComponent(fallbackFen)}` : ''}`;
}

export function boardPage(main) {
  const page = new AnalysisBoard(main);
  page.open(new URLSearchParams(location.search));
  return page.controller;
}

class AnalysisBoard {
  constructor(main) {
    this.main = main;
    this.tree = tree.newTree(START_FEN);
    this.path = [];
    this.marks = new Map();
    this.cache = new Map();
    this.gen = 0;
    this.info = null;
    this.positionFailed = false;
    this.listeners = [];
    this.controller = {
      onPosition: (fn) => {
        this.listeners.push(fn);
        if (this.info) fn(this.info.fen, this.node());
      },
      playSubmoves: (ucis) => this.playSubmoves(ucis),
    };
    this.build();
  }

  node() {
    return tree.nodeAt(this.tree, this.path) || this.tree.root;
  }

  build() {
    const boardWrap = h('div', { class: 'board-wrap', id: 'board' });
    this.bar = new EvalBar();
    this.turnStatus = h('p', { class: 'status turn-status', id: 'turn-status', role: 'status' }, t('page.loading'));
    this.error = h('p', { class: 'error', id: 'board-error', role: 'alert' });
    this.moves = h('section', { class: 'tree-moves', id: 'board-moves', 'aria-label': t('board.moves_label') });
    this.promoteBtn = h('button', { type: 'button', id: 'tree-promote', title: t('board.promote_help'), onclick: () => this.promote(false) }, t('board.promote'));
    this.mainBtn = h('button', { type: 'button', id: 'tree-main', onclick: () => this.promote(true) }, t('board.make_main'));
    this.deleteBtn = h('button', { type: 'button', id: 'tree-delete', class: 'danger', title: t('board.delete_help'), onclick: () => this.deleteHere() }, t('board.delete'));
    this.commentBtn = h('button', { type: 'button', id: 'tree-comment', 'aria-expanded': 'false', onclick: () => this.openComment() }, t('board.comment'));
    this.commentText = h('textarea', { id: 'comment-text', rows: '2', maxlength: '2000', 'aria-label': t('board.comment_label') });
    this.commentForm = h('form', { class: 'comment-form', id: 'comment-form', hidden: true, onsubmit: (e) => { e.preventDefault(); this.saveComment(); } },
      this.commentText,
      h('div', { class: 'row' },
        h('button', { type: 'submit', class: 'primary', id: 'comment-save' }, t('board.comment_save')),
        h('button', { type: 'button', onclick: () => this.closeComment() }, t('common.cancel'))));
    this.arrowsOn = true;
    this.engine = new EnginePanel({
      onPlay: (ucis) => this.playSubmoves(ucis),
      onArrows: (ucis, kind) => this.arrows && this.arrows.show(this.arrowsOn ? ucis : [], kind),
      bar: this.bar,
    });
    this.reviewSlot = h('div', { id: 'review-slot' });
    this.gameLink = h('a', { class: 'button', id: 'board-game-link', hidden: true, href: '/' }, t('board.back_to_game'));
    // The opening explorer's panel: `mountExplorer(this.explorerSection, this.controller)`
    // (client/explorer.js) is called at the end of build().
    this.explorerSection = h('section', { id: 'analysis-explorer' });

    this.fenInput = h('input', { type: 'text', id: 'fen-input', spellcheck: false, 'aria-label': t('board.fen') });
    this.shareInput = h('input', { type: 'text', id: 'share-link', readonly: true, 'aria-label': t('board.share') });
    this.pgnInput = h('textarea', { id: 'pgn-input', rows: '4', spellcheck: false, placeholder: t('board.pgn_placeholder'), 'aria-label': t('board.pgn_import') });
    this.pgnOutput = h('textarea', { id: 'pgn-output', rows: '4', readonly: true, spellcheck: false, hidden: true, 'aria-label': t('board.pgn_export') });
    this.copyNote = h('span', { class: 'copy-note', id: 'copy-note', role: 'status' });
    const nav = h('div', { class: 'review-nav' },
      h('button', { type: 'button', id: 'nav-first', 'aria-label': t('game.nav_start'), onclick: () => this.go(tree.first()) }, '«'),
      h('button', { type: 'button', id: 'nav-prev', 'aria-label': t('game.nav_prev_label'), onclick: () => this.go(tree.previous(this.path)) }, '‹'),
      h('button', { type: 'button', id: 'nav-next', 'aria-label': t('game.nav_next_label'), onclick: () => this.go(tree.next(this.tree, this.path)) }, '›'),
      h('button', { type: 'button', id: 'nav-last', 'aria-label': t('replay.end'), onclick: () => this.go(tree.last(this.tree, this.path)) }, '»'),
      h('button', { type: 'button', id: 'btn-flip', title: t('board.flip_help'), onclick: () => this.flip() }, '⇅'));
    const under = h('div', { class: 'underboard panel' },
      h('div', { class: 'field' }, h('label', { for: 'fen-input' }, t('board.fen')),
        h('form', { class: 'row nowrap', onsubmit: (e) => { e.preventDefault(); this.loadFen(this.fenInput.value.trim()); } },
          this.fenInput, h('button', { type: 'submit', id: 'fen-load' }, t('board.fen_load')))),
      h('div', { class: 'field' }, h('label', { for: 'share-link' }, t('board.share')),
        h('div', { class: 'row nowrap' }, this.shareInput, h('button', { type: 'button', id: 'share-copy', onclick: () => this.copy(this.shareInput) }, t('board.copy')))),
      h('div', { class: 'field' }, h('label', { for: 'pgn-input' }, t('board.pgn_import')),
        h('form', { id: 'pgn-form', onsubmit: (e) => { e.preventDefault(); this.importPgn(this.pgnInput.value); } },
          this.pgnInput, h('div', { class: 'row' }, h('button', { type: 'submit', id: 'pgn-import' }, t('board.import'))))),
      h('div', { class: 'field' },
        h('div', { class: 'row' },
          h('button', { type: 'button', id: 'pgn-export', class: 'primary', onclick: () => this.exportPgn() }, t('board.export')),
          h('button', { type: 'button', id: 'pgn-copy', hidden: true, onclick: () => this.copy(this.pgnOutput) }, t('board.copy')),
          this.copyNote),
        this.pgnOutput));

    this.main.replaceChildren(h('div', { class: 'game analysis-board' },
      h('div', { class: 'board-col' },
        h('div', { class: 'board-with-bar' }, this.bar.el, boardWrap),
        nav, this.turnStatus, this.error),
      under,
      h('aside', { class: 'side panel' },
        h('div', { class: 'board-head' }, h('h2', {}, t('board.heading')), this.gameLink),
        this.engine.el,
        this.moves,
        h('div', { class: 'actions tree-actions' }, this.promoteBtn, this.mainBtn, this.commentBtn, this.deleteBtn),
        this.commentForm,
        this.reviewSlot,
        this.explorerSection)));
    this.board = new Board(boardWrap, { onMove: (uci) => this.play(uci) });
    this.arrows = new BoardArrows(this.board);
    document.addEventListener('keydown', (e) => this.key(e));
    setTitle(t('board.page_title'));
    // The opening explorer (client/explorer.js) mounts here.
    mountExplorer(this.explorerSection, this.controller);
  }

  /** Opens what the address asks for: `?game=`, `?import=1`, `?fen=`, else the start. */
  async open(params) {
    const game = params.get('game');
    const fen = params.get('fen');
    if (game && /^[0-9A-Za-z]{1,32}$/.test(game)) {
      await this.openGame(game);
      return;
    }
    if (params.has('import')) {
      let pgn = null;
      try { pgn = sessionStorage.getItem(HANDOVER_KEY); } catch (_) { pgn = null; }
      if (pgn) {
        this.pgnInput.value = pgn;
        if (await this.importPgn(pgn)) return;
      }
    }
    if (fen && await this.loadFen(fen)) return;
    this.reset(START_FEN);
  }

  reset(fen, tags = []) {
    this.tree = tree.newTree(fen, tags);
    this.marks = new Map();
    this.go([]);
  }

  /** The position's legal sub-moves and state (POST /api/analysis/position), cached per FEN. */
  position(fen) {
    let entry = this.cache.get(fen);
    if (!entry) {
      entry = request('POST', '/api/analysis/position', { fen });
      // A failed reading is not kept: the next visit asks again.
      entry.catch(() => { if (this.cache.get(fen) === entry) this.cache.delete(fen); });
      if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value);
      this.cache.set(fen, entry);
    }
    return entry;
  }

  /** Shows the node at `path` (clamped to the tree). */
  async go(path) {
    this.path = tree.validPath(this.tree, path);
    this.closeComment();
    const gen = ++this.gen;
    const node = this.node();
    const map = placement(node.fen);
    this.board.setPosition(map);
    this.board.setLegal([], null);
    this.drawTree();
    this.fenInput.value = node.fen;
    this.shareInput.value = `${location.origin}/analysis?fen=${encodeURIComponent(node.fen)}`;
    const turn = tree.turnAt(this.tree, this.path);
    const hl = {};
    turn.items.forEach((uci, i) => { hl[i ? 's2' : 's1'] = uci; });
    this.board.setHighlights(hl);
    let info;
    try {
      info = await this.position(node.fen);
    } catch (err) {
      if (gen !== this.gen) return;
      this.info = null;
      this.turnStatus.textContent = '';
      this.error.textContent = t('board.position_failed', { error: err.message });
      this.positionFailed = true;
      return;
    }
    if (gen !== this.gen) return;
    this.info = info;
    // Another error (a refused FEN or PGN) stays until the next action; a failed reading goes.
    if (this.positionFailed) this.error.textContent = '';
    this.positionFailed = false;
    const mover = info.side === 'black' ? 'b' : 'w';
    if (info.check) hl.check = kingSquare(map, mover);
    this.board.setHighlights(hl);
    this.board.setLegal(info.end ? [] : info.moves.map((m) => m.uci), mover);
    this.turnStatus.textContent = this.statusText(info, turn);
    this.turnStatus.dataset.side = info.side;
    this.turnStatus.dataset.phase = info.phase;
    this.engine.setPosition(info);
    for (const fn of this.listeners) {
      try { fn(info.fen, node); } catch (e) { console.error(e); }
    }
  }

  /** "White to play: sub-move 2 of 2 (after e4)", "Black to play, check", "Checkmate: White wins". */
  statusText(info, turn) {
    const side = colorName(info.side);
    if (info.end) {
      if (info.end === 'checkmate') return t('board.status_mate', { winner: colorName(info.side === 'white' ? 'black' : 'white') });
      return t('board.status_over', { reason: reasonText(info.end) });
    }
    let text;
    if (info.phase === 'single') text = t('board.status_single', { side });
    else if (info.phase === 'first') text = t('board.status_first', { side });
    else {
      const first = turn.items.length ? this.node().san : null;
      text = first ? t('board.status_second_after', { side, san: first }) : t('board.status_second', { side });
    }
    return info.check ? `${text} ${t('board.status_check')}` : text;
  }

  drawTree() {
    renderMoves(this.moves, this.tree, {
      current: this.path,
      marks: this.marks,
      go: (path) => this.go(path),
      showBest: (key) => this.showBest(key),
    });
    const atRoot = !this.path.length;
    this.deleteBtn.disabled = atRoot;
    const main = tree.onMainLine(this.tree, this.path);
    this.promoteBtn.disabled = main;
    this.mainBtn.disabled = main;
  }

  /** A sub-move from the board: into the tree (a new child, or the one already there). */
  async play(uci) {
    this.error.textContent = '';
    const node = this.node();
    const path = this.path;
    let info;
    try { info = await this.position(node.fen); } catch (err) { this.error.textContent = err.message; return; }
    const move = info.moves.find((m) => m.uci === uci);
    if (!move || this.path !== path) return;
    this.go(tree.addMove(this.tree, path, move));
  }

  /** Plays `ucis` one after the other from the position shown; false when one is not legal there. */
  async playSubmoves(ucis) {
    const list = Array.isArray(ucis) ? ucis : [];
    let path = this.path;
    let played = 0;
    for (const uci of list) {
      let info;
      try { info = await this.position(tree.nodeAt(this.tree, path).fen); } catch (_) { break; }
      const move = info.moves.find((m) => m.uci === uci);
      if (!move) break;
      path = tree.addMove(this.tree, path, move);
      played += 1;
    }
    await this.go(path);
    return played === list.length;
  }

  /** Plays the best turn of a judged mistake from the position before its turn, as a variation. */
  showBest(key) {
    const mark = this.marks.get(key);
    if (!mark || !Array.isArray(mark.best)) return;
    const path = tree.parseKey(key);
    const before = tree.turnAt(this.tree, path).items.length;
    this.path = path.slice(0, path.length - before);
    this.playSubmoves(mark.best);
  }

  promote(toMain) {
    const moved = toMain ? tree.makeMainLine(this.tree, this.path) : tree.promote(this.tree, this.path);
    if (moved) this.drawTree();
  }

  deleteHere() {
    const parent = tree.deleteAt(this.tree, this.path);
    if (!parent) return;
    for (const key of [...this.marks.keys()]) if (!tree.nodeAt(this.tree, tree.parseKey(key))) this.marks.delete(key);
    this.go(parent);
  }

  openComment() {
    this.commentText.value = this.node().comment || '';
    this.commentForm.hidden = false;
    this.commentBtn.setAttribute('aria-expanded', 'true');
    this.commentText.focus();
  }

  closeComment() {
    this.commentForm.hidden = true;
    this.commentBtn.setAttribute('aria-expanded', 'false');
  }

  saveComment() {
    tree.setComment(this.tree, this.path, this.commentText.value);
    this.closeComment();
    this.drawTree();
  }

  flip() {
    this.board.flip();
    this.bar.setOrientation(this.board.orientation);
    this.arrows.draw();
  }

  key(e) {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target.closest && e.target.closest('input, textarea, select, .board, .promotion, dialog')) return;
    const moves = {
      ArrowLeft: () => tree.previous(this.path),
      ArrowRight: () => tree.next(this.tree, this.path),
      ArrowUp: () => tree.sibling(this.tree, this.path, -1),
      ArrowDown: () => tree.sibling(this.tree, this.path, 1),
      Home: () => tree.first(),
      End: () => tree.last(this.tree, this.path),
    };
    if (!moves[e.key]) return;
    e.preventDefault();
    this.go(moves[e.key]());
  }

  /** A FEN from the box or the address: a new tree from it, once the server read it. */
  async loadFen(fen) {
    if (!fen) return false;
    this.error.textContent = '';
    try {
      const info = await this.position(fen);
      this.reset(info.fen);
      return true;
    } catch (err) {
      this.error.textContent = t('board.bad_fen', { error: err.message });
      return false;
    }
  }

  /** A comma PGN with variations and comments into the tree (POST /api/analysis/pgn). */
  async importPgn(text) {
    const pgn = String(text || '').trim();
    if (!pgn) { this.error.textContent = t('replay.paste_first'); return false; }
    try {
      const reply = await request('POST', '/api/analysis/pgn', { pgn });
      const read = tree.fromServer(reply.tree);
      if (!read) throw new Error(t('board.bad_reply'));
      this.tree = read;
      this.marks = new Map();
      this.error.textContent = '';
      this.go([]);
      return true;
    } catch (err) {
      const at = err.turn ? ` ${t('replay.at', { turn: err.turn, submove: err.submove })}` : '';
      this.error.textContent = `${t('replay.bad_pgn', { at })} ${err.serverMessage || err.message}`;
      return false;
    }
  }

  /** The tree as comma PGN with variations and comments (POST /api/analysis/pgn/export). */
  async exportPgn() {
    this.error.textContent = '';
    try {
      const { start_fen: startFen, tags, result, root } = this.tree;
      const reply = await request('POST', '/api/analysis/pgn/export', { tree: { start_fen: startFen, tags, result, root } });
      this.pgnOutput.value = reply.pgn;
      this.pgnOutput.hidden = false;
      this.main.querySelector('#pgn-copy').hidden = false;
      this.copyNote.textContent = '';
    } catch (err) {
      this.error.textContent = t('board.export_failed', { error: err.message });
    }
  }

  async copy(field) {
    try {
      await navigator.clipboard.writeText(field.value);
    } catch (_) {
      field.select();
      try { document.execCommand('copy'); } catch (__) { /* the text stays selected */ }
    }
    this.copyNote.textContent = t('board.copied');
  }

  /** A finished game: its PGN into the tree, then its analysis marks. */
  async openGame(id) {
    this.gameLink.href = `/game/${id}`;
    this.gameLink.hidden = false;
    let pgn;
    try {
      const res = await fetch(`/game/${encodeURIComponent(id)}.pgn`);
      if (!res.ok) throw new Error(res.status === 404 ? t('replay.no_game', { id }) : `HTTP ${res.status}`);
      pgn = await res.text();
    } catch (err) {
      this.error.textContent = t('replay.load_failed', { error: err.message });
      this.reset(START_FEN);
      return;
    }
    this.pgnInput.value = pgn;
    if (!await this.importPgn(pgn)) return;
    const review = new GameReview({
      id,
      tree: () => this.tree,
      onMarks: (marks) => { this.marks = marks; this.drawTree(); },
    });
    this.reviewSlot.replaceChildren(review.el);
    review.start();
  }
}
