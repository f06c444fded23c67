// Premove geometry, for display only. While it is the opponent's turn the
// server sends no `legal` list for this player (there is nothing it could
// be: the position the premove will be played in does not exist yet), so
// the board needs some idea of where a piece could go to offer destinations
// at all. This module is that idea, and nothing more: the squares a piece
// could reach on an open board from where it stands (lines to the edge,
// ignoring blockers, like chessground's premove destinations), pawns one or
// two squares ahead and both diagonals, the king's castling squares. It
// never decides anything: a queued premove is sent only if it is in the
// `legal` list the server sends when the turn comes (game-premoves.js), and dropped
// otherwise. Promotions are queued as a queen (no dialog for a move that
// may never be played).

import { FILES } from './fen.js';

const KNIGHT = [[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]];
const KING = [[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]];
const ROOK = [[1, 0], [-1, 0], [0, 1], [0, -1]];
const BISHOP = [[1, 1], [1, -1], [-1, 1], [-1, -1]];

function square(file, rank) {
  return file >= 0 && file < 8 && rank >= 1 && rank <= 8 ? FILES[file] + rank : null;
}

function sideOf(piece) {
  return piece === piece.toUpperCase() ? 'w' : 'b';
}

/** The squares `from`'s piece could reach on an open board, as premove destinations. */
export function premoveTargets(board, from) {
  const piece = board.get(from);
  if (!piece) return [];
  const side = sideOf(piece);
  const f = FILES.indexOf(from[0]);
  const r = Number(from[1]);
  const out = [];
  const add = (sq) => { if (sq) out.push(sq); };
  const lines = (dirs) => {
    for (const [df, dr] of dirs) {
      for (let k = 1; k < 8; k += 1) add(square(f + df * k, r + dr * k));
    }
  };
  switch (piece.toLowerCase()) {
    case 'p': {
      const dir = side === 'w' ? 1 : -1;
      add(square(f, r + dir));
      if (r === (side === 'w' ? 2 : 7)) add(square(f, r + 2 * dir));
      add(square(f - 1, r + dir));
      add(square(f + 1, r + dir));
      break;
    }
    case 'n': for (const [df, dr] of KNIGHT) add(square(f + df, r + dr)); break;
    case 'b': lines(BISHOP); break;
    case 'r': lines(ROOK); break;
    case 'q': lines(ROOK); lines(BISHOP); break;
    case 'k': {
      for (const [df, dr] of KING) add(square(f + df, r + dr));
      const home = side === 'w' ? 1 : 8;
      const rook = side === 'w' ? 'R' : 'r';
      if (from === `e${home}`) {
        if (board.get(`h${home}`) === rook) add(`g${home}`);
        if (board.get(`a${home}`) === rook) add(`c${home}`);
      }
      break;
    }
    default: break;
  }
  // A square held by one's own piece is no destination (clicking it picks that piece instead).
  return out.filter((sq) => !board.get(sq) || sideOf(board.get(sq)) !== side);
}

/** Every premove of `side` (`w`/`b`) on `board`, as four-letter UCI (the board widget's list). */
export function premoveCandidates(board, side) {
  const out = [];
  for (const [from, piece] of board) {
    if (sideOf(piece) !== side) continue;
    for (const to of premoveTargets(board, from)) out.push(from + to);
  }
  return out;
}

/** The sub-move to queue for `uci` on `board`: a pawn reaching the last rank promotes to a queen. */
export function premoveUci(board, uci) {
  const piece = board.get(uci.slice(0, 2));
  const rank = uci[3];
  if (uci.length === 4 && piece && piece.toLowerCase() === 'p' && (rank === '8' || rank === '1')) return `${uci}q`;
  return uci;
}
