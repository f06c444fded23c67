// The typed move input (like lichess's keyboard input): a sub-move typed as
// SAN (`Nf3`, `exd6`, `O-O`, `d8=Q`, also `nf3`, `0-0`, `Ng1f3`) or UCI
// (`g1f3`, `d7d8q`) is matched against the legal sub-moves the server sent.
// No rules here: each legal sub-move is only *named* from the board (which
// piece stands on its from-square, whether its to-square is taken, which
// other legal sub-moves of the same piece kind reach the same square), and
// that name is compared with what was typed.

import { FILES } from './fen.js';
import { t } from './i18n.js';

const LETTERS = { n: 'N', b: 'B', r: 'R', q: 'Q', k: 'K' };
const UCI = /^[a-h][1-8][a-h][1-8][qrbn]?$/;

/** The SAN of a legal sub-move without a check mark: `Nbd2`, `exd6`, `O-O`, `d8=Q`. */
export function sanOf(board, legal, uci) {
  const from = uci.slice(0, 2);
  const to = uci.slice(2, 4);
  const promo = uci.slice(4, 5);
  const piece = board.get(from);
  if (!piece) return uci;
  const kind = piece.toLowerCase();
  if (kind === 'k' && Math.abs(FILES.indexOf(from[0]) - FILES.indexOf(to[0])) === 2) {
    return to[0] === 'g' ? 'O-O' : 'O-O-O';
  }
  if (kind === 'p') {
    const capture = from[0] !== to[0] ? `${from[0]}x` : '';
    return `${capture}${to}${promo ? `=${promo.toUpperCase()}` : ''}`;
  }
  const rivals = legal
    .filter((u) => u.slice(2, 4) === to && u.slice(0, 2) !== from && board.get(u.slice(0, 2)) === piece)
    .map((u) => u.slice(0, 2));
  let which = '';
  if (rivals.length) {
    if (!rivals.some((s) => s[0] === from[0])) which = from[0];
    else if (!rivals.some((s) => s[1] === from[1])) which = from[1];
    else which = from;
  }
  return `${LETTERS[kind] || ''}${which}${board.has(to) ? 'x' : ''}${to}`;
}

/** What is compared: no check, capture, promotion or castling punctuation; `O` for `0`. */
function norm(text) {
  let t = String(text).trim().replace(/[+#!?]+$/, '').replace(/[0o]/g, 'O').replace(/[x:=\-\s]/g, '');
  // A lower-case piece letter (`nf3`); `b` stays a pawn's file.
  if (/^[nrqk][a-hO1-8]/.test(t)) t = t[0].toUpperCase() + t.slice(1);
  return t;
}

/** The long form, piece letter and both squares: `Ng1f3`, `d7d8Q`. */
function longForm(board, uci) {
  const piece = board.get(uci.slice(0, 2)) || '';
  const letter = LETTERS[piece.toLowerCase()] || '';
  return `${letter}${uci.slice(0, 4)}${uci.slice(4).toUpperCase()}`;
}

/**
 * Matches typed text against the legal sub-moves on `board`.
 * Returns `{uci}` for exactly one match, or `{error}` in words.
 */
export function matchTyped(board, legal, typed) {
  const raw = String(typed).trim();
  if (!raw) return { error: t('typed.empty') };
  const uci = raw.toLowerCase().replace(/[\s-]/g, '');
  if (UCI.test(uci)) {
    if (legal.includes(uci)) return { uci };
    const promos = legal.filter((u) => u.length === 5 && u.startsWith(uci));
    if (promos.length) return { error: t('typed.add_promotion', { moves: promos.join(', ') }) };
    return { error: t('typed.not_legal', { move: raw }) };
  }
  const want = norm(raw);
  const named = legal.map((u) => ({ uci: u, san: sanOf(board, legal, u) }));
  const exact = named.filter((m) => norm(m.san) === want || longForm(board, m.uci) === want);
  if (exact.length === 1) return { uci: exact[0].uci };
  // The piece and its square without the file or rank that tells two apart.
  const loose = named.filter((m) => norm(m.san).replace(/^([NBRQK])[a-h]?[1-8]?(?=[a-h][1-8]$)/, '$1') === want);
  if (loose.length === 1) return { uci: loose[0].uci };
  if (loose.length > 1) return { error: t('typed.ambiguous', { move: raw, moves: loose.map((m) => m.san).join(t('typed.or')) }) };
  return { error: t('typed.no_match', { move: raw }) };
}
