// The replay page (`/replay`): paste a comma PGN or an extended FEN; the
// server validates it (POST /api/replay) and returns every position, which
// this page steps through with buttons and the arrow keys. A bad record is
// shown as far as it replays, on the position where it stops.
// `/replay?game={id}` loads a game of this server (its PGN export); a record
// in the address's hash is loaded too, and `?analyse=1` starts its analysis.

import { request, h, colorName, reasonText } from './api.js';
import { t } from './i18n.js';
import { Board } from './board.js';
import { placement, kingSquare } from './fen.js';
import { AnalysisPanel } from './analysis.js';
import { analysePgn } from './board-page.js';

const SAMPLE = '1. e4 e5,Nc6 2. Qh5,Nf3 g6,gxh5';
const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

export function replayPage(main) {
  const text = h('textarea', { id: 'replay-input', rows: '6', spellcheck: false, placeholder: t('replay.placeholder', { sample: SAMPLE }), 'aria-label': t('replay.input_label') });
  const error = h('div', { class: 'error', id: 'replay-error', role: 'alert' });
  const summary = h('p', { class: 'summary', id: 'replay-summary' });
  const boardWrap = h('div', { class: 'board-wrap', id: 'board' });
  const list = h('ol', { class: 'movelist', id: 'movelist' });
  const where = h('p', { class: 'review-note', id: 'replay-where' });
  const analysisSlot = h('div', { id: 'analysis-slot' });
  // "Analysis board": the record loaded, on the free board (a game of this server by its id,
  // a FEN in the address, a PGN handed over in sessionStorage).
  const boardLink = h('a', { class: 'button', id: 'replay-board', href: '/analysis', hidden: true }, t('board.open_board'));
  const gameId = new URLSearchParams(location.search).get('game');
  let loadedGame = null; // the text of that game's PGN once fetched
  let data = null;
  let index = 0;
  let analysis = null;

  /** The "Analyse" panel of a record that replayed: the same body, sent to /api/analysis. */
  const offerAnalysis = (body) => {
    if (analysis) analysis.dispose();
    analysis = null;
    if (!body) return;
    const positions = data.moves.length + 1;
    analysis = new AnalysisPanel({
      source: () => ({ url: '/api/analysis', init: { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } }),
      positions: () => positions,
      onSelect: (ply) => go(ply),
    });
    analysisSlot.replaceChildren(analysis.el);
    analysis.watch(list);
  };

  const load = async () => {
    error.textContent = '';
    const value = text.value.trim();
    if (!value) { error.textContent = t('replay.paste_first'); return; }
    const looksFen = /^[1-8pnbrqkPNBRQK]+(\/[1-8pnbrqkPNBRQK]+){7}\s/.test(value);
    const body = looksFen ? { fen: value } : { pgn: value };
    try {
      data = await request('POST', '/api/replay', body);
      index = data.moves.length;
      offerAnalysis(body);
      if (looksFen) boardLink.href = `/analysis?fen=${encodeURIComponent(value)}`;
      else if (gameId && /^[0-9A-Za-z]{1,32}$/.test(gameId) && value === loadedGame) boardLink.href = `/analysis?game=${gameId}`;
      else boardLink.href = analysePgn(value);
      boardLink.hidden = false;
      const tag = (name) => (data.tags.find(([n]) => n === name) || [])[1];
      const players = tag('White') && tag('White') !== '?' ? `${tag('White')} – ${tag('Black')} · ` : '';
      summary.textContent = `${players}${t('replay.summary', { n: data.moves.length, result: data.result })}${data.reason ? ` (${reasonText(data.reason)})` : ''}`;
      show();
      return true;
    } catch (err) {
      offerAnalysis(null);
      boardLink.hidden = true;
      const at = err.turn ? ` ${t('replay.at', { turn: err.turn, submove: err.submove })}` : '';
      // The server's own words say which sub-move and why (they quote the record): kept as they are.
      error.replaceChildren(h('strong', {}, t(looksFen ? 'replay.bad_fen' : 'replay.bad_pgn', { at })), h('br'), err.serverMessage || err.message);
      // The record as far as it replays (the server sends it with a move
      // error): the board shows the position where it stops.
      data = err.game && Array.isArray(err.game.moves) ? err.game : null;
      if (data) {
        index = data.moves.length;
        summary.textContent = t('replay.up_to_error', { n: data.moves.length });
        show();
      } else {
        summary.textContent = '';
        list.replaceChildren();
        where.textContent = '';
        board.setHighlights({});
        board.setPosition(placement(START_FEN));
      }
      return false;
    }
  };

  const show = () => {
    if (!data) return;
    const fen = index === 0 ? data.start_fen : data.moves[index - 1].fen;
    const map = placement(fen);
    board.setPosition(map);
    const cur = data.moves[index - 1];
    const hl = {};
    if (cur) {
      const turn = data.turns.find((t) => t.moves.includes(index - 1));
      const upto = turn.moves.filter((i) => i < index);
      // A turn taken up at S2 (a record from a FEN with phase 2) has only its second sub-move.
      const marks = turn.starts_at_second ? ['s2'] : ['s1', 's2'];
      upto.forEach((i, k) => { if (marks[k]) hl[marks[k]] = data.moves[i].uci; });
      if (/[+#]$/.test(cur.san)) hl.check = kingSquare(map, cur.color === 'white' ? 'b' : 'w');
    }
    board.setHighlights(hl);
    renderList();
    where.textContent = cur
      ? t('replay.where', { turn: cur.turn, color: colorName(cur.color).toLowerCase(), submove: cur.submove, san: cur.san, fen })
      : t('replay.where_start', { fen });
  };

  const renderList = () => {
    // The server's turns (number, colour, sub-moves): nothing is regrouped here.
    const turns = data.turns.map((t) => ({
      number: t.number, color: t.color, leadingComma: !!t.starts_at_second,
      items: t.moves.map((i) => ({ index: i, san: data.moves[i].san })),
    }));
    const rows = [];
    let row = null;
    for (const t of turns) {
      if (t.color === 'white' || !row) { row = { number: t.number }; rows.push(row); }
      row[t.color] = t;
    }
    const cell = (t, colour) => {
      if (!t) return h('span', { class: `turn ${colour} empty` }, colour === 'white' ? '…' : '');
      const parts = t.leadingComma ? [','] : [];
      t.items.forEach((m, i) => {
        if (i) parts.push(',');
        parts.push(h('button', { type: 'button', class: `mv${m.index + 1 === index ? ' current' : ''}`, 'data-index': String(m.index), onclick: () => go(m.index + 1) }, m.san));
      });
      return h('span', { class: `turn ${colour}` }, parts);
    };
    list.replaceChildren(...rows.map((r) => h('li', {}, h('span', { class: 'num' }, `${r.number}.`), cell(r.white, 'white'), cell(r.black, 'black'))));
  };

  const go = (i) => {
    if (!data) return;
    index = Math.max(0, Math.min(data.moves.length, i));
    show();
  };

  const nav = h('div', { class: 'review-nav' },
    h('button', { type: 'button', id: 'nav-first', 'aria-label': t('game.nav_start'), onclick: () => go(0) }, '«'),
    h('button', { type: 'button', id: 'nav-prev', 'aria-label': t('game.nav_prev_label'), onclick: () => go(index - 1) }, '‹'),
    h('button', { type: 'button', id: 'nav-next', 'aria-label': t('game.nav_next_label'), onclick: () => go(index + 1) }, '›'),
    h('button', { type: 'button', id: 'nav-last', 'aria-label': t('replay.end'), onclick: () => go(Infinity) }, '»'),
    h('button', { type: 'button', id: 'btn-flip', onclick: () => board.flip() }, t('replay.flip')));

  main.replaceChildren(h('div', { class: 'game replay' },
    h('div', { class: 'board-col' }, boardWrap, nav),
    h('aside', { class: 'side panel' },
      h('h2', {}, t('replay.heading')),
      h('form', { id: 'replay-form', onsubmit: (e) => { e.preventDefault(); load(); } },
        text,
        h('div', { class: 'row' },
          h('button', { type: 'submit', class: 'primary', id: 'replay-load' }, t('replay.load')),
          h('button', { type: 'button', id: 'replay-example', onclick: () => { text.value = SAMPLE; load(); } }, t('replay.example')),
          boardLink)),
      error, summary, list, where, analysisSlot)));
  const board = new Board(boardWrap, {});
  board.setPosition(placement(START_FEN));
  document.addEventListener('keydown', (e) => {
    if (e.target.closest && e.target.closest('input, textarea')) return;
    if (e.key === 'ArrowLeft') { go(index - 1); e.preventDefault(); }
    if (e.key === 'ArrowRight') { go(index + 1); e.preventDefault(); }
    if (e.key === 'Home') { go(0); e.preventDefault(); }
    if (e.key === 'End') { go(Infinity); e.preventDefault(); }
  });
  const game = gameId;
  const fromHash = decodeURIComponent(location.hash.slice(1));
  if (game && /^[0-9A-Za-z]{1,32}$/.test(game)) loadGame(game);
  else if (fromHash) {
    text.value = fromHash;
    // `?analyse=1` (a puzzle's "Analyse"): the engine starts on the record at once.
    load().then((ok) => { if (ok && analysis && new URLSearchParams(location.search).has('analyse')) analysis.start(); });
  }

  /** Loads a game of this server by its id, through its PGN export. */
  async function loadGame(id) {
    try {
      const res = await fetch(`/game/${id}.pgn`);
      if (!res.ok) throw new Error(res.status === 404 ? t('replay.no_game', { id }) : `HTTP ${res.status}`);
      text.value = await res.text();
      loadedGame = text.value.trim();
      load();
    } catch (err) {
      error.textContent = t('replay.load_failed', { error: err.message });
    }
  }
}
