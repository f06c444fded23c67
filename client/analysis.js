// "Analyse": the engine's evaluation and best turn for every position of a
// game, streamed by the server (POST /api/analysis for a pasted record, GET
// /api/games/{id}/analysis for a finished game; docs/protocol.md 2) as one
// JSON line per position. The panel draws an evaluation graph (inline SVG,
// White's advantage up, mates clamped to the top or bottom) that fills as
// lines arrive, writes each sub-move's evaluation next to it in the move
// list, and says the best turn of the position shown. A click on the graph,
// or on a row of its table (the graph's text alternative), shows that
// position through `onSelect(ply)`. No rule of the game is used here.

import { ApiError, h, reasonText, errorText } from './api.js';
import { t } from './i18n.js';

/** Longest line accepted from the stream (a line is a few hundred bytes). */
const MAX_LINE = 64 * 1024;
/** The graph's scale: ±10 pawns; mates and anything beyond sit on the edge. */
const CLAMP = 1000;
const W = 300;
const H = 100;
const SVG = 'http://www.w3.org/2000/svg';

/**
 * Fetches `url` and calls `onLine` with each NDJSON line as it arrives.
 * Throws an ApiError for an error reply (its JSON fields included), or if a
 * line grows past MAX_LINE without ending.
 */
export async function streamLines(url, init, onLine) {
  let res;
  try {
    res = await fetch(url, init);
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new ApiError(0, 'offline', t('error.offline'));
  }
  if (!res.ok) {
    let data = null;
    try { data = await res.json(); } catch (_) { data = null; }
    const { code = 'error', message = `HTTP ${res.status}`, ...extra } = data || {};
    throw new ApiError(res.status, code, message, extra);
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const flush = (text) => { if (text.trim()) onLine(JSON.parse(text)); };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      flush(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
    if (buffer.length > MAX_LINE) {
      reader.cancel().catch(() => {});
      throw new ApiError(0, 'bad_stream', t('analysis.line_too_long'));
    }
  }
  flush(buffer + decoder.decode());
}

/** "+0.31", "-1.20", "#3" (White mates in 3 sub-moves), "#-2", "#" (mate on the board). */
export function evalText(line) {
  if (!line || !line.score) return '';
  if (line.score.mate !== undefined) {
    const n = line.score.mate;
    if (n === 0) return '#';
    const whiteMates = (n > 0) === (line.side === 'white');
    return `#${whiteMates ? '' : '-'}${Math.abs(n)}`;
  }
  const pawns = line.white / 100;
  return `${pawns > 0 ? '+' : ''}${pawns.toFixed(2)}`;
}

/** Plain words for the position's evaluation, for the detail line and the table. */
function evalWords(line) {
  if (!line) return t('analysis.not_yet');
  if (line.end) return reasonText(line.end);
  if (line.score.mate !== undefined) {
    const n = line.score.mate;
    const white = (n > 0) === (line.side === 'white');
    return t(white ? 'analysis.white_mates' : 'analysis.black_mates', { n: Math.abs(n) });
  }
  return t('analysis.white_view', { eval: evalText(line) });
}

export class AnalysisPanel {
  /**
   * `source()` gives `{url, init}` of the request; `positions()` how many
   * positions the game has (sub-moves + 1); `onSelect(ply)` shows a position.
   */
  constructor({ source, positions, onSelect }) {
    this.source = source;
    this.positions = positions;
    this.onSelect = onSelect;
    this.lines = [];
    this.current = 0;
    this.controller = null;
    this.list = null;
    this.button = h('button', { type: 'button', id: 'btn-analyse', onclick: () => this.start() }, t('analysis.analyse'));
    this.status = h('p', { class: 'analysis-status', id: 'analysis-status', role: 'status', 'aria-live': 'polite' });
    this.svg = document.createElementNS(SVG, 'svg');
    this.svg.setAttribute('id', 'analysis-graph');
    this.svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    this.svg.setAttribute('role', 'img');
    this.svg.setAttribute('aria-labelledby', 'analysis-graph-title');
    this.svg.addEventListener('click', (e) => this.clickGraph(e));
    this.detail = h('p', { class: 'analysis-detail', id: 'analysis-detail' });
    this.table = h('tbody', {});
    this.tableWrap = h('details', { class: 'analysis-table', id: 'analysis-table' },
      h('summary', {}, t('analysis.table')),
      h('table', {},
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('analysis.col_position')), h('th', { scope: 'col' }, t('analysis.col_eval')), h('th', { scope: 'col' }, t('analysis.col_best')), h('th', { scope: 'col' }, t('analysis.col_depth')))),
        this.table));
    this.body = h('div', { class: 'analysis-body', hidden: true }, this.svg, this.detail, this.tableWrap);
    this.el = h('section', { class: 'analysis', id: 'analysis', 'aria-label': t('analysis.label') },
      h('div', { class: 'row' }, this.button, this.status), this.body);
    this.draw();
  }

  /** Starts (or restarts) the analysis. */
  async start() {
    this.stop();
    this.lines = [];
    this.table.replaceChildren();
    this.body.hidden = false;
    this.button.disabled = true;
    this.status.textContent = t('analysis.running');
    this.draw();
    const controller = new AbortController();
    this.controller = controller;
    const { url, init } = this.source();
    try {
      await streamLines(url, { ...init, signal: controller.signal }, (line) => this.receive(line));
      if (this.controller === controller && !this.finished) this.status.textContent = t('analysis.stopped_early');
    } catch (err) {
      if (err && err.name === 'AbortError') return;
      const at = err.turn ? ` ${t('replay.at', { turn: err.turn, submove: err.submove })}` : '';
      const wait = err.status === 429 || err.status === 503 ? ` ${t('analysis.try_later')}` : '';
      this.status.textContent = `${t('analysis.failed', { at, error: err.message })}${wait}`;
    } finally {
      if (this.controller === controller) {
        this.controller = null;
        this.button.disabled = false;
        this.button.textContent = t('analysis.again');
      }
    }
  }

  /** Stops a running analysis (the server stops its search when the stream closes). */
  stop() {
    if (this.controller) this.controller.abort();
    this.controller = null;
    this.finished = false;
  }

  receive(line) {
    if (line.done) {
      this.finished = true;
      this.status.textContent = t('analysis.done', { n: line.positions });
      return;
    }
    if (line.error) {
      this.finished = true;
      this.status.textContent = t('analysis.stopped', { error: errorText(line.error.code, line.error.message) });
      return;
    }
    if (!Number.isInteger(line.ply) || line.ply < 0 || line.ply > 100000) return;
    this.lines[line.ply] = line;
    this.status.textContent = t('analysis.progress', { done: this.lines.filter(Boolean).length, n: this.positions() });
    this.addRow(line);
    this.draw();
    this.decorate();
  }

  addRow(line) {
    const label = line.ply === 0 ? t('game.nav_start') : t('analysis.after', { ply: line.ply });
    this.table.append(h('tr', {},
      h('th', { scope: 'row' }, h('button', { type: 'button', class: 'linkish', onclick: () => this.onSelect(line.ply) }, label)),
      h('td', {}, evalWords(line)),
      h('td', {}, line.best_san.join(',') || '—'),
      h('td', {}, line.depth ? String(line.depth) : '—')));
  }

  x(ply) { return (ply / Math.max(1, this.positions() - 1)) * W; }

  y(line) { return H / 2 - (Math.max(-CLAMP, Math.min(CLAMP, line.white)) / CLAMP) * (H / 2); }

  draw() {
    const done = this.lines.filter(Boolean);
    const title = document.createElementNS(SVG, 'title');
    title.setAttribute('id', 'analysis-graph-title');
    title.textContent = t('analysis.graph_title', { done: done.length, n: this.positions() });
    const axis = document.createElementNS(SVG, 'line');
    Object.entries({ x1: 0, y1: H / 2, x2: W, y2: H / 2, class: 'axis' }).forEach(([k, v]) => axis.setAttribute(k, v));
    const path = document.createElementNS(SVG, 'polyline');
    path.setAttribute('points', done.map((l) => `${this.x(l.ply).toFixed(1)},${this.y(l).toFixed(1)}`).join(' '));
    path.setAttribute('class', 'curve');
    const points = done.map((l) => {
      const c = document.createElementNS(SVG, 'circle');
      Object.entries({ cx: this.x(l.ply).toFixed(1), cy: this.y(l).toFixed(1), r: l.ply === this.current ? 3.5 : 2, 'data-ply': l.ply, class: l.ply === this.current ? 'current' : '' })
        .forEach(([k, v]) => c.setAttribute(k, v));
      return c;
    });
    this.svg.replaceChildren(title, axis, path, ...points);
    this.svg.dataset.points = String(done.length);
    this.showDetail();
  }

  clickGraph(e) {
    const box = this.svg.getBoundingClientRect();
    if (!box.width) return;
    const ply = Math.round(((e.clientX - box.left) / box.width) * Math.max(1, this.positions() - 1));
    this.onSelect(Math.max(0, Math.min(this.positions() - 1, ply)));
  }

  /**
   * Writes each sub-move's evaluation (of the position after it) on its
   * button in `list` (`button.mv[data-index]`), and follows the position
   * the page shows (the `.current` button, else the `.latest`, else the
   * start). The page re-renders its list freely: a MutationObserver puts
   * the marks back.
   */
  watch(list) {
    this.list = list;
    this.observer = new MutationObserver(() => this.decorate());
    this.observer.observe(list, { childList: true });
    this.decorate();
  }

  /** Stops the analysis and leaves the move list alone (a new record replaces this one). */
  dispose() {
    this.stop();
    if (this.observer) this.observer.disconnect();
    if (this.list) for (const b of this.list.querySelectorAll('button.mv[data-eval]')) { delete b.dataset.eval; b.removeAttribute('title'); }
    this.list = null;
    this.el.remove();
  }

  decorate() {
    if (!this.list) return;
    let shown = 0;
    for (const b of this.list.querySelectorAll('button.mv[data-index]')) {
      const index = Number(b.dataset.index);
      const line = this.lines[index + 1];
      if (line) b.dataset.eval = evalText(line);
      // The best turn of the position this sub-move was played from.
      const before = this.lines[index];
      if (line && before) b.title = t('analysis.move_title', { eval: evalWords(line), best: before.best_san.join(',') || '—' });
      if (b.classList.contains('current') || b.classList.contains('latest')) shown = index + 1;
    }
    if (shown !== this.current) {
      this.current = shown;
      this.draw();
    }
  }

  /** The position shown: its evaluation and best turn. */
  showDetail() {
    if (!this.lines.length) { this.detail.textContent = ''; return; }
    const line = this.lines[this.current];
    const where = this.current === 0 ? t('analysis.start_position') : t('analysis.after', { ply: this.current });
    const best = line && line.best_san.length ? ` · ${t('analysis.best', { best: line.best_san.join(',') })}` : '';
    const depth = line && line.depth ? ` · ${t('analysis.depth', { depth: line.depth })}` : '';
    this.detail.textContent = `${where}: ${evalWords(line)}${best}${depth}`;
  }
}
