// The board widget: draws a position, shows highlights, and turns clicks,
// drags (pointer events: mouse, pen and touch) and the keyboard into
// sub-moves chosen among the legal ones it is given. It knows no rules.

import { FILES, placement } from './fen.js';
import { pieceSvg, pieceName } from './pieces.js';
import { t } from './i18n.js';
import { setting, onSetting } from './settings.js';

const PROMOS = ['q', 'r', 'b', 'n'];

export class Board {
  /**
   * @param {HTMLElement} root where to draw
   * @param {{onMove?: (uci: string) => void, onCancel?: () => boolean}} options
   * `onCancel`: a right-click, a click on an empty square that is no destination, or Escape
   * (the premove queue's cancel); true when it cancelled something.
   */
  constructor(root, options = {}) {
    this.root = root;
    this.onMove = options.onMove || null;
    this.onCancel = options.onCancel || null;
    this.premoves = []; // queued premoves (UCI), drawn with their own highlight
    this.orientation = 'white';
    this.pieces = new Map();
    this.legal = [];
    this.mover = null; // 'w' | 'b': whose pieces may be picked
    // `goals`: squares a lesson's goal names (learn.js), ringed.
    this.highlights = { s1: null, s2: null, check: null, hint: null, goals: [] };
    this.selected = null;
    this.focus = 'e2';
    this.drag = null;
    this.promo = null;
    this.el = document.createElement('div');
    this.el.className = 'board';
    this.el.setAttribute('role', 'grid');
    this.el.setAttribute('aria-label', t('board.label'));
    this.squares = new Map();
    // A grid owns rows and rows own cells (ARIA): eight rank rows of eight
    // squares. `cells` keeps them in screen order, top left first.
    this.cells = [];
    for (let r = 0; r < 8; r += 1) {
      const row = document.createElement('div');
      row.className = 'rank';
      row.setAttribute('role', 'row');
      for (let c = 0; c < 8; c += 1) {
        const sq = document.createElement('div');
        sq.className = 'sq';
        sq.setAttribute('role', 'gridcell');
        sq.tabIndex = -1;
        row.appendChild(sq);
        this.cells.push(sq);
      }
      this.el.appendChild(row);
    }
    // The promotion picker is a dialog: it goes beside the grid, not in it.
    this.wrap = document.createElement('div');
    this.wrap.className = 'board-frame';
    this.wrap.appendChild(this.el);
    root.replaceChildren(this.wrap);
    this.el.addEventListener('pointerdown', (e) => this.pointerDown(e));
    this.el.addEventListener('pointermove', (e) => this.pointerMove(e));
    this.el.addEventListener('pointerup', (e) => this.pointerUp(e));
    this.el.addEventListener('pointercancel', () => this.cancelDrag());
    this.el.addEventListener('keydown', (e) => this.keyDown(e));
    this.el.addEventListener('contextmenu', (e) => {
      if (this.drag) e.preventDefault();
      if (this.cancel()) e.preventDefault();
    });
    this.layout();
    this.followSettings();
  }

  /**
   * Redraws when the `coordinates` or `legalDots` setting changes (the
   * theme is CSS variables: nothing to redraw). A board no longer in the
   * page stops listening.
   */
  followSettings() {
    const removers = [];
    const redraw = (relayout) => () => {
      if (!this.root.isConnected) {
        for (const remove of removers) remove();
        return;
      }
      if (relayout) this.layout();
      this.render();
    };
    removers.push(onSetting('coordinates', redraw(true)), onSetting('legalDots', redraw(false)));
  }

  /** Sets the position (FEN or placement map) and redraws. */
  setPosition(fenOrMap) {
    this.pieces = fenOrMap instanceof Map ? fenOrMap : placement(fenOrMap);
    this.render();
  }

  /** The sub-moves the user may play now and whose pieces they are (`w`/`b`), or none. */
  setLegal(legal, mover) {
    this.legal = legal || [];
    this.mover = mover;
    if (this.selected && !this.destinations(this.selected).length) this.selected = null;
    this.closePromotion();
    this.render();
  }

  /**
   * `{s1, s2}`: the last turn's sub-moves as UCI; `check`: a king's square; `hint`: the square
   * of the piece a puzzle's hint names.
   */
  setHighlights(h) {
    this.highlights = { s1: null, s2: null, check: null, hint: null, goals: [], ...h };
    this.render();
  }

  /** The queued premoves (UCI), shown with a highlight of their own. */
  setPremoves(list) {
    this.premoves = list || [];
    this.render();
  }

  /** Asks the owner to cancel its premove queue; true when something was cancelled. */
  cancel() {
    if (!this.onCancel || !this.onCancel()) return false;
    this.selected = null;
    this.render();
    return true;
  }

  flip() {
    this.setOrientation(this.orientation === 'white' ? 'black' : 'white');
  }

  setOrientation(side) {
    this.orientation = side === 'black' ? 'black' : 'white';
    this.layout();
    this.render();
  }

  /** Gives each grid cell its square for the current orientation (and its coordinate labels). */
  layout() {
    const coords = setting('coordinates');
    this.squares.clear();
    this.cells.forEach((cell, i) => {
      const row = Math.floor(i / 8);
      const col = i % 8;
      const file = this.orientation === 'white' ? col : 7 - col;
      const rank = this.orientation === 'white' ? 8 - row : row + 1;
      const name = FILES[file] + rank;
      cell.dataset.sq = name;
      cell.classList.toggle('light', (file + rank) % 2 === 0);
      cell.classList.toggle('dark', (file + rank) % 2 === 1);
      cell.dataset.file = coords && row === 7 ? FILES[file] : '';
      cell.dataset.rank = coords && col === 0 ? String(rank) : '';
      this.squares.set(name, cell);
    });
    this.el.querySelectorAll('.rank').forEach((row, i) => {
      const rank = this.orientation === 'white' ? 8 - i : i + 1;
      row.setAttribute('aria-label', t('board.rank', { rank }));
    });
  }

  destinations(from) {
    if (!from) return [];
    return [...new Set(this.legal.filter((u) => u.startsWith(from)).map((u) => u.slice(2, 4)))];
  }

  canPick(sq) {
    const p = this.pieces.get(sq);
    if (!p || !this.mover || !this.onMove) return false;
    const side = p === p.toUpperCase() ? 'w' : 'b';
    return side === this.mover && this.destinations(sq).length > 0;
  }

  render() {
    const dests = new Set(this.destinations(this.selected));
    const hl = this.highlights;
    const mark = (uci) => (uci ? [uci.slice(0, 2), uci.slice(2, 4)] : []);
    const s1 = new Set(mark(hl.s1));
    const s2 = new Set(mark(hl.s2));
    const goals = new Set(hl.goals || []);
    const preFrom = new Set(this.premoves.map((u) => u.slice(0, 2)));
    const preTo = new Set(this.premoves.map((u) => u.slice(2, 4)));
    // Without dots the squares keep their `dest` classes (and labels): only the marks go.
    this.el.classList.toggle('no-dots', !setting('legalDots'));
    for (const [name, cell] of this.squares) {
      const p = this.pieces.get(name);
      const html = p ? pieceSvg(p) : '';
      if (cell.dataset.piece !== (p || '')) {
        cell.innerHTML = html;
        cell.dataset.piece = p || '';
      }
      cell.classList.toggle('last1', s1.has(name));
      cell.classList.toggle('last2', s2.has(name));
      cell.classList.toggle('last1-to', !!hl.s1 && hl.s1.slice(2, 4) === name); // the "1" mark
      cell.classList.toggle('last2-to', !!hl.s2 && hl.s2.slice(2, 4) === name); // the "2" mark
      cell.classList.toggle('check', hl.check === name);
      cell.classList.toggle('hint', hl.hint === name);
      cell.classList.toggle('goal', goals.has(name));
      cell.classList.toggle('premove-from', preFrom.has(name));
      cell.classList.toggle('premove-to', preTo.has(name));
      cell.classList.toggle('selected', this.selected === name);
      cell.classList.toggle('dest', dests.has(name) && !p);
      cell.classList.toggle('dest-capture', dests.has(name) && !!p);
      cell.classList.toggle('movable', this.canPick(name));
      cell.classList.toggle('dragging-from', !!this.drag && this.drag.moved && this.drag.from === name);
      cell.tabIndex = name === this.focus ? 0 : -1;
      let label = `${name}, ${p ? pieceName(p) : t('board.empty')}`;
      if (this.selected === name) label += t('board.picked');
      if (dests.has(name)) label += t('board.legal_destination');
      if (preFrom.has(name) || preTo.has(name)) label += t('premove.square');
      if (hl.hint === name) label += t('board.hint_square');
      cell.setAttribute('aria-label', label);
    }
  }

  squareAt(x, y) {
    const r = this.el.getBoundingClientRect();
    if (x < r.left || y < r.top || x >= r.right || y >= r.bottom) return null;
    const col = Math.floor(((x - r.left) / r.width) * 8);
    const row = Math.floor(((y - r.top) / r.height) * 8);
    const cell = this.cells[row * 8 + col];
    return cell ? cell.dataset.sq : null;
  }

  /** A click (or Enter/Space) on a square: pick, move, or drop the pick. */
  activate(sq) {
    if (this.promo) return;
    if (this.selected && this.destinations(this.selected).includes(sq)) {
      this.tryMove(this.selected, sq);
      return;
    }
    if (this.selected === sq) this.selected = null;
    else this.selected = this.canPick(sq) ? sq : null;
    this.render();
  }

  tryMove(from, to) {
    const options = this.legal.filter((u) => u.slice(0, 4) === from + to);
    this.selected = null;
    if (!options.length) {
      this.render();
      return;
    }
    if (options.length === 1 && options[0].length === 4) {
      this.render();
      this.onMove(options[0]);
      return;
    }
    this.openPromotion(from, to, options.map((u) => u[4]).filter(Boolean));
  }

  openPromotion(from, to, letters) {
    this.closePromotion();
    const white = (this.pieces.get(from) || 'P') === 'P';
    const box = document.createElement('div');
    box.className = 'promotion';
    box.setAttribute('role', 'dialog');
    box.setAttribute('aria-label', t('board.promote_to'));
    // Opens on the promotion square, running toward the middle of the board.
    const file = to.charCodeAt(0) - 97;
    const rank = Number(to[1]);
    const col = this.orientation === 'white' ? file : 7 - file;
    const top = this.orientation === 'white' ? rank === 8 : rank === 1;
    box.classList.add('at-square', top ? 'from-top' : 'from-bottom');
    box.style.setProperty('--col', String(col));
    for (const letter of PROMOS.filter((l) => letters.includes(l))) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'promo-choice';
      b.id = `promo-${letter}`;
      const shown = white ? letter.toUpperCase() : letter;
      b.innerHTML = pieceSvg(shown);
      b.setAttribute('aria-label', t('board.promote_to_piece', { piece: t(`promo.${letter}`) }));
      b.addEventListener('click', () => {
        this.closePromotion();
        this.onMove(from + to + letter);
      });
      box.appendChild(b);
    }
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.className = 'promo-cancel';
    cancel.textContent = t('common.cancel');
    cancel.addEventListener('click', () => { this.closePromotion(); this.render(); });
    box.appendChild(cancel);
    box.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') { this.closePromotion(); this.render(); this.focusSquare(this.focus); }
      e.stopPropagation();
    });
    box.addEventListener('pointerdown', (e) => e.stopPropagation());
    this.wrap.appendChild(box);
    this.promo = box;
    box.querySelector('button').focus();
  }

  closePromotion() {
    if (this.promo) this.promo.remove();
    this.promo = null;
  }

  pointerDown(e) {
    if (e.button !== 0 || this.promo) return;
    const sq = this.squareAt(e.clientX, e.clientY);
    if (!sq) return;
    this.focus = sq;
    if (this.selected && this.selected !== sq && this.destinations(this.selected).includes(sq)) {
      e.preventDefault();
      this.tryMove(this.selected, sq);
      return;
    }
    if (!this.canPick(sq)) {
      this.selected = null;
      // A tap on an empty square cancels the premove queue.
      if (!this.pieces.get(sq) && this.cancel()) return;
      this.render();
      return;
    }
    e.preventDefault();
    const wasSelected = this.selected === sq;
    this.selected = sq;
    this.drag = { from: sq, x: e.clientX, y: e.clientY, moved: false, wasSelected, ghost: null, id: e.pointerId };
    try { this.el.setPointerCapture(e.pointerId); } catch (_) { /* synthetic pointers */ }
    this.render();
  }

  pointerMove(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.id) return;
    if (!d.moved && Math.hypot(e.clientX - d.x, e.clientY - d.y) < 4) return;
    if (!d.moved) {
      d.moved = true;
      const size = this.el.getBoundingClientRect().width / 8;
      d.ghost = document.createElement('div');
      d.ghost.className = 'ghost';
      d.ghost.style.width = `${size}px`;
      d.ghost.style.height = `${size}px`;
      d.ghost.innerHTML = pieceSvg(this.pieces.get(d.from));
      document.body.appendChild(d.ghost);
      this.render();
    }
    const size = parseFloat(d.ghost.style.width);
    d.ghost.style.transform = `translate(${e.clientX - size / 2}px, ${e.clientY - size / 2}px)`;
    const over = this.squareAt(e.clientX, e.clientY);
    for (const cell of this.squares.values()) cell.classList.toggle('hover', cell.dataset.sq === over);
  }

  pointerUp(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.id) return;
    this.cancelDrag();
    const sq = this.squareAt(e.clientX, e.clientY);
    if (d.moved) {
      if (sq && sq !== d.from && this.destinations(d.from).includes(sq)) this.tryMove(d.from, sq);
      else this.render();
    } else if (d.wasSelected && sq === d.from) {
      this.selected = null;
      this.render();
    }
  }

  cancelDrag() {
    if (!this.drag) return;
    if (this.drag.ghost) this.drag.ghost.remove();
    for (const cell of this.squares.values()) cell.classList.remove('hover');
    this.drag = null;
    this.render();
  }

  focusSquare(sq) {
    this.focus = sq;
    this.render();
    const cell = this.squares.get(sq);
    if (cell) cell.focus();
  }

  keyDown(e) {
    const cell = e.target.closest && e.target.closest('.sq');
    if (!cell) return;
    const sq = cell.dataset.sq;
    const idx = this.cells.indexOf(cell);
    let row = Math.floor(idx / 8);
    let col = idx % 8;
    switch (e.key) {
      case 'ArrowUp': row = Math.max(0, row - 1); break;
      case 'ArrowDown': row = Math.min(7, row + 1); break;
      case 'ArrowLeft': col = Math.max(0, col - 1); break;
      case 'ArrowRight': col = Math.min(7, col + 1); break;
      case 'Enter':
      case ' ':
        e.preventDefault();
        this.activate(sq);
        return;
      case 'Escape':
        this.selected = null;
        if (!this.cancel()) this.render();
        return;
      default:
        return;
    }
    e.preventDefault();
    e.stopPropagation();
    this.focusSquare(this.cells[row * 8 + col].dataset.sq);
  }
}
