// Board bookkeeping for display only: reading a FEN's placement and moving
// pieces for a UCI sub-move the server already declared legal (so the move
// list can show earlier positions). No legality: the server owns the rules.
// `applyUci` knows how castling moves the rook and an en-passant capture
// removes the pawn beside: the game state carries no FEN per sub-move (only
// the replay reply does), so reviewing an earlier position replays the
// record here. Turns are grouped in record.js, from the server's colours.

export const FILES = 'abcdefgh';

/** Map from square name (`e4`) to FEN piece letter. */
export function placement(fen) {
  const board = new Map();
  const rows = String(fen || '').split(' ')[0].split('/');
  rows.forEach((row, r) => {
    let file = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) file += Number(ch);
      else {
        if (file < 8 && r < 8) board.set(FILES[file] + (8 - r), ch);
        file += 1;
      }
    }
  });
  return board;
}

/** `{from, to, promo}` of a UCI sub-move. */
export function parseUci(uci) {
  return { from: uci.slice(0, 2), to: uci.slice(2, 4), promo: uci.slice(4, 5) };
}

/** The board after a sub-move the server accepted. */
export function applyUci(board, uci) {
  const next = new Map(board);
  const { from, to, promo } = parseUci(uci);
  const piece = board.get(from);
  if (!piece) return next;
  next.delete(from);
  const kind = piece.toLowerCase();
  if (kind === 'p' && from[0] !== to[0] && !board.has(to)) {
    next.delete(to[0] + from[1]); // en passant: the pawn beside the start square
  }
  if (kind === 'k' && Math.abs(FILES.indexOf(from[0]) - FILES.indexOf(to[0])) === 2) {
    const rank = from[1];
    const [rookFrom, rookTo] = to[0] === 'g' ? ['h', 'f'] : ['a', 'd'];
    const rook = next.get(rookFrom + rank);
    if (rook) {
      next.delete(rookFrom + rank);
      next.set(rookTo + rank, rook);
    }
  }
  const white = piece === piece.toUpperCase();
  next.set(to, promo ? (white ? promo.toUpperCase() : promo.toLowerCase()) : piece);
  return next;
}

/** The square of a side's king (`w`/`b`), or null. */
export function kingSquare(board, side) {
  const letter = side === 'w' ? 'K' : 'k';
  for (const [sq, p] of board) if (p === letter) return sq;
  return null;
}
