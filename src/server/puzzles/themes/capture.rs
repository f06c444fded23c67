//! Double capture: one solver turn takes on both sub-moves, something only Marseillais allows.

use super::solver::SolverSubMove;
use super::value::{balance, value};
use crate::rules::Piece;

/// What the two captures must take together: a piece and a pawn, or more (two pawns never).
const DOUBLE_CAPTURE_TAKEN: u32 = 4;

/// What the solver must keep of it at the line's end, counted from that turn's start: the
/// captures are not given back at once.
const DOUBLE_CAPTURE_KEPT: i64 = 2;

/// Whether a solver turn captures on S1 and on S2, worth it.
pub fn double_capture(moves: &[SolverSubMove]) -> bool {
    moves.windows(2).any(|pair| {
        let (s1, s2) = (&pair[0], &pair[1]);
        let solver = s1.before.side_to_move();
        s1.turn == s2.turn
            && s1.before.is_capture(s1.submove)
            && s2.before.is_capture(s2.submove)
            && taken(s1) + taken(s2) >= DOUBLE_CAPTURE_TAKEN
            && balance(s2.line_end.board(), solver) - balance(s1.turn_start.board(), solver)
                >= DOUBLE_CAPTURE_KEPT
    })
}

/// The value of what a capturing sub-move takes (a pawn en passant).
fn taken(sub: &SolverSubMove) -> u32 {
    match sub.before.board().piece_on(sub.submove.to) {
        Some(piece) => value(piece),
        None => value(Piece::Pawn),
    }
}

#[cfg(test)]
mod tests {
    use super::super::solver::solver_submoves;
    use super::*;
    use crate::server::puzzles::line::PuzzleLine;

    fn found(fen: &str, moves: &str) -> bool {
        double_capture(&solver_submoves(&PuzzleLine::parse(fen, moves).unwrap()))
    }

    #[test]
    fn two_pieces_taken_in_one_turn_are_a_double_capture() {
        // Black hangs a knight on a4 and a bishop on d4; the rooks take both.
        assert!(found(
            "6k1/5pp1/1n5p/4b3/8/8/4QPPP/R2R2K1 b - - 0 20",
            "b6a4,e5d4 a1a4,d1d4"
        ));
    }

    #[test]
    fn two_pawns_taken_in_one_turn_are_not() {
        assert!(!found(
            "6k1/1p1p1ppp/8/8/8/8/5PPP/1R1R2K1 b - - 0 20",
            "g8h8,h8g8 b1b7,d1d7"
        ));
    }

    #[test]
    fn two_captures_given_back_at_once_are_not() {
        // The rooks take a knight and a pawn; the bishop and the queen take both rooks.
        assert!(!found(
            "3q2k1/p4ppp/2b5/1n1p4/8/8/5PPP/1R1R2K1 b - - 0 20",
            "a7a6,a6a5 b1b5,d1d5 c6b5,d8d5 h2h3,g1h2"
        ));
    }

    #[test]
    fn captures_in_two_different_turns_are_not() {
        // One capture a turn: the knight, then (after Black's quiet turn) the bishop.
        assert!(!found(
            "6k1/5pp1/1n5p/4b3/8/8/4QPPP/R2R2K1 b - - 0 20",
            "b6a4,e5d4 a1a4,h2h3 g8h7,h7g8 d1d4,g1h2"
        ));
    }
}
