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
//! - **Tempo**: the side to move at S1 still has two sub-moves before the
//!   opponent plays, at S2 only one. Without this term the evaluation would
//!   swing with the phase of the leaf and the search would prefer odd or even
//!   depths.
//! - **Level noise** ([`super::level`]): a deterministic pseudo-random amount
//!   per position, so that lower levels misjudge positions (and still search
//!   consistently: the same position always gets the same noise).

use cozy_chess::{
    BitBoard, Color, Piece, Square, get_bishop_moves, get_king_moves, get_knight_moves,
    get_pawn_attacks, get_rook_moves,
};

use crate::rules::{Phase, Position};

/// Material values in centipawns, indexed by `Piece as usize`
/// (pawn, knight, bishop, rook, queen, king).
pub const VALUE: [i32; 6] = [100, 330, 340, 500, 1000, 0];

/// Game-phase weight of each piece: 24 with all pieces on the board.
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
const PHASE_TOTAL: i32 = 24;

/// Mobility weight per reachable square (middle game, end game).
const MOBILITY: [(i32, i32); 6] = [(0, 0), (4, 4), (4, 5), (2, 4), (1, 2), (0, 0)];

/// Attack units a piece adds against the enemy king when it already hits the
/// king zone, and when it is one move from hitting it.
const ATTACK_NOW: [i32; 6] = [1, 2, 2, 3, 5, 0];
const ATTACK_NEXT: [i32; 6] = [0, 1, 1, 1, 3, 0];

/// Tempo bonus for the side to move: two sub-moves to come (S1 or a single
/// turn counts as a turn start) against one (S2).
const TEMPO_FIRST: i32 = 20;
const TEMPO_SECOND: i32 = 8;

/// Evaluates `pos` for the side to move (level noise is added by the search).
pub fn evaluate(pos: &Position) -> i32 {
    let white = evaluate_white(pos);
    let tempo = match pos.phase() {
        Phase::Second => TEMPO_SECOND,
        Phase::First | Phase::Single => TEMPO_FIRST,
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

/// Middle-game and end-game score of `pos` from White's side.
fn evaluate_white(pos: &Position) -> i32 {
    let phase = game_phase(pos);
    let mut mg = 0;
    let mut eg = 0;
    for color in Color::ALL {
        let sign = if color == Color::White { 1 } else { -1 };
        let (m, e) = side_terms(pos, color);
        mg += sign * m;
        eg += sign * e;
    }
    (mg * phase + eg * (PHASE_TOTAL - phase)) / PHASE_TOTAL
}

/// Material, piece-square, mobility and king-safety terms of one side.
fn side_terms(pos: &Position, us: Color) -> (i32, i32) {
    let board = pos.board();
    let them = !us;
    let occupied = board.occupied();
    let ours = board.colored(us);
    let mut enemy_pawn_attacks = BitBoard::EMPTY;
    for sq in board.colored_pieces(them, Piece::Pawn) {
        enemy_pawn_attacks |= get_pawn_attacks(sq, them);
    }
    let mut mg = 0;
    let mut eg = 0;
    for piece in Piece::ALL {
        for sq in board.colored_pieces(us, piece) {
            let rel = sq.relative_to(us);
            let (pm, pe) = piece_square(piece, rel);
            mg += VALUE[piece as usize] + pm;
            eg += VALUE[piece as usize] + pe;
            if matches!(piece, Piece::Pawn | Piece::King) {
                continue;
            }
            let reach = attacks(piece, sq, us, occupied) & !ours & !enemy_pawn_attacks;
            let n = reach.len() as i32;
            let (wm, we) = MOBILITY[piece as usize];
            // Centred on a typical count so that the term is a difference.
            mg += wm * (n - 4);
            eg += we * (n - 4);
        }
    }
    let (km, ke) = king_danger(pos, us);
    (mg - km, eg - ke)
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
fn king_danger(pos: &Position, us: Color) -> (i32, i32) {
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
                units += ATTACK_NOW[piece as usize];
                attackers += 1;
            } else if !(reach & launch & !theirs).is_empty() {
                units += ATTACK_NEXT[piece as usize];
                attackers += 1;
            }
        }
    }
    for sq in board.colored_pieces(them, Piece::Pawn) {
        if !(get_pawn_attacks(sq, them) & zone).is_empty() {
            units += ATTACK_NOW[Piece::Pawn as usize];
        }
    }
    // One lone attacker rarely mates; several do, and faster with two
    // sub-moves per turn. Quadratic in the units.
    let mut danger = if attackers >= 2 {
        units * units * 3
    } else {
        units * 4
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
                shield_penalty += 15;
            }
        }
    }
    (danger.min(900) + shield_penalty, danger.min(900) / 4)
}

/// Piece-square bonus (middle game, end game) for `piece` on `rel`, the
/// square seen from its own side (rank 1 is its back rank).
fn piece_square(piece: Piece, rel: Square) -> (i32, i32) {
    let file = rel.file() as i32;
    let rank = rel.rank() as i32;
    // Distance from the centre, 0 (d4..e5) to 3 (corners), per axis.
    let fd = if file < 4 { 3 - file } else { file - 4 };
    let rd = if rank < 4 { 3 - rank } else { rank - 4 };
    let centre = fd.max(rd);
    match piece {
        Piece::Pawn => {
            const MG: [i32; 8] = [0, 0, 4, 10, 22, 40, 70, 0];
            const EG: [i32; 8] = [0, 0, 8, 18, 35, 65, 110, 0];
            let central = if (3..=4).contains(&file) && (2..=4).contains(&rank) {
                12
            } else {
                0
            };
            (MG[rank as usize] + central, EG[rank as usize])
        }
        Piece::Knight => {
            const C: [i32; 4] = [22, 12, -4, -28];
            (C[centre as usize], C[centre as usize])
        }
        Piece::Bishop => {
            const C: [i32; 4] = [12, 8, 0, -10];
            (C[centre as usize], C[centre as usize] / 2)
        }
        Piece::Rook => {
            let seventh = if rank == 6 { 20 } else { 0 };
            let central_file = if (2..=5).contains(&file) { 4 } else { 0 };
            (seventh + central_file, seventh / 2)
        }
        Piece::Queen => {
            const C: [i32; 4] = [6, 4, 0, -6];
            (C[centre as usize], C[centre as usize] * 2)
        }
        Piece::King => {
            let mg = match (rank, file) {
                (0, 1 | 2 | 6) => 30,
                (0, 0 | 7) => 15,
                (0, _) => 0,
                (1, _) => -15,
                _ => -40 - 10 * rank,
            };
            const C: [i32; 4] = [30, 15, 0, -25];
            (mg, C[centre as usize])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_position_is_balanced_up_to_the_tempo() {
        let pos = Position::initial();
        assert_eq!(evaluate(&pos), TEMPO_FIRST);
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
}
