// The game page's view: the page built once (`build`), then drawn from the
// model on every change (`render` and the `render*` parts: board, status,
// words, banner, the way back to an arena, join offer, invite, move list,
// actions, seats, clocks and the correspondence time left). Methods of
// GamePage (game.js installs them on its prototype): `this` is the page.

import {
  h, clockLabel, outcomeText, ratingText, diffText, timeControlOf, timeLeftText, deadlineText,
  colorName, variantName,
} from './api.js';
import { profileUrl } from './account.js';
import { AnalysisPanel } from './analysis.js';
import { Board } from './board.js';
import { placement, applyUci, kingSquare } from './fen.js';
import { recordStart, groupTurns, commaText } from './record.js';
import { sanOf } from './typed.js';
import { premoveCandidates } from './premove.js';
import { onSetting } from './settings.js';
import * as sound from './sound.js';
import { GameChat } from './chat.js';
import { setTitle, setOwnTurn, turnArrived } from './notify.js';
import { t } from './i18n.js';

const LOW_MS = 20000;
const LOW_SOUND_MS = 10000;

export const gameView = {
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
    // An arena game's way back to its arena (the state's `arena`), a button once the game is over.
    this.arenaLink = el('a', { id: 'arena-back', hidden: true }, t('game.back_to_arena'));
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
    this.confirmBtn = el('button', { type: 'button', id: 'btn-confirm-move', class: 'primary', onclick: () => this.confirmMove() }, t('confirm.confirm'));
    this.confirmText = el('span', { id: 'confirm-move-text' });
    this.confirmBar = el('div', {
      class: 'confirm-move', id: 'confirm-move', role: 'group', 'aria-label': t('confirm.label'), hidden: true,
      onkeydown: (e) => { if (e.key === 'Escape') { e.preventDefault(); this.cancelMove(); } },
    }, this.confirmText, this.confirmBtn,
    el('button', { type: 'button', id: 'btn-cancel-move', onclick: () => this.cancelMove() }, t('confirm.cancel')));
    this.premoveNote = el('p', { class: 'note premove-note', id: 'premove-note', 'aria-live': 'polite' });
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
    sound.onMuteChange(() => this.renderMeta()); // the settings panel switches sounds too
    this.meta = el('div', { class: 'meta' },
      this.conn, this.spectators,
      el('button', { type: 'button', id: 'btn-flip', onclick: () => { this.board.flip(); this.renderBars(); } }, t('game.flip')),
      this.muteBtn,
      el('button', { type: 'button', id: 'btn-copy-link', onclick: (e) => copy(this.inviteUrl(), e.currentTarget) }, t('game.copy_link')),
      el('a', { href: `/game/${this.id}.pgn`, id: 'pgn-link', class: 'button', download: `marseillais-${this.id}.pgn` }, t('game.download_pgn')));
    this.info = el('p', { class: 'game-info', id: 'game-info' });
    this.chat = new GameChat((t, d) => !!this.socket && this.socket.send(t, d), this.id);
    this.main.replaceChildren(el('div', { class: 'game' },
      el('div', { class: 'board-col' }, this.bars.top, this.boardWrap, this.bars.bottom, this.confirmBar, this.premoveNote),
      el('aside', { class: 'side panel' },
        this.info, this.status, this.arenaLink, this.corrNote, this.backBtn, this.saidEl, this.awayNote, this.note, this.banner,
        this.joinOffer, this.invite, this.notice,
        this.moveList, this.reviewBar, this.reviewNote, this.moveForm, this.actions, this.meta, this.chat.el)));
    this.board = new Board(this.boardWrap, { onMove: (uci) => this.boardMove(uci), onCancel: () => this.premoves.cancel() });
    onSetting('premoves', (on) => { if (!on) this.premoves.clear(); this.render(); });
    onSetting('confirmMoves', () => { this.proposed = null; this.render(); });
    document.addEventListener('keydown', (e) => {
      if (e.target.closest && e.target.closest('.board, input, textarea, select')) return;
      if (e.key === 'ArrowLeft') { this.step(-1); e.preventDefault(); }
      if (e.key === 'ArrowRight') { this.step(1); e.preventDefault(); }
    });
  },

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
    const canMove = live && this.you && S.status === 'playing' && S.turn === this.you && !this.pending && !this.proposed;
    if (live && this.premoves.allowed()) {
      // The opponent's turn: premove destinations on the board the queue leaves.
      const queued = this.premoves.board(boardMap);
      const offered = this.premoves.moves.length < 2 ? premoveCandidates(queued, this.you[0]) : [];
      this.board.setLegal(offered, offered.length ? this.you[0] : null);
    } else {
      this.board.setLegal(canMove ? S.legal : [], canMove ? this.you[0] : null);
    }
    if (live) {
      // What will stand there: the sub-move sent or shown for confirmation, then the queue.
      let ahead = boardMap;
      if (this.pending) ahead = applyUci(ahead, this.pending.uci);
      if (this.proposed) ahead = applyUci(ahead, this.proposed);
      ahead = this.premoves.board(ahead);
      if (ahead !== boardMap) this.board.setPosition(ahead);
    }
    this.board.setPremoves(live ? this.premoves.moves : []);
    this.renderConfirm(live, boardMap);
    this.premoveNote.textContent = live && this.premoves.moves.length
      ? t('premove.queued', { moves: this.premoves.moves.join(', ') }) : '';

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
    this.renderArenaLink();
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
  },

  /** The Confirm / Cancel bar of a sub-move shown before it is sent. */
  renderConfirm(live, boardMap) {
    const show = live && !!this.proposed;
    this.confirmBar.hidden = !show;
    if (show) this.confirmText.textContent = t('confirm.prompt', { move: sanOf(boardMap, this.S.legal, this.proposed) });
  },

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
  },

  /** What just happened, and the standing offers, in words (for players and spectators alike). */
  saidLine() {
    const S = this.S;
    const parts = [];
    if (this.saidText) parts.push(this.saidText);
    if (S.status === 'playing' && S.draw_offer) parts.push(t('game.offers_draw', { color: colorName(S.draw_offer) }));
    if (S.status === 'finished' && S.rematch_offer && !S.rematch) parts.push(t('game.offers_rematch', { color: colorName(S.rematch_offer) }));
    return parts.join(' ');
  },

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
  },

  /** Whether this player may claim victory over the opponent now (the server has the last word). */
  claimOpenNow(now) {
    const opp = this.you === 'white' ? 'black' : 'white';
    const at = this.claimAt[opp];
    return typeof at !== 'number' || at <= now;
  },

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
  },

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
    // The analysis board on this game: its moves as a tree, the analysis's marks, engine lines.
    parts.push(h('a', { href: `/analysis?game=${encodeURIComponent(this.id)}`, id: 'analysis-board-link', class: 'button' }, t('board.open_board')));
    if (S.rematch) parts.push(h('a', { href: `/game/${S.rematch}`, id: 'rematch-link', class: 'button' }, this.you ? t('game.go_rematch') : t('game.watch_rematch')));
    const changes = ['white', 'black'].map((c) => [c, this.ratingChange(c)]).filter(([, ch]) => ch);
    if (changes.length) {
      parts.push(h('span', { class: 'rating-change', id: 'rating-change' }, changes.map(([c, ch]) => {
        const who = this.playerOf(c);
        return `${colorName(c)}${who ? ` ${who.name}` : ''}: ${ch.before} → ${ch.after} (${diffText(ch.diff)})`;
      }).join(' · ')));
    }
    this.banner.replaceChildren(...parts);
  },

  /** "Back to the arena" in an arena game (`arena: {id}`, absent otherwise): most visible at the end. */
  renderArenaLink() {
    const arena = this.S.arena;
    this.arenaLink.hidden = !(arena && arena.id);
    if (this.arenaLink.hidden) return;
    this.arenaLink.href = `/arena/${encodeURIComponent(arena.id)}`;
    this.arenaLink.className = this.S.status === 'finished' ? 'button primary arena-back' : 'arena-back';
  },

  renderInvite() {
    const show = !!this.you && this.S.status === 'open';
    this.invite.hidden = !show;
    if (!show || this.invite.childElementCount) return;
    const input = h('input', { type: 'text', readonly: true, value: this.inviteUrl(), id: 'invite-link', 'aria-label': t('game.invite_link'), onfocus: (e) => e.target.select() });
    this.invite.replaceChildren(
      h('p', {}, t('game.invite_text')),
      h('div', { class: 'row' }, input, h('button', { type: 'button', class: 'primary', id: 'btn-copy-invite', onclick: (e) => copy(this.inviteUrl(), e.currentTarget) }, t('game.copy_invite'))));
  },

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
  },

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
      // Berserk (arena games): before your first sub-move, once (the server checks it too).
      if (S.arena && S.clock && !S.arena.berserk[you] && !S.moves.some((m) => m.color === you)) {
        out.push(btn('btn-berserk', t('game.berserk'), () => this.send('berserk'),
          { title: t('game.berserk_title') }));
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
  },

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
  },

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
  },

  /** "Computer (level 3)". */
  computerName() {
    return t('lobby.computer_level', { level: this.S.computer.level });
  },

  renderMeta() {
    const p = this.presence;
    this.spectators.textContent = p ? t('game.spectators', { n: p.spectators }) : '';
    const muted = sound.isMuted();
    this.muteBtn.textContent = t('game.mute');
    this.muteBtn.setAttribute('aria-pressed', muted ? 'true' : 'false');
  },

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
  },

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
  },
};

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
