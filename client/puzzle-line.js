// The puzzle trainer's board bookkeeping, for display only: which sub-moves
// the board offers, the line named in SAN, the line as a comma PGN for the
// engine's analysis. No rule is decided here.
//
// A puzzle comes with no `legal` list (docs/protocol.md, "Puzzles"): the
// server judges every sub-move posted to `/api/puzzles/{id}/moves`, and
// answers 400 for one that is not legal. The board still needs destinations
// to offer, so `candidates` gives each piece the squares its moves reach on
// this board (blockers counted, pawns pushing onto empty squares and taking
// diagonally, castling when the squares between are empty, en passant beside
// an enemy pawn): a superset of the legal sub-moves, and nothing more.
// Check, pins and castling rights are the server's. Unlike premove.js
// (squares on an open board, for a position that does not exist yet), this is
// the position the sub-move is played in.

import { FILES, applyUci } from './fen.js';
import { sanOf } from './typed.js';

const KNIGHT = [[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]];
const KING = [[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]];
const ROOK = [[1, 0], [-1, 0], [0, 1], [0, -1]];
const BISHOP = [[1, 1], [1, -1], [-1, 1], [-1, -1]];
const PROMOTIONS = ['q', 'r', 'b', 'n'];

function square(file, rank) {
  return file >= 0 && file < 8 && rank >= 1 && rank <= 8 ? FILES[file] + rank : null;
}

/** `w` or `b`: whose piece a FEN letter is. */
export function sideOf(piece) {
  return piece === piece.toUpperCase() ? 'w' : 'b';
}

/** `w` or `b`: the side to move of a FEN (its second field). */
export function fenSide(fen) {
  return String(fen || '').split(' ')[1] === 'b' ? 'b' : 'w';
}

/** The sub-moves `side` (`w`/`b`) could try on `board`, as UCI (promotions spelt out). */
export function candidates(board, side) {
  const out = [];
  for (const [from, piece] of board) {
    if (sideOf(piece) !== side) continue;
    for (const uci of pieceMoves(board, from, piece, side)) out.push(uci);
  }
  return out;
}

function pieceMoves(board, from, piece, side) {
  const f = FILES.indexOf(from[0]);
  const r = Number(from[1]);
  const out = [];
  const enemy = (sq) => { const p = board.get(sq); return !!p && sideOf(p) !== side && p.toLowerCase() !== 'k'; };
  const free = (sq) => !!sq && !board.has(sq);
  const step = (sq) => { if (sq && (free(sq) || enemy(sq))) out.push(from + sq); };
  const lines = (dirs) => {
    for (const [df, dr] of dirs) {
      for (let k = 1; k < 8; k += 1) {
        const sq = square(f + df * k, r + dr * k);
        if (!sq) break;
        step(sq);
        if (board.has(sq)) break;
      }
    }
  };
  switch (piece.toLowerCase()) {
    case 'p': return pawnMoves(board, from, side, free, enemy);
    case 'n': for (const [df, dr] of KNIGHT) step(square(f + df, r + dr)); break;
    case 'b': lines(BISHOP); break;
    case 'r': lines(ROOK); break;
    case 'q': lines(ROOK); lines(BISHOP); break;
    case 'k': {
      for (const [df, dr] of KING) step(square(f + df, r + dr));
      const home = side === 'w' ? 1 : 8;
      const rook = side === 'w' ? 'R' : 'r';
      if (from === `e${home}`) {
        if (board.get(`h${home}`) === rook && ['f', 'g'].every((c) => free(`${c}${home}`))) out.push(`${from}g${home}`);
        if (board.get(`a${home}`) === rook && ['b', 'c', 'd'].every((c) => free(`${c}${home}`))) out.push(`${from}c${home}`);
      }
      break;
    }
    default: break;
  }
  return out;
}

function pawnMoves(board, from, side, free, enemy) {
  const f = FILES.indexOf(from[0]);
  const r = Number(from[1]);
  const dir = side === 'w' ? 1 : -1;
  const last = side === 'w' ? 8 : 1;
  const out = [];
  const add = (to) => {
    if (Number(to[1]) === last) for (const p of PROMOTIONS) out.push(from + to + p);
    else out.push(from + to);
  };
  const one = square(f, r + dir);
  if (free(one)) {
    add(one);
    const two = square(f, r + 2 * dir);
    if (r === (side === 'w' ? 2 : 7) && free(two)) add(two);
  }
  for (const df of [-1, 1]) {
    const to = square(f + df, r + dir);
    if (!to) continue;
    if (enemy(to)) add(to);
    // En passant: an empty square behind an enemy pawn beside (whether the right exists is the server's).
    const beside = square(f + df, r);
    const pawn = side === 'w' ? 'p' : 'P';
    if (free(to) && r === (side === 'w' ? 5 : 4) && board.get(beside) === pawn) add(to);
  }
  return out;
}

/**
 * Each turn of a line played from `board`, named in SAN without check marks (`Nf3`, `exd5`,
 * `O-O`, `e8=Q`): `[['e4', 'd4'], ['e5', 'Qh4'], ...]`. Disambiguation looks at the
 * candidates, a superset of the legal sub-moves: at worst a piece's file is written when the
 * other piece could not legally go there (which the server's tolerant reader takes too).
 */
export function sanTurns(board, turns) {
  let map = board;
  return turns.map((turn) => turn.map((uci) => {
    const piece = map.get(uci.slice(0, 2));
    const san = piece ? sanOf(map, candidates(map, sideOf(piece)), uci) : uci;
    map = applyUci(map, uci);
    return san;
  }));
}

/**
 * The comma PGN of a line from `fen` (the position before its first turn), for the replay page
 * and `POST /api/analysis`: `[SetUp "1"]`, `[FEN "..."]`, then the turns with their numbers
 * (the fullmove number goes up after each Black turn).
 */
export function linePgn(fen, sanLines) {
  const fields = String(fen).split(' ');
  let number = Number(fields[5]) || 1;
  let side = fenSide(fen);
  const tokens = [];
  sanLines.forEach((turn, i) => {
    if (side === 'w') tokens.push(`${number}.`);
    else if (i === 0) tokens.push(`${number}...`);
    tokens.push(turn.join(','));
    if (side === 'b') number += 1;
    side = side === 'w' ? 'b' : 'w';
  });
  const quoted = String(fen).replace(/["\\]/g, '');
  return `[Variant "Marseillais"]\n[SetUp "1"]\n[FEN "${quoted}"]\n\n${tokens.join(' ')} *\n`;
}
