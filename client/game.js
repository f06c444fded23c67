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
// names legal sub-moves in SAN to match typed text (`legal` is UCI only);
// premove.js offers premove destinations on an open board while it is the
// opponent's turn (no `legal` exists for a position not yet reached): a
// queued premove is sent only if the server's next `legal` holds it.
//
// This file is the page itself: its state (the constructor), the socket, and
// what the player does (moves from the board or typed, confirmation, joining,
// review). Beside it: game-state.js (server messages applied to the model),
// game-premoves.js (the premove queue), game-view.js (drawing the page).

import { PremoveQueue } from './game-premoves.js';
import { gameState } from './game-state.js';
import { gameView, formatCountdown, formatClock } from './game-view.js';
import { request, seatToken, saveSeat, colorName } from './api.js';
import { GameSocket } from './socket.js';
import { placement, applyUci } from './fen.js';
import { matchTyped } from './typed.js';
import { setting } from './settings.js';
import { t } from './i18n.js';

export { formatCountdown, formatClock };

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
    this.premoves = new PremoveQueue(this); // the queued premoves (game-premoves.js)
    this.proposed = null; // a sub-move shown on the board, waiting for Confirm / Cancel
    this.build();
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

  /** A sub-move from the board: played on your turn, queued as a premove on the opponent's. */
  boardMove(uci) {
    if (this.S && this.review === null && this.premoves.allowed()) this.premoves.add(uci);
    else this.playMove(uci);
  }

  /** A sub-move chosen on your turn (board or typed): shown for confirmation first if the setting says so. */
  playMove(uci) {
    const S = this.S;
    if (!S || !this.you || S.turn !== this.you || S.status !== 'playing' || this.pending) return;
    if (this.confirmOn()) {
      this.proposed = uci;
      this.render();
      this.confirmBtn.focus();
      return;
    }
    this.sendMove(uci);
  }

  /** Sends a sub-move now; returns its ack id (null when it was not the moment). */
  sendMove(uci) {
    const S = this.S;
    if (!S || !this.you || S.turn !== this.you || S.status !== 'playing' || this.pending) return null;
    this.showNotice('');
    this.seq += 1;
    this.pending = { uci, id: `${Date.now().toString(36)}-${this.seq}`, v: this.v };
    if (!this.socket.send('move', { uci, id: this.pending.id, v: this.v })) {
      this.showNotice(t('game.offline_move_queued'), true);
    }
    // Show the move at once; the server's event confirms it (or an error undoes it).
    this.board.setPosition(applyUci(placement(S.fen), uci));
    this.board.setLegal([], null);
    return this.pending.id;
  }

  /** Whether sub-moves wait for Confirm: `confirmMoves` 'on', or 'correspondence' (the default) in a correspondence game. */
  confirmOn() {
    const c = setting('confirmMoves');
    return c === 'on' || (c === 'correspondence' && !!this.S && !!this.S.correspondence);
  }

  confirmMove() {
    const uci = this.proposed;
    this.proposed = null;
    if (uci) this.sendMove(uci);
    this.render();
  }

  cancelMove() {
    if (!this.proposed) return;
    const from = this.proposed.slice(0, 2);
    this.proposed = null;
    this.render();
    this.board.focusSquare(from);
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
}

// The page's other jobs, in files of their own (`this` is the page in each).
Object.assign(GamePage.prototype, gameState, gameView);
