// The puzzle trainer (`/puzzles`, `/puzzles?theme=KEY`, `/puzzles/{id}`), as
// lichess's but for the double move. The board is shown from the solver's
// side; the opponent's last turn (the one that made the chance) is played
// from the puzzle's `fen` to its `start_fen`, one sub-move at a time; then
// the player finds the best turn, sub-move by sub-move.
//
// The page has no rules (puzzle-line.js offers the sub-moves a piece could
// try): every sub-move is posted to `/api/puzzles/{id}/moves` with all the
// solver's sub-moves so far, and the server's verdict decides: `continue`
// (the same turn goes on: its second sub-move), `reply` (the opponent's turn,
// played on the board, then the player's next turn), `solved`, or `wrong`
// (the right sub-move, `expected`, is shown in its place and the puzzle is
// failed). A sub-move the server refuses (400: not legal here) is taken back
// and is no mistake. Hint (`/hint`: the square of the piece to move) and
// "View the solution" (`/solution`) count as a failed first try on the
// server. At the end: the solution, a step through it, the rating change of a
// rated round, "Next puzzle", "Analyse" (the analysis board on the line,
// `/analysis?import=1`) and the source game when there is one.
//
// Anonymous players are unrated: the last puzzle seen is kept in
// `localStorage` and sent as `after` (the server gives the one after it), and
// the outcome of each puzzle played here too, so the page can say "already
// solved".

import { request, h, ratingText, diffText, colorName } from './api.js';
import { t } from './i18n.js';
import { Board } from './board.js';
import { placement, applyUci } from './fen.js';
import { candidates, sanTurns, linePgn } from './puzzle-line.js';
import { themeName, themeLink, themeUrl } from './puzzle-themes.js';
import { announce, describeSubMove } from './announce.js';
import { setTitle } from './notify.js';
import { analysePgn } from './board-page.js';

/** The last puzzle this browser was shown (sent as `after`). */
const LAST_KEY = 'marseillais.puzzle.last';
/** `{id: 'solved' | 'failed'}`, the puzzles played in this browser (oldest dropped first). */
const DONE_KEY = 'marseillais.puzzle.done';
const DONE_MAX = 2000;
/** The pause before each sub-move played for the player (the intro, a reply, the solution). */
const STEP_MS = 450;

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
const reducedMotion = () => typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;

function stored(key) {
  try { return localStorage.getItem(key); } catch (_) { return null; }
}

/** The puzzles played in this browser: `{id: 'solved' | 'failed'}`. */
export function playedHere() {
  try {
    const map = JSON.parse(stored(DONE_KEY) || '{}');
    return map && typeof map === 'object' && !Array.isArray(map) ? map : {};
  } catch (_) {
    return {};
  }
}

/** Keeps a puzzle's outcome (solved once stays solved), the oldest dropped past DONE_MAX. */
function rememberOutcome(id, solved) {
  const map = playedHere();
  if (map[id] === 'solved') return;
  delete map[id];
  map[id] = solved ? 'solved' : 'failed';
  const ids = Object.keys(map);
  for (const old of ids.slice(0, Math.max(0, ids.length - DONE_MAX))) delete map[old];
  try { localStorage.setItem(DONE_KEY, JSON.stringify(map)); } catch (_) { /* private mode */ }
}

export function puzzlePage(main, id, mePromise = Promise.resolve(null)) {
  const page = new Trainer(main, mePromise);
  page.open(id);
}

class Trainer {
  constructor(main, mePromise) {
    this.main = main;
    this.mePromise = mePromise;
    const theme = new URLSearchParams(location.search).get('theme');
    this.theme = theme && /^[A-Za-z0-9]{1,40}$/.test(theme) ? theme : null;
    this.gen = 0; // which puzzle is shown: a late answer or step for an earlier one is dropped
    this.build();
  }

  build() {
    this.title = h('h2', { id: 'puzzle-title' }, this.theme ? themeName(this.theme) : t('puzzle.title'));
    this.status = h('p', { class: 'status', id: 'puzzle-status', role: 'status' }, t('page.loading'));
    this.feedback = h('p', { class: 'puzzle-feedback', id: 'puzzle-feedback', 'aria-live': 'polite' });
    this.roundBox = h('p', { class: 'puzzle-round', id: 'puzzle-round', hidden: true });
    this.hintBtn = h('button', { type: 'button', id: 'puzzle-hint', onclick: () => this.hint() }, t('puzzle.hint'));
    this.solutionBtn = h('button', { type: 'button', id: 'puzzle-view-solution', onclick: () => this.viewSolution() }, t('puzzle.view_solution'));
    this.playActions = h('div', { class: 'actions', id: 'puzzle-play-actions', hidden: true }, this.hintBtn, this.solutionBtn);
    this.nextBtn = h('button', { type: 'button', id: 'puzzle-next', class: 'primary', onclick: () => this.next() }, t('puzzle.next'));
    this.analyseLink = h('a', { class: 'button', id: 'puzzle-analyse', href: '/analysis' }, t('puzzle.analyse'));
    this.gameLink = h('a', { class: 'button', id: 'puzzle-game', href: '/', hidden: true }, t('puzzle.source_game'));
    this.endActions = h('div', { class: 'actions', id: 'puzzle-end-actions', hidden: true }, this.nextBtn, this.analyseLink, this.gameLink);
    this.solution = h('ol', { class: 'puzzle-solution', id: 'puzzle-solution', 'aria-label': t('puzzle.solution') });
    this.solutionBox = h('section', { class: 'puzzle-solution-box', hidden: true },
      h('h3', {}, t('puzzle.solution')), this.solution);
    this.before = h('p', { class: 'note', id: 'puzzle-before' });
    this.player = h('p', { class: 'summary', id: 'puzzle-player' });
    this.info = h('div', { class: 'puzzle-info', id: 'puzzle-info' });
    const boardWrap = h('div', { class: 'board-wrap', id: 'board' });
    this.nav = h('div', { class: 'review-nav', id: 'puzzle-nav', hidden: true },
      h('button', { type: 'button', id: 'nav-first', 'aria-label': t('game.nav_start'), onclick: () => this.showAt(0) }, '«'),
      h('button', { type: 'button', id: 'nav-prev', 'aria-label': t('game.nav_prev_label'), onclick: () => this.showAt(this.view - 1) }, '‹'),
      h('button', { type: 'button', id: 'nav-next', 'aria-label': t('game.nav_next_label'), onclick: () => this.showAt(this.view + 1) }, '›'),
      h('button', { type: 'button', id: 'nav-last', 'aria-label': t('replay.end'), onclick: () => this.showAt(Infinity) }, '»'));
    this.main.replaceChildren(h('div', { class: 'game puzzle' },
      h('div', { class: 'board-col' }, boardWrap, this.nav),
      h('aside', { class: 'side panel' },
        this.title, this.status, this.feedback, this.roundBox, this.playActions, this.endActions,
        this.solutionBox, this.before, this.player, this.info,
        h('p', { class: 'summary' }, h('a', { href: '/puzzles/themes', id: 'puzzle-themes-link' }, t('puzzle.themes_title'))))));
    this.board = new Board(boardWrap, { onMove: (uci) => this.move(uci) });
    document.addEventListener('keydown', (e) => {
      if (this.phase !== 'over' || (e.target.closest && e.target.closest('input, textarea, .board'))) return;
      if (e.key === 'ArrowLeft') { this.showAt(this.view - 1); e.preventDefault(); }
      if (e.key === 'ArrowRight') { this.showAt(this.view + 1); e.preventDefault(); }
    });
    setTitle(this.theme ? t('puzzle.page_title_theme', { theme: themeName(this.theme) }) : t('puzzle.page_title'));
  }

  /** Loads a puzzle (`id`), or the next one (of the page's theme), and plays its last turn. */
  async open(id) {
    this.gen += 1;
    const gen = this.gen;
    this.phase = 'loading';
    this.status.textContent = t('page.loading');
    this.status.className = 'status';
    for (const el of [this.playActions, this.endActions, this.solutionBox, this.nav, this.roundBox]) el.hidden = true;
    this.feedback.textContent = '';
    let reply;
    try {
      reply = await request('GET', id ? `/api/puzzles/${encodeURIComponent(id)}` : `/api/puzzles/next${this.nextQuery()}`);
    } catch (err) {
      if (gen !== this.gen) return;
      this.phase = 'none';
      if (err.status === 404 && id) this.status.textContent = t('puzzle.no_such_puzzle');
      else if (err.status === 404) this.status.textContent = this.theme ? t('puzzle.none_left_theme', { theme: themeName(this.theme) }) : t('puzzle.none_left');
      else this.status.textContent = t('puzzle.load_failed', { error: err.message });
      return;
    }
    if (gen !== this.gen) return;
    const me = await this.mePromise;
    if (gen !== this.gen) return;
    this.me = me && me.username ? me : null;
    this.start(reply, gen);
  }

  /** `?theme=..&after=..`: the page's theme, and the last puzzle this browser saw. */
  nextQuery() {
    const q = new URLSearchParams();
    if (this.theme) q.set('theme', this.theme);
    const last = stored(LAST_KEY);
    if (last) q.set('after', last);
    const text = q.toString();
    return text ? `?${text}` : '';
  }

  async start(reply, gen) {
    const p = reply.puzzle;
    this.P = p;
    this.rated = !!reply.rated;
    this.rating = reply.player || null;
    this.solver = p.solver === 'black' ? 'b' : 'w';
    this.opponent = p.solver === 'black' ? 'white' : 'black';
    this.played = []; // the solver's sub-moves accepted so far
    this.turn = []; // the sub-moves of the turn shaded on the board
    this.turnOpen = false; // the solver's turn has its first sub-move (the verdict said `continue`)
    this.count = 0; // sub-moves of the line on the board (from `fen`)
    this.line = null; // every turn from `fen`, once the solution is known
    this.positions = null; // the board after each sub-move of `line`
    try { localStorage.setItem(LAST_KEY, p.id); } catch (_) { /* private mode */ }
    const was = playedHere()[p.id];
    this.before.textContent = was === 'solved' ? t('puzzle.already_solved') : was === 'failed' ? t('puzzle.already_failed') : '';
    this.player.hidden = false;
    this.drawPlayer();
    this.drawInfo(false);
    this.board.setOrientation(p.solver);
    this.pos = placement(p.fen);
    this.board.setPosition(this.pos);
    this.board.setHighlights({});
    this.board.setLegal([], null);
    this.phase = 'intro';
    this.status.textContent = t(p.solver === 'black' ? 'puzzle.intro_white' : 'puzzle.intro_black');
    if (!(await this.playTurn(p.last_turn || [], gen))) return;
    // The server's start position is the truth (the sub-moves above were drawn from `fen`).
    this.pos = placement(p.start_fen);
    this.board.setPosition(this.pos);
    this.status.textContent = t(p.solver === 'black' ? 'puzzle.find_black' : 'puzzle.find_white');
    this.status.classList.add('your-turn');
    this.playActions.hidden = false;
    this.enable();
  }

  /** Plays the opponent's turn on the board, a sub-move at a time; false if another puzzle took over. */
  async playTurn(ucis, gen) {
    const words = [];
    this.turn = [];
    for (const uci of ucis) {
      await sleep(reducedMotion() ? 0 : STEP_MS);
      if (gen !== this.gen) return false;
      words.push(describeSubMove(uci, this.san(uci)));
      this.apply(uci);
    }
    if (words.length) announce(t('say.turn', { who: colorName(this.opponent), moves: words.join(t('say.then')) }));
    return true;
  }

  /** Plays `uci` on the page's board, shaded as the next sub-move of the turn shown. */
  apply(uci) {
    this.pos = applyUci(this.pos, uci);
    this.turn.push(uci);
    this.count += 1;
    this.board.setPosition(this.pos);
    this.board.setHighlights({ s1: this.turn[0], s2: this.turn[1] || null });
  }

  /** A sub-move's SAN on the board shown (no check mark). */
  san(uci) {
    return sanTurns(this.pos, [[uci]])[0][0];
  }

  enable() {
    this.phase = 'play';
    this.hintBtn.disabled = false;
    this.solutionBtn.disabled = false;
    this.board.setLegal(candidates(this.pos, this.solver), this.solver);
  }

  /** A sub-move from the board: shown at once, judged by the server. */
  async move(uci) {
    if (this.phase !== 'play') return;
    const gen = this.gen;
    const saved = { pos: this.pos, turn: [...this.turn], count: this.count };
    const san = this.san(uci);
    if (!this.turnOpen) this.turn = [];
    this.apply(uci);
    this.phase = 'wait';
    this.board.setLegal([], null);
    this.hintBtn.disabled = true;
    this.solutionBtn.disabled = true;
    this.feedback.textContent = '';
    let answer;
    try {
      answer = await request('POST', `/api/puzzles/${encodeURIComponent(this.P.id)}/moves`, { played: [...this.played, uci] });
    } catch (err) {
      if (gen !== this.gen) return;
      this.undo(saved);
      this.say(err.status === 400 ? t('puzzle.not_legal', { move: san }) : t('puzzle.move_failed', { error: err.message }), 'bad');
      this.enable();
      return;
    }
    if (gen !== this.gen) return;
    this.played.push(uci);
    if (answer.verdict === 'continue') {
      this.turnOpen = true;
      this.say(t('puzzle.good_continue'), 'good');
      this.enable();
    } else if (answer.verdict === 'reply') {
      this.turnOpen = false;
      this.say(t('puzzle.good_reply'), 'good');
      if (!(await this.playTurn(answer.reply || [], gen))) return;
      this.enable();
    } else if (answer.verdict === 'solved') {
      this.say(t('puzzle.solved_words'), 'good');
      this.finish(true, answer);
    } else {
      // The wrong sub-move leaves the board; the right one takes its place.
      this.undo(saved);
      if (!this.turnOpen) this.turn = [];
      const right = answer.expected ? this.san(answer.expected) : null;
      if (answer.expected) this.apply(answer.expected);
      this.say(right ? t('puzzle.wrong_right', { move: san, right }) : t('puzzle.wrong', { move: san }), 'bad');
      this.finish(false, answer);
    }
  }

  undo(saved) {
    Object.assign(this, saved);
    this.board.setPosition(this.pos);
    this.board.setHighlights({ s1: this.turn[0] || null, s2: this.turn[1] || null });
  }

  say(text, kind) {
    this.feedback.textContent = text;
    this.feedback.className = `puzzle-feedback ${kind || ''}`;
  }

  /** `POST /hint`: the square of the piece to move, shaded on the board (the try counts as failed). */
  async hint() {
    if (this.phase !== 'play') return;
    const gen = this.gen;
    this.hintBtn.disabled = true;
    try {
      const reply = await request('POST', `/api/puzzles/${encodeURIComponent(this.P.id)}/hint`, { played: this.played });
      if (gen !== this.gen) return;
      this.board.setHighlights({ s1: this.turn[0] || null, s2: this.turn[1] || null, hint: reply.square });
      this.say(t(this.rated ? 'puzzle.hint_rated' : 'puzzle.hint_given', { square: reply.square }), 'hint');
      this.showRound(reply.round);
    } catch (err) {
      if (gen !== this.gen) return;
      this.say(t('puzzle.move_failed', { error: err.message }), 'bad');
    }
    this.hintBtn.disabled = this.phase !== 'play';
  }

  /** `POST /solution`: the puzzle is failed, and its line is played to the end. */
  async viewSolution() {
    if (this.phase !== 'play') return;
    const gen = this.gen;
    this.phase = 'wait';
    this.board.setLegal([], null);
    this.solutionBtn.disabled = true;
    let reply;
    try {
      reply = await request('POST', `/api/puzzles/${encodeURIComponent(this.P.id)}/solution`);
    } catch (err) {
      if (gen !== this.gen) return;
      this.say(t('puzzle.move_failed', { error: err.message }), 'bad');
      this.enable();
      return;
    }
    if (gen !== this.gen) return;
    this.say(t('puzzle.solution_shown'), 'bad');
    this.finish(false, { solution: reply.solution, round: reply.round }, true);
  }

  /** The end: solved or failed, the rating change, the solution and what comes next. */
  finish(solved, answer, playOut = false) {
    this.phase = 'over';
    this.board.setLegal([], null);
    rememberOutcome(this.P.id, solved);
    this.status.textContent = solved ? t('puzzle.solved') : t('puzzle.failed');
    this.status.className = `status ${solved ? 'puzzle-solved' : 'puzzle-failed'}`;
    this.playActions.hidden = true;
    this.endActions.hidden = false;
    this.showRound(answer.round);
    this.drawInfo(true);
    const solution = Array.isArray(answer.solution) ? answer.solution : null;
    this.line = solution ? [this.P.last_turn || [], ...solution] : null;
    this.analyseLink.hidden = !this.line;
    if (this.line) {
      const sans = sanTurns(placement(this.P.fen), this.line);
      // The analysis board on the puzzle's line (handed over in sessionStorage), or its position.
      this.analyseLink.href = analysePgn(linePgn(this.P.fen, sans), this.P.fen);
      this.positions = [placement(this.P.fen)];
      for (const turn of this.line) for (const uci of turn) this.positions.push(applyUci(this.positions[this.positions.length - 1], uci));
      this.drawSolution(sans);
      this.solutionBox.hidden = false;
      this.nav.hidden = false;
      this.view = Math.min(this.count, this.positions.length - 1);
      if (playOut) this.playOut(this.gen);
      else this.markCurrent();
    }
    this.nextBtn.focus();
  }

  /** Plays the rest of the line on the board, a sub-move at a time ("View the solution"). */
  async playOut(gen) {
    const end = this.positions.length - 1;
    while (this.view < end) {
      await sleep(reducedMotion() ? 0 : STEP_MS);
      if (gen !== this.gen || this.phase !== 'over') return;
      this.showAt(this.view + 1);
    }
  }

  /** The rating change of a rated first try: "Puzzle rating 1512 (+12)". */
  showRound(round) {
    if (!round || !round.rating) return;
    this.rating = round.rating;
    const change = Number(round.change) || 0;
    this.roundBox.replaceChildren(`${t('puzzle.your_rating', { rating: ratingText(round.rating) })} `,
      '(', h('span', { class: `rating-diff ${change >= 0 ? 'up' : 'down'}`, id: 'puzzle-change' }, diffText(change)), ')');
    this.roundBox.hidden = false;
    this.player.hidden = true; // the round says the rating now
  }

  /** The line from `fen`: one row per turn (who, its sub-moves as buttons that show the position after them). */
  drawSolution(sans) {
    let index = 0;
    let side = this.opponent;
    this.solution.replaceChildren(...this.line.map((turn, i) => {
      const who = i === 0 ? t('puzzle.their_turn', { color: colorName(side) }) : colorName(side);
      const buttons = turn.map((uci, k) => {
        index += 1;
        const after = index;
        return [k ? ',' : '', h('button', { type: 'button', class: 'mv', 'data-index': String(after), onclick: () => this.showAt(after) }, sans[i][k])];
      });
      const row = h('li', { class: side === this.P.solver ? 'solver' : 'opponent' }, h('span', { class: 'who' }, `${who}: `), buttons.flat());
      side = side === 'white' ? 'black' : 'white';
      return row;
    }));
  }

  /** After the end: the position after `n` sub-moves of the line, its turn shaded. */
  showAt(n) {
    if (this.phase !== 'over' || !this.positions) return;
    this.view = Math.max(0, Math.min(this.positions.length - 1, n));
    this.board.setPosition(this.positions[this.view]);
    let before = 0;
    let shaded = {};
    for (const turn of this.line) {
      if (this.view <= before) break;
      const upto = turn.slice(0, this.view - before);
      shaded = { s1: upto[0] || null, s2: upto[1] || null };
      before += turn.length;
    }
    this.board.setHighlights(shaded);
    this.markCurrent();
  }

  markCurrent() {
    for (const b of this.solution.querySelectorAll('button.mv')) b.classList.toggle('current', Number(b.dataset.index) === this.view);
  }

  /** The player's puzzle rating, or why this puzzle is not rated. */
  drawPlayer() {
    let text;
    if (this.rated) text = this.rating ? t('puzzle.your_rating', { rating: ratingText(this.rating) }) : t('puzzle.first_rated');
    else text = this.me ? t('puzzle.unrated_repeat') : t('puzzle.unrated_anonymous');
    this.player.textContent = text;
  }

  /** The puzzle's rating, plays, link; its themes and source game once over (they would give it away). */
  drawInfo(over) {
    const p = this.P;
    const parts = [
      h('p', { id: 'puzzle-rating' }, t('puzzle.rating', { rating: String(Math.round(Number(p.rating) || 0)) }), ' · ', t('puzzle.plays', { n: Number(p.plays) || 0 })),
      h('p', {}, h('a', { href: p.url, id: 'puzzle-link' }, t('puzzle.permalink', { id: p.id }))),
    ];
    if (over && p.themes && p.themes.length) {
      const links = p.themes.filter((key) => typeof key === 'string').map(themeLink);
      parts.push(h('p', { id: 'puzzle-themes' }, `${t('puzzle.themes_label')} `, links.flatMap((a, i) => (i ? [', ', a] : [a]))));
    }
    this.gameLink.hidden = !(over && p.game);
    if (p.game) this.gameLink.href = p.game;
    this.info.replaceChildren(...parts);
  }

  /** "Next puzzle": the next one of the page's theme, in place (an id address becomes the trainer's). */
  next() {
    if (location.pathname !== '/puzzles') history.replaceState(null, '', themeUrl(this.theme));
    this.open(null);
  }
}
