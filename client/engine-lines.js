// The analysis board's engine panel and evaluation bar: the server's best
// turns for the position shown (POST /api/analysis/lines, docs/protocol.md
// "Analysis board"), 1 to 5 of them (multi-PV), streamed as NDJSON, one
// reading per completed depth, drawn as they come. A new position aborts the
// request in flight (AbortController: the server stops that search when the
// connection closes) before the next one starts; the server also lets the
// newest request of a client win. "Threat" asks what the opponent would play
// if it were their turn (only at a turn start, not in check: the page says
// why otherwise). Nothing here knows the rules: the turns, SAN and scores are
// the server's.

import { h, reasonText, errorText } from './api.js';
import { t, number } from './i18n.js';
import { streamLines } from './analysis.js';

/** `{on, multipv}` kept in this browser. */
const KEPT = 'marseillais.analysis.engine';
export const MAX_PV = 5;

function kept() {
  try {
    const v = JSON.parse(localStorage.getItem(KEPT) || '{}');
    const multipv = Number.isInteger(v.multipv) && v.multipv >= 1 && v.multipv <= MAX_PV ? v.multipv : 1;
    return { on: v.on === true, multipv };
  } catch (_) {
    return { on: false, multipv: 1 };
  }
}

/** "+0.31", "-1.20" from White's side; "#3" White mates in 3 sub-moves, "#-2" Black does. */
export function scoreText(line) {
  if (!line || !line.score) return '';
  if (line.score.mate !== undefined) return `#${line.white < 0 ? '-' : ''}${Math.abs(line.score.mate)}`;
  const pawns = (Number(line.white) || 0) / 100;
  return `${pawns > 0 ? '+' : ''}${pawns.toFixed(2)}`;
}

/** White's winning chances in percent from the `white` number (lichess's curve; a mate is 100 or 0). */
export function whiteShare(white) {
  if (white === null || white === undefined) return 50;
  if (Math.abs(white) >= 9000) return white > 0 ? 100 : 0;
  const chances = 2 / (1 + Math.exp(-0.00368208 * white)) - 1;
  return 50 + 50 * Math.max(-1, Math.min(1, chances));
}

/** The evaluation bar beside the board: White's share from the bottom (the top when the board is flipped). */
export class EvalBar {
  constructor() {
    this.fill = h('div', { class: 'eval-fill' });
    this.label = h('span', { class: 'eval-label', id: 'eval-label' });
    this.el = h('div', { class: 'eval-bar', id: 'eval-bar', role: 'img', 'aria-label': t('board.eval_none') }, this.fill, this.label);
    this.set(null);
  }

  /** `white`: the number from White's side, `text` its words ("+0.31"); null: no evaluation. */
  set(white, text = '') {
    const share = whiteShare(white);
    this.fill.style.height = `${share.toFixed(1)}%`;
    this.label.textContent = text;
    this.el.classList.toggle('empty', white === null || white === undefined);
    this.el.dataset.white = white === null || white === undefined ? '' : String(white);
    this.el.setAttribute('aria-label', text ? t('board.eval_bar', { eval: text }) : t('board.eval_none'));
  }

  setOrientation(side) {
    this.el.classList.toggle('flipped', side === 'black');
  }
}

export class EnginePanel {
  /**
   * `onPlay(ucis)`: plays a line's turn on the board; `onArrows(ucis, kind)`: the best turn
   * to draw (`best` or `threat`), none to clear; `bar`: the EvalBar to keep up to date.
   */
  constructor({ onPlay, onArrows, bar }) {
    this.onPlay = onPlay;
    this.onArrows = onArrows;
    this.bar = bar;
    const k = kept();
    this.on = k.on;
    this.multipv = k.multipv;
    this.threat = false;
    this.position = null;
    this.controller = null;
    this.toggle = h('button', { type: 'button', id: 'engine-toggle', class: 'engine-toggle', 'aria-pressed': String(this.on), onclick: () => this.setOn(!this.on) }, t('board.engine'));
    this.pvSelect = h('select', { id: 'engine-multipv', 'aria-label': t('board.multipv'), onchange: () => this.setMultipv(Number(this.pvSelect.value)) },
      ...Array.from({ length: MAX_PV }, (_, i) => h('option', { value: String(i + 1) }, t('board.lines_n', { n: i + 1 }))));
    this.pvSelect.value = String(this.multipv);
    this.threatBtn = h('button', { type: 'button', id: 'engine-threat', 'aria-pressed': 'false', title: t('board.threat_help'), onclick: () => this.setThreat(!this.threat) }, t('board.threat'));
    this.status = h('span', { class: 'engine-status', id: 'engine-status', role: 'status' });
    this.list = h('ol', { class: 'engine-lines', id: 'engine-lines' });
    this.note = h('p', { class: 'engine-note', id: 'engine-note' });
    this.el = h('section', { class: 'engine-panel', id: 'engine-panel', 'aria-label': t('board.engine_label') },
      h('div', { class: 'engine-head' }, this.toggle, this.pvSelect, this.threatBtn, this.status),
      this.note, this.list);
    this.drawIdle();
  }

  setOn(on) {
    this.on = on;
    this.keep();
    this.toggle.setAttribute('aria-pressed', String(on));
    this.restart();
  }

  setMultipv(n) {
    this.multipv = Math.max(1, Math.min(MAX_PV, n || 1));
    this.keep();
    this.restart();
  }

  setThreat(on) {
    this.threat = on;
    this.threatBtn.setAttribute('aria-pressed', String(on));
    this.restart();
  }

  keep() {
    try { localStorage.setItem(KEPT, JSON.stringify({ on: this.on, multipv: this.multipv })); } catch (_) { /* private mode */ }
  }

  /** The position shown changed (`{fen, side, phase, check, end}` of POST /api/analysis/position). */
  setPosition(position) {
    this.position = position;
    this.restart();
  }

  /** Whether a threat may be asked here: a turn start, not in check, the game not over. */
  threatAllowed() {
    const p = this.position;
    return !!p && !p.end && !p.check && p.phase !== 'second';
  }

  stop() {
    if (this.controller) this.controller.abort();
    this.controller = null;
  }

  drawIdle() {
    this.list.replaceChildren();
    this.status.textContent = '';
    this.note.textContent = '';
    this.onArrows([], 'best');
    this.bar.set(null);
  }

  restart() {
    this.stop();
    const p = this.position;
    this.threatBtn.disabled = !this.on || !this.threatAllowed();
    this.pvSelect.disabled = !this.on;
    this.el.classList.toggle('off', !this.on);
    this.drawIdle();
    if (!this.on) { this.status.textContent = t('board.engine_off'); return; }
    if (!p) return;
    if (p.end) {
      this.note.textContent = reasonText(p.end);
      if (p.end === 'checkmate') this.bar.set(p.side === 'white' ? -10000 : 10000, p.side === 'white' ? '0-1' : '1-0');
      else this.bar.set(0, '½');
      return;
    }
    const threat = this.threat && this.threatAllowed();
    if (this.threat && !threat) this.note.textContent = t('board.threat_unavailable');
    this.run(p.fen, threat);
  }

  async run(fen, threat) {
    const controller = new AbortController();
    this.controller = controller;
    this.status.textContent = t('board.engine_starting');
    const init = {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ fen, multipv: this.multipv, threat }),
      signal: controller.signal,
    };
    try {
      await streamLines('/api/analysis/lines', init, (reading) => {
        if (this.controller === controller) this.receive(reading, threat);
      });
    } catch (err) {
      if ((err && err.name === 'AbortError') || this.controller !== controller) return;
      const wait = err.status === 429 || err.status === 503 ? ` ${t('analysis.try_later')}` : '';
      this.status.textContent = `${t('board.engine_failed', { error: err.message })}${wait}`;
    } finally {
      if (this.controller === controller) this.controller = null;
    }
  }

  receive(reading, threat) {
    if (reading.error) {
      this.status.textContent = t('board.engine_failed', { error: errorText(reading.error.code, reading.error.message) });
      return;
    }
    const depth = Number(reading.depth) || 0;
    const nodes = Number(reading.nodes) || 0;
    if (reading.done) {
      this.status.textContent = t('board.engine_done', { depth, nodes: number(nodes) });
      this.el.dataset.done = 'true';
      return;
    }
    if (!Array.isArray(reading.lines)) return;
    this.el.dataset.done = '';
    this.el.dataset.depth = String(depth);
    this.status.textContent = t('board.engine_depth', { depth, nodes: number(nodes) });
    const lines = reading.lines.slice(0, MAX_PV);
    this.list.replaceChildren(...lines.map((line, i) => this.lineItem(line, i, threat)));
    const best = lines[0];
    this.onArrows(best && Array.isArray(best.turn) ? best.turn : [], threat ? 'threat' : 'best');
    if (!threat && best) this.bar.set(best.white, scoreText(best));
  }

  lineItem(line, i, threat) {
    const turn = Array.isArray(line.turn) ? line.turn : [];
    const san = Array.isArray(line.san) ? line.san : turn;
    const rest = Array.isArray(line.pv_san) ? line.pv_san.slice(san.length) : [];
    const score = scoreText(line);
    const item = h('li', { class: `engine-line${threat ? ' threat' : ''}`, 'data-turn': turn.join(',') },
      h('span', { class: `engine-score${line.white < 0 ? ' black' : ''}` }, score),
      h('button', {
        type: 'button', class: 'engine-turn', id: `engine-line-${i + 1}`,
        title: threat ? t('board.threat_line') : t('board.play_line'),
        disabled: threat,
        onclick: () => this.onPlay(turn),
      }, san.join(',')),
      h('span', { class: 'engine-pv' }, rest.join(' ')));
    return item;
  }
}
