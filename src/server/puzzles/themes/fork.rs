//! Fork: one piece attacks two of the opponent's valuable pieces (lichess-puzzler's `fork`,
//! for every solver sub-move but the line's last), cashed by that piece's next sub-move.

use super::solver::SolverSubMove;
use super::value::{attackers, attacks, is_defended, is_in_bad_spot, value};
use crate::rules::{BitBoard, Piece, Square};

/// Whether a solver sub-move forks two pieces and the forking piece then takes one.
pub fn fork(moves: &[SolverSubMove]) -> bool {
    let Some((_, before_last)) = moves.split_last() else {
        return false;
    };
    before_last.iter().enumerate().any(|(index, sub)| {
        let targets = forked(sub);
        targets.len() >= 2 && takes_next(&moves[index + 1..], sub.submove.to, targets)
    })
}

/// The opponent's pieces the piece moved by `sub` forks (cook.py's count): other than pawns,
/// each worth more than the forking piece, or undefended and not attacking it. None when the
/// forking piece is the king, or when the sub-move ends the turn with it in a bad spot (an S1
/// inside the turn is followed by the solver's S2 before the opponent can take it).
fn forked(sub: &SolverSubMove) -> BitBoard {
    let board = sub.after.board();
    let at = sub.submove.to;
    let Some(piece) = board.piece_on(at) else {
        return BitBoard::EMPTY;
    };
    if piece == Piece::King || (sub.ends_turn && is_in_bad_spot(&sub.after, at)) {
        return BitBoard::EMPTY;
    }
    let solver = sub.before.side_to_move();
    let attacking_it = attackers(&sub.after, at, !solver);
    let mut targets = BitBoard::EMPTY;
    for target in attacks(board, at) & board.colored(!solver) {
        let Some(victim) = board.piece_on(target) else {
            continue;
        };
        let worth = value(victim) > value(piece)
            || (!is_defended(&sub.after, target) && !attacking_it.has(target));
        if victim != Piece::Pawn && worth {
            targets |= target.bitboard();
        }
    }
    targets
}

/// Whether the next solver sub-move of the piece now on `from` takes on one of `targets`.
pub(super) fn takes_next(later: &[SolverSubMove], from: Square, targets: BitBoard) -> bool {
    later
        .iter()
        .find(|sub| sub.submove.from == from)
        .is_some_and(|sub| targets.has(sub.submove.to) && sub.before.is_capture(sub.submove))
}

#[cfg(test)]
mod tests {
    use super::super::solver::solver_submoves;
    use super::*;
    use crate::server::puzzles::line::PuzzleLine;

    /// Black puts its queen on e7 and its rook on b6, both a knight's jump from d5.
    const FORKABLE: &str = "1r1q3k/6pp/8/8/8/2N5/5PPP/6K1 b - - 0 20";

    fn found(fen: &str, moves: &str) -> bool {
        fork(&solver_submoves(&PuzzleLine::parse(fen, moves).unwrap()))
    }

    #[test]
    fn a_knight_that_forks_queen_and_rook_on_s1_and_takes_the_queen_on_s2_is_a_fork() {
        assert!(found(FORKABLE, "d8e7,b8b6 c3d5,d5e7"));
    }

    #[test]
    fn a_fork_never_cashed_is_not() {
        // The opponent has two sub-moves to save both pieces; the line never takes one.
        assert!(!found(FORKABLE, "d8e7,b8b6 c3d5,h2h3"));
    }

    #[test]
    fn a_checking_fork_of_king_and_rook_cashed_next_turn_is_a_fork() {
        // Nf7+ ends White's turn; Black steps out of check and leaves the rook; Nxd8.
        assert!(found(
            "r6k/6pp/8/4N3/8/8/5PPP/6K1 b - - 0 20",
            "a8d8,h7h6 e5f7 h8h7,g7g6 f7d8,g1f1"
        ));
    }

    #[test]
    fn a_fork_that_ends_the_turn_on_a_square_a_pawn_attacks_is_not() {
        // Nd5 at the end of White's turn stands where the c6 pawn takes it.
        assert!(!found(
            "1r1q3k/6pp/2p5/8/8/2N5/5PPP/6K1 b - - 0 20",
            "d8e7,b8b6 h2h3,c3d5 h7h6,g7g6 d5e7,g1h2"
        ));
        // Without the c6 pawn the same turns fork.
        assert!(found(FORKABLE, "d8e7,b8b6 h2h3,c3d5 h7h6,g7g6 d5e7,g1h2"));
    }

    #[test]
    fn attacking_two_pawns_is_not_a_fork() {
        // Nd5 attacks the pawns on c7 and e7, then takes one.
        assert!(!found(
            "6k1/2p1p1pp/8/8/8/2N5/5PPP/6K1 b - - 0 20",
            "g8h8,h8g8 c3d5,d5e7"
        ));
    }
}
