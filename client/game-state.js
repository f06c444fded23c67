// The game page's message state: the server's messages applied to the page's
// model (`S`, the last state kept current by events; `v`, its version; `you`;
// `presence`; the clocks' reference times; the sub-move awaiting its ack; the
// words of what just happened), and what that model says (the last turn, a turn
// ended by check, the abort window, players, ratings, the computer's seat).
// Methods of GamePage (game.js installs them on its prototype): `this` is the
// page, whose constructor lists the fields they keep.

import { saveSeat, errorText, colorName } from './api.js';
import { nameOf } from './live.js';
import { recordStart, lastTurn, completedTurns } from './record.js';
import * as sound from './sound.js';
import { announceEvent, announceArrival } from './announce.js';
import { t } from './i18n.js';

export const gameState = {
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
  },

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
        this.proposed = null;
        this.premoves.afterState();
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
        if (this.chat.claims(d)) { this.chat.onError(d.code, d.message); break; }
        if (this.pending && d.id !== undefined && d.id !== null && String(this.pending.id) === String(d.id)) this.pending = null;
        this.premoves.refused(d.id);
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
  },

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
        this.proposed = null;
        // Synchronously, in this event's handler: a premove leaves before the next frame.
        this.premoves.afterMove(d);
        sound.play(d.check ? 'check' : captured ? 'capture' : 'move');
        break;
      }
      case 'takeback': {
        const gone = S.moves.pop();
        if (gone) this.saidText = t('game.said_took_back', { color: colorName(gone.color), san: gone.san });
        setPosition();
        this.proposed = null;
        sound.play('move');
        break;
      }
      case 'draw_offer':
        S.draw_offer = d.by;
        this.saidText = '';
        break;
      case 'berserk':
        // An arena player gave up half their clock (and their increment) for a point more.
        if (S.arena) S.arena.berserk[d.by] = true;
        if (d.clock) { S.clock = d.clock; this.clockAt = performance.now(); }
        this.saidText = t('game.said_berserk', { color: colorName(d.by) });
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
        this.premoves.reset();
        this.proposed = null;
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
  },

  followRematch() {
    const d = this.rematchSeat;
    if (d && this.you) location.assign(d.url || `/game/${d.id}`);
  },

  /** The last turn among the first `count` sub-moves (record.js: the server's colours). */
  lastTurn(count) {
    return lastTurn(this.S.moves, count, recordStart(this.S.start_fen));
  },

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
  },

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
  },

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
  },

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
  },

  /** Whether `colour` is the computer's seat (the state's `computer`, only in such games). */
  isComputer(colour) {
    const c = this.S && this.S.computer;
    return !!c && c.color === colour;
  },
};
