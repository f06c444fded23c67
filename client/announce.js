// Says in words, through the page's polite live region (`#announcer` in
// index.html), what a screen-reader user cannot see happen on the board:
// the other side's sub-moves ("Black: knight f6, then pawn d5"), offers and
// the end of the game. A player's own actions are not read back.

import { outcomeText, cap } from './api.js';

const NAMES = { p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king' };

// The sub-moves of the turn being announced: `{color, words: []}`.
let run = null;

function region() {
  return document.getElementById('announcer');
}

/** Puts `text` in the live region (screen readers read the change). */
export function announce(text) {
  const el = region();
  if (el) el.textContent = text;
}

/**
 * One sub-move in words, from the server's SAN and UCI (no board, no rule:
 * SAN already says the piece, a capture, castling, a promotion and a check):
 * "knight f6", "pawn takes d5", "castles kingside", "pawn e8, promotes to
 * queen, check".
 */
export function describeSubMove(uci, san = '') {
  const to = uci.slice(2, 4);
  const text = String(san);
  let words;
  if (text.startsWith('O-O-O')) words = 'castles queenside';
  else if (text.startsWith('O-O')) words = 'castles kingside';
  else {
    const kind = /^[NBRQK]/.test(text) ? text[0].toLowerCase() : 'p';
    words = `${NAMES[kind]} ${text.includes('x') ? 'takes ' : ''}${to}`;
    if (uci[4]) words += `, promotes to ${NAMES[uci[4]] || uci[4]}`;
  }
  if (text.endsWith('#')) words += ', checkmate';
  else if (text.endsWith('+')) words += ', check';
  return words;
}

/** "Black", or "Black (computer)" for the computer's side (the state's `computer`). */
function who(color, state) {
  return state.computer && state.computer.color === color ? `${cap(color)} (computer)` : cap(color);
}

/**
 * On opening a game at the player's turn, says the opponent's turn that led
 * to it (the sub-moves the page did not see happen live: a computer that
 * opened before the page connected, an opponent who moved while the page
 * was closed), in the words of a live announcement. `state` is the first
 * snapshot; `you` the player's colour (nothing for a spectator).
 */
export function announceArrival(state, you) {
  if (!state || !you || state.status !== 'playing' || state.turn !== you) return;
  const moves = state.moves || [];
  const words = [];
  for (let i = moves.length - 1; i >= 0 && moves[i].color !== you; i -= 1) {
    words.unshift(describeSubMove(moves[i].uci, moves[i].san));
  }
  if (!words.length) return;
  run = null;
  announce(`${who(moves[moves.length - 1].color, state)}: ${words.join(', then ')}`);
}

/**
 * Announces a game event if the user should hear it. `t` and `d` are the
 * WebSocket event; `state` is the page's state *before* the event (its
 * `fen` is the board the sub-move was played on); `you` is the user's
 * colour, or null for a spectator (who hears both sides).
 */
export function announceEvent(t, d, state, you) {
  if (!state) return;
  switch (t) {
    case 'move': {
      if (d.color === you) { run = null; return; }
      const words = describeSubMove(d.uci, d.san);
      const last = state.moves[state.moves.length - 1];
      // The record's last entry is this colour's: the same turn, add to it.
      if (run && run.color === d.color && last && last.color === d.color) run.words.push(words);
      else run = { color: d.color, words: [words] };
      announce(`${who(d.color, state)}: ${run.words.join(', then ')}`);
      break;
    }
    case 'takeback': {
      const last = state.moves[state.moves.length - 1];
      run = null;
      if (last && last.color !== you) announce(`${cap(last.color)} took back ${describeSubMove(last.uci, last.san)}`);
      break;
    }
    case 'draw_offer':
      if (d.by !== you) announce(`${cap(d.by)} offers a draw`);
      break;
    case 'draw_decline':
      if (state.draw_offer && state.draw_offer === you) announce('Your draw offer was declined');
      break;
    case 'rematch_offer':
      if (d.by !== you) announce(`${cap(d.by)} offers a rematch`);
      break;
    case 'end':
      run = null;
      announce(`Game over: ${outcomeText({ result: d.result, winner: d.winner, reason: d.reason })}`);
      break;
    default:
      break;
  }
}
