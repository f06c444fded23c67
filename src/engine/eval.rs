//! Static evaluation built for double moves, in centipawns from the point of
//! view of the side to move.
//!
//! Every term says why it exists. The thread running through them: in
//! Marseillais the side to move next plays *two* sub-moves, so whatever it can
//! reach in two steps is as real as what an orthodox side reaches in one.
//!
//! - **Material** dominates, as in orthodox chess. Values are a little
//!   different from the orthodox ones: a knight or bishop that moves twice
//!   covers much more of the board, and a queen that moves twice is a mating
//!   force on its own, so minor pieces and the queen gain against pawns.
//! - **Piece-square tables** (built from a few rules, not copied tables):
//!   centralised knights and bishops, advanced pawns (which promote in fewer
//!   turns: a pawn on the sixth rank queens in one turn), a king that hides
//!   in the middle game and walks to the centre in the end game. Tapered by
//!   the amount of material left.
//! - **Mobility**: squares a piece reaches that no enemy pawn guards. With two
//!   sub-moves a piece's reach squared is what matters, so mobility counts for
//!   a little more than in orthodox engines.
//! - **King safety**: enemy pieces that attack the squares around the king
//!   *and pieces one move away from attacking them* (with two sub-moves, a
//!   queen two moves from the king is a mating threat: S1 brings it closer,
//!   S2 mates), weighted more when the attacker moves next and more again when
//!   it has two sub-moves to come; plus the pawn shield in front of the king.
//! - **Pawn structure and pieces' files**: passed pawns (on top of the rank: nothing
//!   can block them), doubled and isolated pawns, the bishop pair, rooks on open and
//!   half-open files. Orthodox terms whose worth with two sub-moves per turn the tuner
//!   measures rather than guesses.
//! - **Tempo**: the side to move at S1 still has two sub-moves before the
//!   opponent plays, at S2 only one. Without this term the evaluation would
//!   swing with the phase of the leaf and the search would prefer odd or even
//!   depths.
//! - **The numbers** live in [`super::weights`], where the tuner (Texel's method) can move
//!   them.
//! - **Level noise** ([`super::level`]): a deterministic pseudo-random amount
//!   per position, so that lower levels misjudge positions (and still search
//!   consistently: the same position always gets the same noise).

use cozy_chess::{
    BitBoard, Color, Piece, Square, get_bishop_moves, get_king_moves, get_knight_moves,
    get_pawn_attacks, get_rook_moves,
};

use crate::rules::{Phase, Position};

use super::weights::{Pair, Weights};

/// Material values in centipawns for move ordering (MVV-LVA), indexed by `Piece as usize`
/// (pawn, knight, bishop, rook, queen, king). The evaluation's own are in [`Weights`].
pub const VALUE: [i32; 6] = [100, 330, 340, 500, 1000, 0];

/// Game-phase weight of each piece: 24 with all pieces on the board.
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
const PHASE_TOTAL: i32 = 24;

/// Evaluates `pos` for the side to move (level noise is added by the search).
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, &Weights::DEFAULT)
}

/// [`evaluate`] with other numbers: what the tuner calls.
#[inline(always)]
pub fn evaluate_with(pos: &Position, w: &Weights) -> i32 {
    let white = evaluate_white(pos, w);
    let tempo = match pos.phase() {
        Phase::Second => w.tempo_second,
        Phase::First | Phase::Single => w.tempo_first,
    };
    match pos.side_to_move() {
        Color::White => white + tempo,
        Color::Black => -white + tempo,
    }
}

/// The game phase: 24 at the start, 0 with only kings and pawns.
fn game_phase(pos: &Position) -> i32 {
    let board = pos.board();
    let mut phase = 0;
    for piece in Piece::ALL {
        phase += PHASE_WEIGHT[piece as usize] * board.pieces(piece).len() as i32;
    }
    phase.min(PHASE_TOTAL)
}

/// Middle-game and end-game score of `pos` from White's side, blended.
fn evaluate_white(pos: &Position, w: &Weights) -> i32 {
    let phase = game_phase(pos);
    let mut mg = 0;
    let mut eg = 0;
    for color in Color::ALL {
        let sign = if color == Color::White { 1 } else { -1 };
        let (m, e) = side_terms(pos, color, w);
        mg += sign * m;
        eg += sign * e;
    }
    (mg * phase + eg * (PHASE_TOTAL - phase)) / PHASE_TOTAL
}

fn add(total: &mut Pair, (m, e): Pair) {
    total.0 += m;
    total.1 += e;
}

fn scaled((m, e): Pair, n: i32) -> Pair {
    (m * n, e * n)
}

/// Material, piece-square, mobility, pawn-structure and king-safety terms of one side.
fn side_terms(pos: &Position, us: Color, w: &Weights) -> Pair {
    let board = pos.board();
    let them = !us;
    let occupied = board.occupied();
    let ours = board.colored(us);
    let our_pawns = board.colored_pieces(us, Piece::Pawn);
    let their_pawns = board.colored_pieces(them, Piece::Pawn);
    let mut enemy_pawn_attacks = BitBoard::EMPTY;
    for sq in their_pawns {
        enemy_pawn_attacks |= get_pawn_attacks(sq, them);
    }
    let mut total = (0, 0);
    for piece in Piece::ALL {
        for sq in board.colored_pieces(us, piece) {
            let rel = sq.relative_to(us);
            if piece != Piece::King {
                add(&mut total, w.material[piece as usize]);
            }
            add(&mut total, piece_square(piece, rel, w));
            match piece {
                Piece::Pawn => {
                    add(&mut total, pawn_terms(sq, us, our_pawns, their_pawns, w));
                    continue;
                }
                Piece::King => continue,
                Piece::Rook => add(&mut total, rook_file(sq, our_pawns, their_pawns, w)),
                _ => {}
            }
            let reach = attacks(piece, sq, us, occupied) & !ours & !enemy_pawn_attacks;
            // Centred on a typical count so that the term is a difference.
            let n = reach.len() as i32 - 4;
            add(&mut total, scaled(w.mobility[piece as usize - 1], n));
        }
    }
    if board.colored_pieces(us, Piece::Bishop).len() >= 2 {
        add(&mut total, w.bishop_pair);
    }
    let (km, ke) = king_danger(pos, us, w);
    (total.0 - km, total.1 - ke)
}

/// A pawn's structure terms: passed, doubled, isolated.
fn pawn_terms(sq: Square, us: Color, ours: BitBoard, theirs: BitBoard, w: &Weights) -> Pair {
    let mut total = (0, 0);
    let file = sq.file();
    let ahead = forward_span(sq, us);
    let beside = file.adjacent();
    if (theirs & (ahead | forward_span_on(beside, sq, us))).is_empty() {
        add(
            &mut total,
            w.passed_rank[sq.relative_to(us).rank() as usize],
        );
    }
    if !(ours & ahead).is_empty() {
        add(&mut total, w.doubled);
    }
    if (ours & beside).is_empty() {
        add(&mut total, w.isolated);
    }
    total
}

/// A rook's file: open (no pawns) or half-open (none of its own).
fn rook_file(sq: Square, ours: BitBoard, theirs: BitBoard, w: &Weights) -> Pair {
    let file = sq.file().bitboard();
    match ((ours & file).is_empty(), (theirs & file).is_empty()) {
        (true, true) => w.rook_open,
        (true, false) => w.rook_half_open,
        _ => (0, 0),
    }
}

/// The squares of `sq`'s file ahead of it, from `us`'s side.
fn forward_span(sq: Square, us: Color) -> BitBoard {
    forward_span_on(sq.file().bitboard(), sq, us)
}

/// The squares of `files` on the ranks ahead of `sq`, from `us`'s side.
fn forward_span_on(files: BitBoard, sq: Square, us: Color) -> BitBoard {
    let rank = sq.rank() as u32;
    let ahead = match us {
        Color::White => (!0u64).checked_shl(8 * (rank + 1)).unwrap_or(0),
        Color::Black => (1u64 << (8 * rank)) - 1,
    };
    files & BitBoard(ahead)
}

/// Squares `piece` of `color` on `sq` attacks.
fn attacks(piece: Piece, sq: Square, color: Color, occupied: BitBoard) -> BitBoard {
    match piece {
        Piece::Pawn => get_pawn_attacks(sq, color),
        Piece::Knight => get_knight_moves(sq),
        Piece::Bishop => get_bishop_moves(sq, occupied),
        Piece::Rook => get_rook_moves(sq, occupied),
        Piece::Queen => get_bishop_moves(sq, occupied) | get_rook_moves(sq, occupied),
        Piece::King => get_king_moves(sq),
    }
}

/// The danger to `us`'s king (middle game, end game), as a penalty.
fn king_danger(pos: &Position, us: Color, w: &Weights) -> Pair {
    let board = pos.board();
    let them = !us;
    let Some(king) = board.king(us) else {
        return (0, 0);
    };
    let occupied = board.occupied();
    let zone = get_king_moves(king) | king.bitboard();
    // Squares from which each kind of piece would attack the zone.
    let mut from_knight = BitBoard::EMPTY;
    let mut from_bishop = BitBoard::EMPTY;
    let mut from_rook = BitBoard::EMPTY;
    for z in zone {
        from_knight |= get_knight_moves(z);
        from_bishop |= get_bishop_moves(z, occupied);
        from_rook |= get_rook_moves(z, occupied);
    }
    let theirs = board.colored(them);
    let mut units = 0;
    let mut attackers = 0;
    for piece in [Piece::Knight, Piece::Bishop, Piece::Rook, Piece::Queen] {
        let launch = match piece {
            Piece::Knight => from_knight,
            Piece::Bishop => from_bishop,
            Piece::Rook => from_rook,
            _ => from_bishop | from_rook,
        };
        for sq in board.colored_pieces(them, piece) {
            let reach = attacks(piece, sq, them, occupied);
            if !(reach & zone).is_empty() {
                units += w.attack_now[piece as usize];
                attackers += 1;
            } else if !(reach & launch & !theirs).is_empty() {
                units += w.attack_next[piece as usize - 1];
                attackers += 1;
            }
        }
    }
    for sq in board.colored_pieces(them, Piece::Pawn) {
        if !(get_pawn_attacks(sq, them) & zone).is_empty() {
            units += w.attack_now[Piece::Pawn as usize];
        }
    }
    // One lone attacker rarely mates; several do, and faster with two
    // sub-moves per turn. Quadratic in the units.
    let mut danger = if attackers >= 2 {
        units * units * w.danger_many
    } else {
        units * w.danger_one
    };
    if board.colored_pieces(them, Piece::Queen).is_empty() {
        danger /= 2;
    }
    // The attacker moving next makes every threat one step closer; with
    // two sub-moves to come, two steps.
    if pos.side_to_move() == them {
        danger = match pos.phase() {
            Phase::First => danger * 3 / 2,
            _ => danger * 5 / 4,
        };
    }
    // Pawn shield: own pawns on the three files around the king, one or two
    // ranks in front. Only meaningful while the king stays home.
    let rel_rank = king.relative_to(us).rank() as i32;
    let mut shield_penalty = 0;
    if rel_rank <= 1 {
        let pawns = board.colored_pieces(us, Piece::Pawn);
        for df in -1..=1 {
            let forward = if us == Color::White { 1 } else { -1 };
            let near = king.try_offset(df, forward);
            let far = king.try_offset(df, 2 * forward);
            let covered = near.is_some_and(|s| pawns.has(s)) || far.is_some_and(|s| pawns.has(s));
            if near.is_some() && !covered {
                shield_penalty += w.shield;
            }
        }
    }
    let danger = danger.clamp(0, w.danger_cap);
    (danger + shield_penalty, danger / 4)
}

/// Piece-square bonus (middle game, end game) for `piece` on `rel`, the
/// square seen from its own side (rank 1 is its back rank).
fn piece_square(piece: Piece, rel: Square, w: &Weights) -> Pair {
    let file = rel.file() as usize;
    let rank = rel.rank() as usize;
    // Distance from the centre, 0 (d4..e5) to 3 (corners), per axis.
    let fd = if file < 4 { 3 - file } else { file - 4 };
    let rd = if rank < 4 { 3 - rank } else { rank - 4 };
    let centre = fd.max(rd);
    match piece {
        Piece::Pawn => {
            let mut pair = w.pawn_rank[rank];
            if (3..=4).contains(&file) && (2..=4).contains(&rank) {
                add(&mut pair, w.pawn_centre);
            }
            pair
        }
        Piece::Knight => w.knight_centre[centre],
        Piece::Bishop => w.bishop_centre[centre],
        Piece::Rook => {
            let mut pair = (0, 0);
            if rank == 6 {
                add(&mut pair, w.rook_seventh);
            }
            if (2..=5).contains(&file) {
                add(&mut pair, w.rook_centre_file);
            }
            pair
        }
        Piece::Queen => w.queen_centre[centre],
        Piece::King => {
            let mg = if rank == 0 {
                w.king_back_rank[file]
            } else {
                w.king_rank[rank]
            };
            (mg, w.king_centre[centre])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_position_is_balanced_up_to_the_tempo() {
        let pos = Position::initial();
        assert_eq!(evaluate(&pos), Weights::DEFAULT.tempo_first);
    }

    #[test]
    fn mirrored_positions_evaluate_the_same_for_their_mover() {
        let a = Position::from_fen(
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 4 4",
            crate::rules::Rules::Marseillais,
        )
        .unwrap();
        let b = Position::from_fen(
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4",
            crate::rules::Rules::Marseillais,
        )
        .unwrap();
        assert_eq!(evaluate(&a), evaluate(&b));
    }

    /// Weights where only the pawn-structure terms count, each with its own power of two.
    fn structure_only() -> Weights {
        Weights {
            passed_rank: [(1, 1); 8],
            doubled: (10, 10),
            isolated: (100, 100),
            ..Weights::DEFAULT
        }
    }

    fn pawn_at(fen: &str, square: Square, us: Color) -> Pair {
        let pos = Position::from_fen(fen, crate::rules::Rules::Marseillais).unwrap();
        let board = pos.board();
        pawn_terms(
            square,
            us,
            board.colored_pieces(us, Piece::Pawn),
            board.colored_pieces(!us, Piece::Pawn),
            &structure_only(),
        )
    }

    #[test]
    fn a_pawn_is_passed_when_no_enemy_pawn_stands_ahead_on_its_file_or_beside() {
        // White e5; a black pawn on d7 guards its path, one on d4 is behind it.
        let guarded = "4k3/3p4/8/4P3/8/8/8/4K3 w - - 0 1";
        assert_eq!(pawn_at(guarded, Square::E5, Color::White), (100, 100));
        let free = "4k3/8/8/4P3/3p4/8/8/4K3 w - - 0 1";
        assert_eq!(pawn_at(free, Square::E5, Color::White), (101, 101));
        // And from Black's side: d4 runs to d1 past nothing.
        assert_eq!(pawn_at(free, Square::D4, Color::Black), (101, 101));
    }

    #[test]
    fn a_pawn_behind_its_own_is_doubled_and_one_without_neighbours_is_isolated() {
        // White c2, c3 and d2 (all passed: Black has no pawn): c2 is doubled (c3 ahead),
        // none is isolated.
        let fen = "4k3/8/8/8/8/2P5/2PP4/4K3 w - - 0 1";
        assert_eq!(pawn_at(fen, Square::C2, Color::White), (11, 11));
        assert_eq!(pawn_at(fen, Square::C3, Color::White), (1, 1));
        // A lone h-pawn: passed and isolated.
        let lone = "4k3/8/8/8/8/8/7P/4K3 w - - 0 1";
        assert_eq!(pawn_at(lone, Square::H2, Color::White), (101, 101));
    }
}
