// Says in words, through the page's polite live region (`#announcer` in
// index.html), what a screen-reader user cannot see happen on the board:
// the other side's sub-moves ("Black: knight f6, then pawn d5"), offers and
// the end of the game. A player's own actions are not read back.

import { outcomeText, colorName } from './api.js';
import { t } from './i18n.js';

// The pieces in words: `piece.{letter}` ("knight", "le cavalier", "el caballo").
const LETTERS = ['p', 'n', 'b', 'r', 'q', 'k'];
const pieceName = (letter) => (LETTERS.includes(letter) ? t(`piece.${letter}`) : letter);

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
  if (text.startsWith('O-O-O')) words = t('say.castles_queenside');
  else if (text.startsWith('O-O')) words = t('say.castles_kingside');
  else {
    const piece = pieceName(/^[NBRQK]/.test(text) ? text[0].toLowerCase() : 'p');
    words = t(text.includes('x') ? 'say.takes' : 'say.goes', { piece, square: to });
    if (LETTERS.includes(uci[4])) words += t('say.promotes', { piece: t(`promo.${uci[4]}`) });
    else if (uci[4]) words += t('say.promotes', { piece: uci[4] });
  }
  if (text.endsWith('#')) words += t('say.checkmate');
  else if (text.endsWith('+')) words += t('say.check');
  return words;
}

/** "Black", or "Black (computer)" for the computer's side (the state's `computer`). */
function who(color, state) {
  return state.computer && state.computer.color === color ? t('say.computer_side', { color: colorName(color) }) : colorName(color);
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
  announce(t('say.turn', { who: who(moves[moves.length - 1].color, state), moves: words.join(t('say.then')) }));
}

/**
 * Announces a game event if the user should hear it. `type` and `d` are the
 * WebSocket event; `state` is the page's state *before* the event (its
 * `fen` is the board the sub-move was played on); `you` is the user's
 * colour, or null for a spectator (who hears both sides).
 */
export function announceEvent(type, d, state, you) {
  if (!state) return;
  switch (type) {
    case 'move': {
      if (d.color === you) { run = null; return; }
      const words = describeSubMove(d.uci, d.san);
      const last = state.moves[state.moves.length - 1];
      // The record's last entry is this colour's: the same turn, add to it.
      if (run && run.color === d.color && last && last.color === d.color) run.words.push(words);
      else run = { color: d.color, words: [words] };
      announce(t('say.turn', { who: who(d.color, state), moves: run.words.join(t('say.then')) }));
      break;
    }
    case 'takeback': {
      const last = state.moves[state.moves.length - 1];
      run = null;
      if (last && last.color !== you) announce(t('say.took_back', { color: colorName(last.color), move: describeSubMove(last.uci, last.san) }));
      break;
    }
    case 'draw_offer':
      if (d.by !== you) announce(t('say.draw_offer', { color: colorName(d.by) }));
      break;
    case 'draw_decline':
      if (state.draw_offer && state.draw_offer === you) announce(t('say.draw_declined'));
      break;
    case 'rematch_offer':
      if (d.by !== you) announce(t('say.rematch_offer', { color: colorName(d.by) }));
      break;
    case 'end':
      run = null;
      announce(t('say.game_over', { outcome: outcomeText({ result: d.result, winner: d.winner, reason: d.reason }) }));
      break;
    default:
      break;
  }
}
