// Board bookkeeping for display only: reading a FEN's placement and moving
// pieces for a UCI sub-move the server already declared legal (so the move
// list can show earlier positions). No legality: the server owns the rules.

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

/** The FEN fields: side `w`/`b`, fullmove number and phase (`s`, `1`, `2`). */
export function fenInfo(fen) {
  const f = String(fen || '').trim().split(/\s+/);
  const side = f[1] === 'b' ? 'b' : 'w';
  const fullmove = Number(f[5]) || 1;
  let phase = f[6];
  if (!['s', '1', '2'].includes(phase)) phase = side === 'w' && fullmove === 1 ? 's' : '1';
  return { side, fullmove, phase };
}

/** `{from, to, promo}` of a UCI sub-move. */
export function parseUci(uci) {
  return { from: uci.slice(0, 2), to: uci.slice(2, 4), promo: uci.slice(4, 5) };
}

/** Whether the sub-move takes something on this board (en passant included). */
export function isCapture(board, uci) {
  const { from, to } = parseUci(uci);
  const piece = board.get(from);
  return board.has(to) || (!!piece && piece.toLowerCase() === 'p' && from[0] !== to[0]);
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

/**
 * Groups sub-moves into turns as comma PGN writes them: consecutive
 * sub-moves of one colour are one turn (docs/protocol.md 3.3).
 * `moves` are `{san, color}`; returns `[{number, color, label, items: [{index, san}]}]`.
 */
export function groupTurns(startFen, moves) {
  const info = fenInfo(startFen);
  let number = info.fullmove;
  const turns = [];
  moves.forEach((m, index) => {
    const last = turns[turns.length - 1];
    const colour = m.color === 'black' ? 'black' : 'white';
    // The server says who moved: a turn is a run of one colour's sub-moves
    // (no rule about checks or turn lengths is re-derived here).
    if (last && last.color === colour) {
      last.items.push({ index, san: m.san });
      return;
    }
    if (last && last.color === 'black') number += 1;
    const turn = { number, color: colour, items: [{ index, san: m.san }] };
    turn.leadingComma = index === 0 && info.phase === '2';
    turns.push(turn);
  });
  return turns;
}

/** The comma-notation text of grouped turns: `1. e4 e5,Nc6`. */
export function commaText(turns) {
  const out = [];
  turns.forEach((t, i) => {
    if (t.color === 'white') out.push(`${t.number}.`);
    else if (i === 0) out.push(`${t.number}...`);
    out.push((t.leadingComma ? ',' : '') + t.items.map((m) => m.san).join(','));
  });
  return out.join(' ');
}
