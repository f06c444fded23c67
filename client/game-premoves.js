// The premove queue of the game page (`page.premoves`): while it is the
// opponent's turn the player may queue their next turn's S1, or S1 and S2.
// The `move` event that ends the opponent's turn sends the queued S1 at once,
// in the same handler (no frame in between), if it is in the new `legal`; the
// `move` event of that S1 then sends S2 if it is in that `legal` and the turn
// did not end (check on S1). Anything else drops the rest of the queue with a
// short sound. The opponent's S1 leaves the queue alone. Premoves are never
// confirmed; ordinary sub-moves (board or typed) are, when the setting
// `confirmMoves` says so ('on', or 'correspondence' in a correspondence game).
//
// A module of its own rather than part of premove.js: premove.js is pure
// board geometry (where a piece could go on an open board), with no page,
// socket, sound or setting; the queue is the page's behaviour around it (when
// to send, when to drop, what the page shows), and reads the page's state.

import { placement, applyUci } from './fen.js';
import { premoveUci } from './premove.js';
import { setting } from './settings.js';
import * as sound from './sound.js';
import { t } from './i18n.js';

export class PremoveQueue {
  /** `page`: the game page, whose `S`, `you` and `pending` it reads and whose `sendMove`, `showNotice` and `render` it calls. */
  constructor(page) {
    this.page = page;
    this.moves = []; // the queued premoves (UCI), at most a turn's two sub-moves
    this.sent = null; // {uci, id}: the queued S1 sent, until its `move` event (or error)
  }

  /** Whether a sub-move made now is queued as a premove: the opponent's turn of a game being played. */
  allowed() {
    const { S, you } = this.page;
    return !!S && !!you && S.status === 'playing' && S.turn !== you && setting('premoves') !== false;
  }

  /** The board as the queue leaves it (display only: where the queued pieces will stand). */
  board(board) {
    let map = board;
    for (const uci of this.moves) map = applyUci(map, uci);
    return map;
  }

  add(uci) {
    if (this.moves.length >= 2) return;
    this.moves.push(premoveUci(this.board(placement(this.page.S.fen)), uci));
    this.page.render();
  }

  /** Right-click, a tap on an empty square, Escape: the queue is cancelled. True when there was one. */
  cancel() {
    if (!this.moves.length) return false;
    this.moves = [];
    this.page.render();
    return true;
  }

  /** The `premoves` setting turned off: nothing stays queued. */
  clear() {
    this.moves = [];
  }

  /** The game ended: nothing queued, nothing awaited. */
  reset() {
    this.moves = [];
    this.sent = null;
  }

  /** The queue could not be played: dropped, with a short sound and a word. */
  drop() {
    if (!this.moves.length) return;
    this.moves = [];
    sound.play('drop');
    this.page.showNotice(t('premove.dropped'), true);
  }

  /** Sends the next queued premove if the server's `legal` holds it, else drops the queue. */
  fire() {
    const page = this.page;
    const S = page.S;
    const uci = this.moves[0];
    if (S.status === 'playing' && S.turn === page.you && !page.pending && S.legal.includes(uci)) {
      this.moves.shift();
      this.sent = { uci, id: page.sendMove(uci) };
    } else {
      this.drop();
    }
  }

  /**
   * After a `move` event (the position fields already applied): the opponent's
   * turn ended, so the queued S1 goes at once; the premoved S1 came back, so
   * S2 goes if the turn did not end. The opponent's S1 leaves the queue alone.
   */
  afterMove(d) {
    const { S, you } = this.page;
    const mine = d.color === you;
    const sent = this.sent;
    const ours = mine && !!sent && sent.uci === d.uci;
    if (ours) this.sent = null;
    if (!this.moves.length) return;
    if (!mine) {
      if (S.turn === you) this.fire();
      return;
    }
    if (ours && S.turn === you) this.fire();
    else this.drop(); // the turn ended by check on S1 (or another tab of this seat moved)
  }

  /** A snapshot (after a reconnect) at your turn: the queue goes on from what the record says. */
  afterState() {
    const { S, you, pending } = this.page;
    if (!this.moves.length || !you) return;
    if (S.status !== 'playing') { this.moves = []; this.sent = null; return; }
    if (S.turn !== you || pending) return;
    const last = S.moves[S.moves.length - 1];
    const sent = this.sent;
    this.sent = null;
    if (!last || last.color !== you || (sent && last.uci === sent.uci)) this.fire();
    else this.drop();
  }

  /** An error answering a sub-move (by its ack id): if it was the queued S1, the rest is dropped. */
  refused(id) {
    if (this.sent && id !== undefined && id !== null && String(this.sent.id) === String(id)) {
      this.sent = null;
      this.drop();
    }
  }
}
