// The game page (`/game/{id}`): offers the free seat of an open game (taken
// only on a click), keeps the seat token, follows the game over a
// reconnecting WebSocket and lets a player act; without a seat it is the
// same live view with no controls. What happens is also said in words.
//
// The rules of the game and of game management live in the server (issue 9).
// Where the page used to re-derive one, and what it reads instead:
// - turns in the move list: colour runs of the record (record.js), not the
//   phase a FEN without a phase field would default to (fen.js fenInfo, gone);
// - "the turn ended" (check on S1): `check` and a last turn of one sub-move
//   of the other colour (turnEndedByCheck), no start-phase rule;
// - the abort window, and no claim of abandonment inside it: `first_move_ms`
//   in a clocked game; an untimed game sends nothing that says it, so the
//   page counts completed turns from the record's colours (abortWindowOpen);
// - the takeback precondition: the record's last entry is the mover's own,
//   not "phase second" (wrong when a game starts at S2); the limits per turn
//   and per game are not sent: the server answers `not_available`;
// - a capture (sound, words): the `x` of the server's SAN, not pawn geometry;
//   castling, pieces, check in words (announce.js): from the SAN;
// - the first sub-move marked "1" or "2": the last turn's entries, marked "2"
//   for a record taken up at S2 (the explicit `2` of the start FEN);
// - offers lapsing: the `draw_offer` of each `move`; the first-move timer:
//   `first_move_ms`; the abandonment grace: `claim_in_ms`; the end, its result
//   and a time forfeit: the `end` event (the page never flags by itself);
// - replay page: the reply's own `turns`, not regrouped.
// Still here, and why: no rematch button after an abort (the server refuses
// one: game/policy.rs rematch_possible; the page only hides what would be
// refused); on `end` the page clears
// `legal`, `draw_offer` and `first_move_ms` to what a snapshot says of a
// finished game (docs/protocol.md 3.3). Chess knowledge kept for display
// only: fen.js applyUci (castling, en passant) replays the record to review
// an earlier position, the state carrying no FEN per sub-move; typed.js
// names legal sub-moves in SAN to match typed text (`legal` is UCI only).

import {
  request, seatToken, saveSeat, h, clockLabel, outcomeText, cap, ratingText, diffText,
  timeControlOf, timeLeftText, deadlineText, errorText, colorName, variantName,
} from './api.js';
import { profileUrl } from './account.js';
import { nameOf } from './live.js';
import { AnalysisPanel } from './analysis.js';
import { Board } from './board.js';
import { GameSocket } from './socket.js';
import { placement, applyUci, kingSquare } from './fen.js';
import { recordStart, groupTurns, commaText, lastTurn, completedTurns } from './record.js';
import { matchTyped } from './typed.js';
import * as sound from './sound.js';
import { announceEvent, announceArrival } from './announce.js';
import { GameChat } from './chat.js';
import { setTitle, setOwnTurn, turnArrived } from './notify.js';
import { t } from './i18n.js';

const LOW_MS = 20000;
const LOW_SOUND_MS = 10000;

export async function gamePage(main, id) {
  const page = new GamePage(main, id);
  await page.start();
}

class GamePage {
  constructor(main, id) {
    this.main = main;
    this.id = id;
    this.S = null; // the last state, kept current by events
    this.v = null;
    this.you = null;
    this.presence = null;
    this.pending = null; // {uci, id}: a sent move not yet acknowledged
    this.seq = 0;
    this.review = null; // number of sub-moves shown, or null for live
    this.clockAt = performance.now();
    this.firstMoveAt = performance.now();
    this.lowWarned = false;
    this.orientationSet = false;
    this.confirmResign = false;
    this.rematchSeat = null; // the private rematch_seat message, once received
    this.rematchLive = false; // a rematch event arrived while this page was open
    this.online = false;
    this.arrivalSaid = false; // the opponent's turn before the first snapshot was announced
    this.watching = false; // the visitor chose "Watch" over the free seat
    this.saidText = ''; // the last thing that happened, in words (until the next move)
    this.claimAt = { white: null, black: null }; // performance.now() when a claim over an away seat opens
    this.claimOpen = null; // whether the claim button was last drawn enabled
    this.wasYourTurn = null; // whether the last render was your turn (null before the first)
    this.build();
  }

  build() {
    const el = (tag, props, ...c) => h(tag, props, ...c);
    this.boardWrap = el('div', { class: 'board-wrap', id: 'board' });
    this.bars = {
      top: el('div', { class: 'player-bar top' }),
      bottom: el('div', { class: 'player-bar bottom' }),
    };
    this.clockEls = { white: el('span', { class: 'clock', id: 'clock-white', role: 'timer', 'aria-label': t('game.clock_white') }), black: el('span', { class: 'clock', id: 'clock-black', role: 'timer', 'aria-label': t('game.clock_black') }) };
    this.seatEls = { white: el('span', { class: 'seat', id: 'seat-white' }), black: el('span', { class: 'seat', id: 'seat-black' }) };
    this.status = el('p', { class: 'status', id: 'status', role: 'status', 'aria-live': 'polite' }, t('page.loading'));
    this.backBtn = el('button', { type: 'button', id: 'btn-back-to-game', class: 'primary', hidden: true, onclick: () => this.goto(null) }, t('game.back_to_game'));
    this.saidEl = el('p', { class: 'said', id: 'said', 'aria-live': 'polite' });
    this.awayNote = el('p', { class: 'note', id: 'away-note', 'aria-live': 'polite' });
    this.joinOffer = el('div', { class: 'invite join-offer', id: 'join-offer', hidden: true });
    this.note = el('p', { class: 'note', id: 'first-move-note' });
    // A correspondence game's time left for the side to move (its `clock` is null).
    this.corrNote = el('p', { class: 'note corr-left', id: 'corr-left', hidden: true });
    this.banner = el('div', { class: 'banner', id: 'banner', hidden: true });
    this.invite = el('div', { class: 'invite', id: 'invite', hidden: true });
    this.notice = el('p', { class: 'notice', id: 'notice', role: 'alert' });
    this.moveInput = el('input', {
      type: 'text', id: 'move-input', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false',
      placeholder: t('game.move_placeholder'), 'aria-describedby': 'move-input-help',
    });
    this.moveForm = el('form', { class: 'move-form', id: 'move-form', hidden: true, onsubmit: (e) => { e.preventDefault(); this.typedMove(); } },
      el('label', { for: 'move-input' }, t('game.type_move')),
      el('div', { class: 'row' }, this.moveInput, el('button', { type: 'submit', id: 'btn-move-input' }, t('lobby.play'))),
      el('span', { class: 'help', id: 'move-input-help' }, t('game.move_help')));
    this.moveList = el('ol', { class: 'movelist', id: 'movelist', 'aria-label': t('game.moves') });
    this.reviewBar = el('div', { class: 'review-nav' },
      el('button', { type: 'button', id: 'nav-first', title: t('game.nav_start'), 'aria-label': t('game.nav_start_label'), onclick: () => this.goto(0) }, '«'),
      el('button', { type: 'button', id: 'nav-prev', title: t('game.nav_prev'), 'aria-label': t('game.nav_prev_label'), onclick: () => this.step(-1) }, '‹'),
      el('button', { type: 'button', id: 'nav-next', title: t('game.nav_next'), 'aria-label': t('game.nav_next_label'), onclick: () => this.step(1) }, '›'),
      el('button', { type: 'button', id: 'nav-last', title: t('game.nav_live'), 'aria-label': t('game.nav_live_label'), onclick: () => this.goto(null) }, '»'));
    this.reviewNote = el('p', { class: 'review-note', id: 'review-note', hidden: true });
    this.actions = el('div', { class: 'actions', id: 'actions' });
    this.conn = el('span', { class: 'conn', id: 'conn' }, t('game.connecting'));
    this.spectators = el('span', { class: 'spectators', id: 'spectators' });
    this.muteBtn = el('button', { type: 'button', id: 'btn-mute', onclick: () => { sound.setMuted(!sound.isMuted()); this.renderMeta(); } });
    this.meta = el('div', { class: 'meta' },
      this.conn, this.spectators,
      el('button', { type: 'button', id: 'btn-flip', onclick: () => { this.board.flip(); this.renderBars(); } }, t('game.flip')),
      this.muteBtn,
      el('button', { type: 'button', id: 'btn-copy-link', onclick: (e) => copy(this.inviteUrl(), e.currentTarget) }, t('game.copy_link')),
      el('a', { href: `/game/${this.id}.pgn`, id: 'pgn-link', class: 'button', download: `marseillais-${this.id}.pgn` }, t('game.download_pgn')));
    this.info = el('p', { class: 'game-info', id: 'game-info' });
    this.chat = new GameChat((t, d) => !!this.socket && this.socket.send(t, d));
    this.main.replaceChildren(el('div', { class: 'game' },
      el('div', { class: 'board-col' }, this.bars.top, this.boardWrap, this.bars.bottom),
      el('aside', { class: 'side panel' },
        this.info, this.status, this.corrNote, this.backBtn, this.saidEl, this.awayNote, this.note, this.banner,
        this.joinOffer, this.invite, this.notice,
        this.moveList, this.reviewBar, this.reviewNote, this.moveForm, this.actions, this.meta, this.chat.el)));
    this.board = new Board(this.boardWrap, { onMove: (uci) => this.playMove(uci) });
    document.addEventListener('keydown', (e) => {
      if (e.target.closest && e.target.closest('.board, input, textarea, select')) return;
      if (e.key === 'ArrowLeft') { this.step(-1); e.preventDefault(); }
      if (e.key === 'ArrowRight') { this.step(1); e.preventDefault(); }
    });
  }

  inviteUrl() {
    return `${location.origin}/game/${this.id}`;
  }

  async start() {
    const token = seatToken(this.id);
    if (!token) {
      // Opening the link takes nothing: an open game offers its free seat
      // ("Join as ...") beside "Watch" (renderJoinOffer).
      try {
        await request('GET', `/api/games/${encodeURIComponent(this.id)}`);
      } catch (err) {
        if (err.status === 404) {
          this.status.textContent = t('game.no_such_game');
          return;
        }
      }
    }
    this.token = token;
    // A running clock is read afresh after a reconnect (a full snapshot):
    // the events since `v` would not say how much time passed meanwhile.
    const resume = () => ({ token: this.token, v: this.S && this.S.clock && this.S.clock.running ? null : this.v });
    this.socket = new GameSocket(this.id, resume, {
      onMessage: (m) => this.onMessage(m),
      onStatus: (online) => this.onConnection(online),
      onOpen: () => { this.resendPending(); this.chat.connected(); },
    });
    const tick = () => { this.renderClocks(); requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  }

  onConnection(online) {
    this.conn.textContent = online ? t('game.online') : t('game.offline_reconnecting');
    this.conn.classList.toggle('offline', !online);
    if (!online && this.online) this.freezeClocks();
    this.online = online;
    this.status.classList.toggle('offline', !online);
    this.render();
  }

  /** Offline, the local clocks stop at what they show: the server's word comes on reconnecting. */
  freezeClocks() {
    const S = this.S;
    if (!S) return;
    const now = performance.now();
    if (S.clock && S.clock.running && S.status === 'playing') {
      S.clock[S.clock.running] = Math.max(0, S.clock[S.clock.running] - (now - this.clockAt));
    }
    this.clockAt = now;
    if (typeof S.first_move_ms === 'number') S.first_move_ms = Math.max(0, S.first_move_ms - (now - this.firstMoveAt));
    this.firstMoveAt = now;
  }

  resendPending() {
    // The version it was decided on, not the latest: the server judges staleness.
    if (this.pending) this.socket.send('move', { uci: this.pending.uci, id: this.pending.id, v: this.pending.v });
  }

  /** A notice about the player's own action; `gentle` for what is no fault (a stale move). */
  showNotice(text, gentle = false) {
    this.notice.textContent = text;
    this.notice.classList.toggle('gentle', gentle);
  }

  send(type, d) {
    this.showNotice('');
    if (!this.socket.send(type, d)) this.showNotice(t('game.offline_try_again'));
  }

  playMove(uci) {
    const S = this.S;
    if (!S || !this.you || S.turn !== this.you || S.status !== 'playing' || this.pending) return;
    this.showNotice('');
    this.seq += 1;
    this.pending = { uci, id: `${Date.now().toString(36)}-${this.seq}`, v: this.v };
    if (!this.socket.send('move', { uci, id: this.pending.id, v: this.v })) {
      this.showNotice(t('game.offline_move_queued'), true);
    }
    // Show the move at once; the server's event confirms it (or an error undoes it).
    this.board.setPosition(applyUci(placement(S.fen), uci));
    this.board.setLegal([], null);
  }

  onMessage(msg) {
    const d = msg.d || {};
    // Chat lines carry no version: they are not game events.
    if (this.chat.onMessage(msg.t, d)) return;
    if (typeof msg.v === 'number' && msg.t !== 'state') {
      if (this.v !== null && msg.v <= this.v) return;
      if (this.v !== null && msg.v > this.v + 1) { this.socket.reconnect(); return; }
      if (!this.S) return;
      this.v = msg.v;
      announceEvent(msg.t, d, this.S, this.you);
      this.applyEvent(msg.t, d);
      this.render();
      return;
    }
    switch (msg.t) {
      case 'state':
        this.S = d;
        this.v = msg.v;
        this.you = d.you || null;
        this.chat.setYou(this.you);
        // The colour of a seat this browser holds ("My games" says "your turn" from it).
        if (this.you && this.token) saveSeat(this.id, this.token, this.you);
        // Once per page: what the opponent played before the page was there.
        if (!this.arrivalSaid && this.you) {
          this.arrivalSaid = true;
          announceArrival(d, this.you);
        }
        this.presence = { white: d.seats.white.connected, black: d.seats.black.connected, spectators: d.spectators };
        this.clockAt = performance.now();
        this.firstMoveAt = performance.now();
        if (!this.orientationSet) {
          this.board.setOrientation(this.you === 'black' ? 'black' : 'white');
          this.orientationSet = true;
        }
        this.render();
        break;
      case 'presence': {
        this.presence = d;
        const now = performance.now();
        for (const c of ['white', 'black']) {
          const ms = d.claim_in_ms ? d.claim_in_ms[c] : null;
          this.claimAt[c] = typeof ms === 'number' ? now + ms : null;
        }
        this.render();
        break;
      }
      case 'ack':
        if (this.pending && String(this.pending.id) === String(d.id)) this.pending = null;
        break;
      case 'error':
        if (this.chat.claims(d)) { this.chat.onError(d.code); break; }
        if (this.pending && d.id !== undefined && d.id !== null && String(this.pending.id) === String(d.id)) this.pending = null;
        if (d.code === 'stale') {
          // The move was decided on an older position: no fault, just resync.
          this.showNotice(t('game.stale'), true);
          this.socket.send('hello', this.token ? { token: this.token } : {});
        } else {
          this.showNotice(errorText(d.code, d.message) || t('game.refused'));
        }
        this.render();
        break;
      case 'ratings':
        if (this.S) { this.S.ratings = d; this.render(); }
        break;
      case 'rematch_seat':
        // Kept in any case; followed at once only when the rematch is being
        // made now (not when an old game's page is opened later).
        saveSeat(d.id, d.token, d.color);
        this.rematchSeat = d;
        if (this.rematchLive) this.followRematch();
        break;
      default:
        break;
    }
  }

  applyEvent(type, d) {
    const S = this.S;
    const now = performance.now();
    const setPosition = () => {
      for (const k of ['fen', 'turn', 'phase', 'check', 'legal', 'clock', 'first_move_ms', 'draw_offer', 'claims', 'correspondence']) {
        if (k in d) S[k] = d[k];
      }
      if ('clock' in d) this.clockAt = now;
      if ('first_move_ms' in d) this.firstMoveAt = now;
    };
    switch (type) {
      case 'join':
        this.saidText = t('game.said_joined', { color: colorName(d.color) });
        S.seats[d.color].taken = true;
        if (d.players) S.players = d.players;
        else if (d.user) S.players = { ...(S.players || {}), [d.color]: d.user };
        S.status = 'playing';
        S.first_move_ms = d.first_move_ms;
        if ('correspondence' in d) S.correspondence = d.correspondence;
        this.firstMoveAt = now;
        // The join event carries no legal sub-moves: ask for a fresh snapshot.
        this.socket.send('hello', this.token ? { token: this.token } : {});
        break;
      case 'move': {
        const captured = String(d.san).includes('x');
        const lapsed = S.draw_offer && 'draw_offer' in d && !d.draw_offer;
        this.saidText = lapsed ? t('game.said_offer_lapsed', { color: colorName(d.color) }) : '';
        S.moves.push({ uci: d.uci, san: d.san, color: d.color });
        setPosition();
        if (this.pending && this.pending.uci === d.uci && d.color === this.you) this.pending = null;
        if (S.status === 'open') S.status = 'playing';
        sound.play(d.check ? 'check' : captured ? 'capture' : 'move');
        break;
      }
      case 'takeback': {
        const gone = S.moves.pop();
        if (gone) this.saidText = t('game.said_took_back', { color: colorName(gone.color), san: gone.san });
        setPosition();
        sound.play('move');
        break;
      }
      case 'draw_offer':
        S.draw_offer = d.by;
        this.saidText = '';
        break;
      case 'draw_decline':
        S.draw_offer = null;
        this.saidText = t('game.said_draw_declined', { color: colorName(d.by) });
        break;
      case 'end':
        S.outcome = { result: d.result, winner: d.winner, reason: d.reason };
        S.status = 'finished';
        if ('clock' in d) { S.clock = d.clock; this.clockAt = now; }
        S.legal = [];
        S.draw_offer = null;
        S.first_move_ms = null;
        if (S.correspondence) S.correspondence = { ...S.correspondence, deadline_ms: null };
        this.pending = null;
        this.saidText = '';
        this.showNotice('');
        sound.play('end');
        break;
      case 'rematch_offer':
        S.rematch_offer = d.by;
        break;
      case 'ratings':
        S.ratings = d;
        break;
      case 'rematch':
        S.rematch = d.id;
        this.rematchLive = true;
        if (this.rematchSeat) this.followRematch();
        break;
      default:
        break;
    }
  }

  followRematch() {
    const d = this.rematchSeat;
    if (d && this.you) location.assign(d.url || `/game/${d.id}`);
  }

  /** The last turn among the first `count` sub-moves (record.js: the server's colours). */
  lastTurn(count) {
    return lastTurn(this.S.moves, count, recordStart(this.S.start_fen));
  }

  /**
   * Whether the turn that just ended was a single sub-move that gave check.
   * Only what the server sent: `check` (the side to move is in check) and
   * the record's last turn, one sub-move of the other colour. Why the turn
   * ended (check on S1, or a one-sub-move turn) is the server's business.
   */
  turnEndedByCheck() {
    const S = this.S;
    const last = this.lastTurn(S.moves.length);
    return !!S.check && last.moves.length === 1 && last.color !== S.turn;
  }

  render() {
    if (!this.S) return;
    const S = this.S;
    const n = S.moves.length;
    if (this.review !== null && this.review >= n) this.review = null;
    const shown = this.review === null ? n : this.review;
    const live = this.review === null;
    // Board
    let boardMap;
    if (live) boardMap = placement(S.fen);
    else {
      boardMap = placement(S.start_fen);
      for (const m of S.moves.slice(0, shown)) boardMap = applyUci(boardMap, m.uci);
    }
    this.board.setPosition(boardMap);
    const run = this.lastTurn(shown);
    const [first, second] = run.second ? [null, run.moves[0]] : run.moves;
    const hl = { s1: first ? first.uci : null, s2: second ? second.uci : null, check: null };
    if (live && S.check) hl.check = kingSquare(boardMap, S.turn === 'white' ? 'w' : 'b');
    else if (!live && run.moves.length && /[+#]$/.test(run.moves[run.moves.length - 1].san)) {
      hl.check = kingSquare(boardMap, run.moves[0].color === 'white' ? 'b' : 'w');
    }
    this.board.setHighlights(hl);
    const canMove = live && this.you && S.status === 'playing' && S.turn === this.you && !this.pending;
    this.board.setLegal(canMove ? S.legal : [], canMove ? this.you[0] : null);
    if (this.pending && live) this.board.setPosition(applyUci(boardMap, this.pending.uci));

    const versus = S.computer ? ` · ${t('mine.vs', { name: this.computerName() })}` : '';
    const rated = S.rated ? ` · ${t('lobby.rated')}` : '';
    const clock = S.correspondence ? t('game.per_turn', { clock: clockLabel(timeControlOf(S)) }) : clockLabel(timeControlOf(S));
    const role = this.you === 'white' || this.you === 'black' ? t(`game.you_play_${this.you}`) : t('game.watching');
    this.info.textContent = `${variantName(S.variant)} · ${clock}${rated} · ${role}${versus}`;
    this.status.textContent = this.statusText(live);
    this.status.classList.toggle('your-turn', !!this.you && S.status === 'playing' && S.turn === this.you);
    this.status.classList.toggle('offline', !this.online);
    this.backBtn.hidden = live;
    this.saidEl.textContent = this.saidLine();
    this.moveForm.hidden = !this.you || S.status !== 'playing';
    this.renderBanner();
    this.renderJoinOffer();
    this.renderInvite();
    this.renderMoves(shown);
    this.reviewNote.hidden = live;
    this.reviewNote.textContent = live ? '' : t('game.reviewing', { shown, n });
    this.renderActions();
    this.renderBars();
    this.renderMeta();
    // The title counts the games where it is your turn (notify.js), this one included.
    const yours = !!this.you && S.status === 'playing' && S.turn === this.you;
    setOwnTurn(this.id, yours);
    setTitle(t('game.title', { id: this.id }));
    // A correspondence turn that arrives while the page is open (and out of view): one notification.
    if (this.wasYourTurn === false && yours && S.correspondence) {
      const opp = this.playerOf(this.you === 'white' ? 'black' : 'white');
      turnArrived(this.id, opp ? opp.name : null, timeControlOf(S));
    }
    this.wasYourTurn = yours;
  }

  statusText(live = true) {
    const S = this.S;
    if (S.status === 'open') return this.you ? t('game.waiting_invite') : t('game.waiting_second');
    if (S.status === 'finished') return outcomeText(S.outcome);
    const part = S.phase === 'second' ? t('game.phase_second') : S.phase === 'first' ? t('game.phase_first') : t('game.phase_one');
    if (!live && this.you === S.turn) return t('game.reviewing_your_turn', { part });
    let toPlay = this.you === S.turn ? t('game.your_turn', { part }) : t('game.to_play', { color: colorName(S.turn), part });
    if (this.isComputer(S.turn)) toPlay = t('game.computer_thinking', { name: this.computerName(), color: colorName(S.turn), part });
    if (this.turnEndedByCheck()) {
      const mover = S.turn === 'white' ? 'black' : 'white';
      if (this.you === mover) return t('game.check_your_turn_ended', { next: toPlay });
      if (this.you) return t('game.check', { next: toPlay });
      return t('game.check_turn_ended', { color: colorName(mover), next: toPlay });
    }
    if (S.check) return t('game.check', { next: toPlay });
    return toPlay;
  }

  /** What just happened, and the standing offers, in words (for players and spectators alike). */
  saidLine() {
    const S = this.S;
    const parts = [];
    if (this.saidText) parts.push(this.saidText);
    if (S.status === 'playing' && S.draw_offer) parts.push(t('game.offers_draw', { color: colorName(S.draw_offer) }));
    if (S.status === 'finished' && S.rematch_offer && !S.rematch) parts.push(t('game.offers_rematch', { color: colorName(S.rematch_offer) }));
    return parts.join(' ');
  }

  /** The seats that have nobody connected, in words, with the countdown to a claim of victory. */
  awayLine(now) {
    const S = this.S;
    // Players of a correspondence game are away most of the time: nothing to say.
    if (!S || S.status !== 'playing' || !this.presence || S.correspondence) return '';
    const parts = [];
    for (const c of ['white', 'black']) {
      if (!S.seats[c].taken || this.presence[c] || c === this.you || this.isComputer(c)) continue;
      const other = c === 'white' ? 'black' : 'white';
      let text = t('game.offline', { color: colorName(c) });
      const at = this.claimAt[c];
      // Before both sides have completed a turn the game can only be aborted.
      if (typeof at === 'number' && !this.abortWindowOpen()) {
        const left = at - now;
        const when = left > 0 ? t('game.claim_in', { time: formatCountdown(left) }) : t('game.claim_now');
        text = this.you === other ? t('game.offline_you_may_claim', { color: colorName(c), when })
          : t('game.offline_may_claim', { color: colorName(c), other: colorName(other), when });
      }
      parts.push(`${text}.`);
    }
    return parts.join(' ');
  }

  /** Whether this player may claim victory over the opponent now (the server has the last word). */
  claimOpenNow(now) {
    const opp = this.you === 'white' ? 'black' : 'white';
    const at = this.claimAt[opp];
    return typeof at !== 'number' || at <= now;
  }

  renderJoinOffer() {
    const S = this.S;
    let free = null;
    if (S.status === 'open' && !this.you && !this.watching) {
      if (!S.seats.white.taken) free = 'white';
      else if (!S.seats.black.taken) free = 'black';
    }
    this.joinOffer.hidden = !free;
    if (!free) {
      if (this.joinOffer.childElementCount) this.joinOffer.replaceChildren();
      delete this.joinOffer.dataset.free;
      return;
    }
    if (this.joinOffer.dataset.free === free) return;
    this.joinOffer.dataset.free = free;
    this.joinOffer.replaceChildren(
      h('p', {}, t(`game.join_offer_${free === 'white' ? 'white' : 'black'}`)),
      h('div', { class: 'row' },
        h('button', { type: 'button', id: 'btn-join', class: 'primary', onclick: (e) => this.join(e.currentTarget) }, t(`game.join_as_${free === 'white' ? 'white' : 'black'}`)),
        h('button', { type: 'button', id: 'btn-watch', onclick: () => { this.watching = true; this.render(); } }, t('lobby.watch'))));
  }

  /** Takes the free seat (only on a click), then reconnects as that player. */
  async join(button) {
    if (button) button.disabled = true;
    try {
      const grant = await request('POST', `/api/games/${encodeURIComponent(this.id)}/join`);
      saveSeat(grant.id, grant.token, grant.color);
      this.token = grant.token;
      this.orientationSet = false;
      this.v = null; // a full snapshot: it says which seat this connection holds
      this.socket.reconnect();
    } catch (err) {
      this.watching = true;
      this.showNotice(err.code === 'seat_taken' ? t('game.seat_taken_watching') : t('lobby.join_failed', { error: err.message }));
      this.render();
    }
  }

  /** The typed move input: a SAN or UCI sub-move matched against the legal list. */
  typedMove() {
    const S = this.S;
    if (!S || !this.you) return;
    const text = this.moveInput.value;
    if (S.status !== 'playing') { this.showNotice(t('game.not_in_progress')); return; }
    if (S.turn !== this.you) { this.showNotice(t('game.its_turn', { color: colorName(S.turn) })); return; }
    if (this.pending) return;
    const found = matchTyped(placement(S.fen), S.legal, text);
    if (!found.uci) { this.showNotice(found.error); this.moveInput.select(); return; }
    this.moveInput.value = '';
    this.review = null;
    this.playMove(found.uci);
    this.render();
  }

  renderBanner() {
    const S = this.S;
    if (S.status !== 'finished' || !S.outcome) { this.banner.hidden = true; return; }
    this.banner.hidden = false;
    if (!this.analysis) {
      // A finished game may be analysed (GET /api/games/{id}/analysis; a live one may not).
      this.analysis = new AnalysisPanel({ source: () => ({ url: `/api/games/${this.id}/analysis`, init: {} }), positions: () => this.S.moves.length + 1, onSelect: (ply) => this.goto(ply) });
      this.banner.after(this.analysis.el);
      this.analysis.watch(this.moveList);
    }
    const mine = this.you && S.outcome.winner ? (S.outcome.winner === this.you ? `${t('game.you_won')} ` : `${t('game.you_lost')} `) : '';
    const parts = [
      h('strong', {}, S.outcome.result === '*' ? '—' : S.outcome.result),
      h('span', {}, ` ${mine}${outcomeText(S.outcome)}.`),
    ];
    if (S.rematch) parts.push(h('a', { href: `/game/${S.rematch}`, id: 'rematch-link', class: 'button' }, this.you ? t('game.go_rematch') : t('game.watch_rematch')));
    const changes = ['white', 'black'].map((c) => [c, this.ratingChange(c)]).filter(([, ch]) => ch);
    if (changes.length) {
      parts.push(h('span', { class: 'rating-change', id: 'rating-change' }, changes.map(([c, ch]) => {
        const who = this.playerOf(c);
        return `${colorName(c)}${who ? ` ${who.name}` : ''}: ${ch.before} → ${ch.after} (${diffText(ch.diff)})`;
      }).join(' · ')));
    }
    this.banner.replaceChildren(...parts);
  }

  renderInvite() {
    const show = !!this.you && this.S.status === 'open';
    this.invite.hidden = !show;
    if (!show || this.invite.childElementCount) return;
    const input = h('input', { type: 'text', readonly: true, value: this.inviteUrl(), id: 'invite-link', 'aria-label': t('game.invite_link'), onfocus: (e) => e.target.select() });
    this.invite.replaceChildren(
      h('p', {}, t('game.invite_text')),
      h('div', { class: 'row' }, input, h('button', { type: 'button', class: 'primary', id: 'btn-copy-invite', onclick: (e) => copy(this.inviteUrl(), e.currentTarget) }, t('game.copy_invite'))));
  }

  renderMoves(shown) {
    const S = this.S;
    const turns = groupTurns(S.moves, recordStart(S.start_fen));
    const rows = [];
    let row = null;
    for (const t of turns) {
      if (t.color === 'white' || !row) {
        row = { number: t.number, white: null, black: null };
        rows.push(row);
      }
      row[t.color] = t;
    }
    const cell = (t, colour) => {
      if (!t) return h('span', { class: `turn ${colour} empty` }, colour === 'white' ? '…' : '');
      const parts = [];
      if (t.leadingComma) parts.push(',');
      t.items.forEach((m, i) => {
        if (i) parts.push(',');
        parts.push(h('button', {
          type: 'button', class: `mv${m.index + 1 === shown && this.review !== null ? ' current' : ''}${m.index + 1 === shown && this.review === null ? ' latest' : ''}`,
          'data-index': String(m.index), onclick: () => this.goto(m.index + 1),
        }, m.san));
      });
      return h('span', { class: `turn ${colour}` }, parts);
    };
    this.moveList.replaceChildren(...rows.map((r) => h('li', {},
      h('span', { class: 'num' }, `${r.number}.`), cell(r.white, 'white'), cell(r.black, 'black'))));
    this.moveList.dataset.pgn = commaText(turns);
    if (this.review === null) this.moveList.scrollTop = this.moveList.scrollHeight;
  }

  goto(count) {
    if (!this.S) return;
    const n = this.S.moves.length;
    this.review = count === null || count >= n ? null : Math.max(0, count);
    this.render();
  }

  step(delta) {
    if (!this.S) return;
    const n = this.S.moves.length;
    const cur = this.review === null ? n : this.review;
    this.goto(Math.min(n, Math.max(0, cur + delta)));
  }

  renderActions() {
    const S = this.S;
    const you = this.you;
    if (!you) { this.actions.replaceChildren(); this.actions.hidden = true; return; }
    this.actions.hidden = false;
    const opp = you === 'white' ? 'black' : 'white';
    const btn = (id, label, onclick, extra = {}) => h('button', { type: 'button', id, onclick, ...extra }, label);
    const out = [];
    const playing = S.status === 'playing';
    if (playing) {
      // Something to withdraw: the record's last entry is yours and it is still your turn
      // (the limits per turn and per game are the server's: it answers not_available).
      const last = S.moves[S.moves.length - 1];
      const mine = S.turn === you && !!last && last.color === you;
      out.push(btn('btn-takeback', t('game.takeback'), () => this.send('takeback_submove'),
        { disabled: !mine || !!this.pending, title: t('game.takeback_title') }));
      if (S.draw_offer === opp) {
        out.push(btn('btn-draw-accept', t('game.draw_accept'), () => this.send('draw_accept'), { class: 'primary' }));
        out.push(btn('btn-draw-decline', t('game.draw_decline'), () => this.send('draw_decline')));
      } else {
        out.push(btn('btn-draw-offer', S.draw_offer === you ? t('game.draw_offered') : t('game.draw_offer'), () => this.send('draw_offer'), { disabled: S.draw_offer === you }));
      }
      if (S.turn === you && S.claims && S.claims.length) {
        out.push(btn('btn-claim-draw', t('game.claim_draw', { claim: claimText(S.claims[0]) }), () => this.send('draw_claim', { claim: S.claims[0] }), { class: 'primary' }));
      }
      // The computer never abandons a game: nothing to claim against it; nor is a
      // correspondence player who is away (the server refuses it: the deadline decides).
      if (this.presence && S.seats[opp].taken && !this.presence[opp] && !this.isComputer(opp) && !S.correspondence && !this.abortWindowOpen()) {
        this.claimOpen = this.claimOpenNow(performance.now());
        out.push(btn('btn-claim-victory', t('game.claim_victory'), () => this.send('claim_victory'),
          { title: t('game.claim_victory_title'), disabled: !this.claimOpen }));
      } else {
        this.claimOpen = null;
      }
    }
    if (S.status === 'open' || (playing && this.abortWindowOpen())) {
      out.push(btn('btn-abort', t('game.abort'), () => this.send('abort')));
    }
    if (playing) {
      if (this.confirmResign) {
        out.push(h('span', { class: 'confirm' }, `${t('game.resign_confirm')} `,
          btn('btn-resign-yes', t('game.resign_yes'), () => { this.confirmResign = false; this.send('resign'); }, { class: 'danger' }),
          btn('btn-resign-no', t('game.resign_no'), () => { this.confirmResign = false; this.renderActions(); })));
      } else {
        out.push(btn('btn-resign', t('game.resign'), () => { this.confirmResign = true; this.renderActions(); }, { class: 'danger' }));
      }
    }
    const aborted = S.outcome && S.outcome.reason === 'aborted';
    if (S.status === 'finished' && !S.rematch && !aborted) {
      if (S.rematch_offer === opp) out.push(btn('btn-rematch-accept', t('game.rematch_accept'), () => this.send('rematch_accept'), { class: 'primary' }));
      else out.push(btn('btn-rematch', S.rematch_offer === you ? t('game.rematch_offered') : t('game.rematch'), () => this.send('rematch_offer'), { disabled: S.rematch_offer === you }));
    }
    const focused = document.activeElement && document.activeElement.id;
    this.actions.replaceChildren(...out);
    if (focused) { const again = document.getElementById(focused); if (again) again.focus(); }
  }

  /**
   * Whether the game may still be aborted (and not yet won by a claim of
   * abandonment): before both sides have completed a turn. A clocked game
   * says so itself: `first_move_ms` is set exactly while a first turn is
   * pending. An untimed game sends nothing that says it, so the page counts
   * the turns the record shows completed (runs of one colour); the server
   * has the last word (`not_available`).
   */
  abortWindowOpen() {
    const S = this.S;
    if (S.status !== 'playing') return false;
    if (S.clock) return S.first_move_ms !== null && S.first_move_ms !== undefined;
    return completedTurns(S.moves, S.turn) < 2;
  }

  renderBars() {
    if (!this.S) return;
    const bottom = this.board.orientation;
    const top = bottom === 'white' ? 'black' : 'white';
    for (const [pos, colour] of [['top', top], ['bottom', bottom]]) {
      const seat = this.S.seats[colour];
      const connected = this.presence ? this.presence[colour] : seat.connected;
      const seatEl = this.seatEls[colour];
      if (this.isComputer(colour)) {
        // The computer's seat is played in the server: never offline, thinking on its turn.
        const thinking = this.S.status === 'playing' && this.S.turn === colour;
        seatEl.className = `seat computer online${thinking ? ' thinking' : ''}`;
        seatEl.title = t('game.seat_computer', { color: colorName(colour) });
        seatEl.replaceChildren(
          h('span', { class: 'dot', 'aria-hidden': 'true' }),
          h('span', { class: 'name' }, h('span', { class: 'visually-hidden' }, `${colorName(colour)}${t('game.name_sep')}`), this.computerName()),
          h('span', { class: 'conn-state' }, thinking ? t('game.thinking') : ''));
      } else {
        seatEl.className = `seat ${seat.taken ? (connected ? 'online' : 'away') : 'free'}`;
        seatEl.title = seat.taken ? (connected ? t('game.seat_connected') : t('game.seat_disconnected')) : t('game.seat_free');
        seatEl.replaceChildren(
          h('span', { class: 'dot', 'aria-hidden': 'true' }),
          h('span', { class: 'name' }, `${colorName(colour)}${this.you === colour ? ` ${t('game.you_mark')}` : ''}`),
          // Not null: replaceChildren writes a null argument as the text "null".
          seat.taken ? this.playerEl(colour) : '',
          h('span', { class: 'conn-state' }, seat.taken ? (connected ? t('game.state_online') : t('game.state_offline')) : t('game.state_waiting')));
      }
      const bar = this.bars[pos];
      if (bar.firstChild !== seatEl || bar.lastChild !== this.clockEls[colour]) bar.replaceChildren(seatEl, this.clockEls[colour]);
      bar.classList.toggle('to-move', this.S.status === 'playing' && this.S.turn === colour);
    }
  }

  /**
   * The account playing `colour` (`{name, rating}`; rating on the wire:
   * `{rating, deviation, provisional}`), or null for an anonymous seat. The
   * server names it in the state's `players` (or a seat's `user`).
   */
  playerOf(colour) {
    const S = this.S;
    const p = (S.players && S.players[colour]) || (S.seats[colour] && S.seats[colour].user) || null;
    const name = nameOf(p);
    if (!name) return null;
    let rating = null;
    if (p.rating && typeof p.rating === 'object') rating = p.rating;
    else if (typeof p.rating === 'number') rating = { rating: p.rating, provisional: !!p.provisional };
    return { name, rating };
  }

  /** The rating change of `colour` once a rated game ended: `{before, after, diff}` (whole numbers), or null. */
  ratingChange(colour) {
    const r = this.S.ratings && this.S.ratings[colour];
    if (!r) return null;
    const num = (x) => (x && typeof x === 'object' ? x.rating : x);
    const before = num(r.before);
    const after = num(r.after);
    if (typeof before !== 'number' || typeof after !== 'number') return null;
    const diff = typeof r.diff === 'number' ? r.diff : after - before;
    return { before: Math.round(before), after: Math.round(after), diff: Math.round(diff) };
  }

  /** The player beside a taken seat: the username (a link to the profile) and rating, or "Anonymous". */
  playerEl(colour) {
    const who = this.playerOf(colour);
    if (!who) return h('span', { class: 'player anonymous', id: `player-${colour}` }, t('lobby.anonymous'));
    const rating = ratingText(who.rating);
    const change = this.ratingChange(colour);
    return h('span', { class: 'player', id: `player-${colour}` },
      h('a', { href: profileUrl(who.name), class: 'player-name' }, who.name),
      rating ? h('span', { class: 'player-rating', title: who.rating.provisional ? t('game.rating_provisional') : t('game.rating') }, ` (${rating})`) : null,
      change ? h('span', { class: `rating-diff ${change.diff >= 0 ? 'up' : 'down'}`, id: `rating-diff-${colour}` }, ` ${diffText(change.diff)}`) : null);
  }

  /** Whether `colour` is the computer's seat (the state's `computer`, only in such games). */
  isComputer(colour) {
    const c = this.S && this.S.computer;
    return !!c && c.color === colour;
  }

  /** "Computer (level 3)". */
  computerName() {
    return t('lobby.computer_level', { level: this.S.computer.level });
  }

  renderMeta() {
    const p = this.presence;
    this.spectators.textContent = p ? t('game.spectators', { n: p.spectators }) : '';
    const muted = sound.isMuted();
    this.muteBtn.textContent = t('game.mute');
    this.muteBtn.setAttribute('aria-pressed', muted ? 'true' : 'false');
  }

  /**
   * A correspondence game: the time left for the side to move, in days and
   * hours ("White has 2 days 5 h to play, until Tue 3 Dec, 14:05"), from the
   * server's `deadline_ms` (wall-clock Unix ms: this browser's clock is
   * trusted for the countdown; the server alone flags the game).
   */
  renderTimeLeft() {
    const S = this.S;
    const c = S.correspondence;
    const deadline = c && S.status === 'playing' && typeof c.deadline_ms === 'number' ? c.deadline_ms : null;
    let text = '';
    if (deadline !== null) {
      const left = timeLeftText(deadline - Date.now());
      const until = deadlineText(deadline);
      text = this.you === S.turn ? t('game.deadline_you', { time: left, until })
        : t('game.deadline_other', { color: colorName(S.turn), time: left, until });
    }
    this.corrNote.hidden = !text;
    if (this.corrNote.textContent !== text) this.corrNote.textContent = text;
    this.corrNote.classList.toggle('low', deadline !== null && deadline - Date.now() < 3600000);
  }

  renderClocks() {
    const S = this.S;
    if (!S) return;
    const now = performance.now();
    for (const colour of ['white', 'black']) {
      const el = this.clockEls[colour];
      if (!S.clock) { el.textContent = ''; el.hidden = true; continue; }
      el.hidden = false;
      // Offline the clocks stand still (freezeClocks): the server's reading comes back on reconnecting.
      const running = S.clock.running === colour && S.status === 'playing' && this.online;
      const ms = Math.max(0, S.clock[colour] - (running ? now - this.clockAt : 0));
      const text = formatClock(ms);
      if (el.textContent !== text) el.textContent = text;
      el.classList.toggle('running', running);
      el.classList.toggle('low', ms < LOW_MS);
      if (running && colour === this.you && ms < LOW_SOUND_MS && !this.lowWarned) {
        this.lowWarned = true;
        sound.play('lowtime');
      }
    }
    this.renderTimeLeft();
    const away = this.awayLine(now);
    if (this.awayNote.textContent !== away) this.awayNote.textContent = away;
    if (this.claimOpen !== null && this.claimOpen !== this.claimOpenNow(now)) this.renderActions();
    if (S.first_move_ms !== null && S.first_move_ms !== undefined && S.status === 'playing') {
      const passed = this.online ? now - this.firstMoveAt : 0;
      const left = Math.max(0, Math.ceil((S.first_move_ms - passed) / 1000));
      const text = t('game.first_turn_within', { color: colorName(S.turn), n: left });
      if (this.note.textContent !== text) this.note.textContent = text;
    } else if (this.note.textContent) this.note.textContent = '';
  }
}

/** A countdown in whole seconds, rounded up: `0:42`, `1:00`. */
export function formatCountdown(ms) {
  const secs = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')}`;
}

export function formatClock(ms) {
  const total = Math.max(0, ms);
  if (total < 10000) return `0:0${(total / 1000).toFixed(1)}`;
  const secs = Math.ceil(total / 1000);
  const hours = Math.floor(secs / 3600);
  const mins = Math.floor((secs % 3600) / 60);
  const s = String(secs % 60).padStart(2, '0');
  return hours ? `${hours}:${String(mins).padStart(2, '0')}:${s}` : `${mins}:${s}`;
}

/** A draw claim the server offers (`claims`: `threefold_repetition`, `fifty_move_rule`) in words. */
function claimText(claim) {
  if (claim === 'threefold_repetition' || claim === 'fifty_move_rule') return t(`claim.${claim}`);
  return String(claim).replaceAll('_', ' ');
}

async function copy(text, button) {
  let ok = false;
  try { await navigator.clipboard.writeText(text); ok = true; } catch (_) {
    const tmp = h('textarea', { value: text });
    document.body.appendChild(tmp);
    tmp.select();
    try { ok = document.execCommand('copy'); } catch (__) { ok = false; }
    tmp.remove();
  }
  if (button) {
    const before = button.textContent;
    button.textContent = ok ? t('game.copied') : t('game.copy_failed');
    setTimeout(() => { button.textContent = before; }, 1500);
  }
}
