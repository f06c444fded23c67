//! The themes of the sub-moves themselves: promotion, en passant, and the check that would end
//! the turn (Marseillais's own trap: a check on S1 gives the opponent the move).

use super::super::judge::mates;
use super::solver::SolverSubMove;
use super::value::{attacks, is_defended, value};
use crate::rules::{Piece, Position, SubMove};

/// Whether a solver sub-move promotes.
pub fn promotion(moves: &[SolverSubMove]) -> bool {
    moves.iter().any(|sub| sub.submove.promotion.is_some())
}

/// Whether a solver sub-move takes en passant.
pub fn en_passant(moves: &[SolverSubMove]) -> bool {
    moves
        .iter()
        .any(|sub| sub.before.is_en_passant(sub.submove))
}

/// Whether, at a solver turn where the line does not check on S1, a tempting checking S1 that
/// does not mate was there to avoid.
pub fn check_ends_turn(moves: &[SolverSubMove]) -> bool {
    moves
        .iter()
        .filter(|sub| sub.at == 0 && !sub.ends_turn)
        .any(|sub| {
            let start = &sub.turn_start;
            start
                .legal_submoves()
                .into_iter()
                .any(|check| check != sub.submove && tempting_check(start, check))
        })
}

/// A checking S1 that does not mate and captures, or whose checking piece also attacks a piece
/// other than a pawn worth more than it or undefended (a forking check, which two sub-moves
/// answer: one out of check, one to save the piece).
fn tempting_check(start: &Position, check: SubMove) -> bool {
    let solver = start.side_to_move();
    let after = start.play_unchecked(check);
    if after.side_to_move() == solver || !after.is_check() || mates(&after, solver) {
        return false;
    }
    if start.is_capture(check) {
        return true;
    }
    let board = after.board();
    let Some(checker) = board.piece_on(check.to) else {
        return false;
    };
    (attacks(board, check.to) & board.colored(!solver))
        .into_iter()
        .any(|target| match board.piece_on(target) {
            Some(Piece::King | Piece::Pawn) | None => false,
            Some(victim) => value(victim) > value(checker) || !is_defended(&after, target),
        })
}

#[cfg(test)]
mod tests {
    use super::super::solver::solver_submoves;
    use super::*;
    use crate::server::puzzles::line::PuzzleLine;

    const DOUBLE: &str = "6k1/5pp1/1n5p/4b3/8/8/4QPPP/R2R2K1 b - - 0 20";

    fn moves(fen: &str, line: &str) -> Vec<SolverSubMove> {
        solver_submoves(&PuzzleLine::parse(fen, line).unwrap())
    }

    #[test]
    fn a_solver_submove_that_promotes_is_a_promotion() {
        let promoting = moves("7k/P7/8/8/8/8/6PP/6K1 b - - 0 20", "h8g7,g7h8 a7a8q");
        assert!(promotion(&promoting));
        assert!(!promotion(&moves(DOUBLE, "b6a4,e5d4 a1a4,d1d4")));
    }

    #[test]
    fn a_solver_submove_that_takes_en_passant_is_en_passant() {
        // Rules, worked case 9: the double step on Black's S1 is taken on White's S1.
        let fen = "4k3/3p1p2/8/4P1P1/8/8/8/4K3 b - - 0 5";
        assert!(en_passant(&moves(fen, "d7d5,e8f8 e5d6,e1e2")));
        // Worked case 11: both double steps, one on each sub-move.
        assert!(en_passant(&moves(fen, "d7d5,f7f5 e5d6,g5f6")));
        assert!(!en_passant(&moves(fen, "d7d5,e8f8 e5e6,e1e2")));
    }

    #[test]
    fn a_forking_check_the_line_avoids_is_a_check_that_ends_the_turn() {
        // Qe8+ would attack the loose knight on a4 too, but Black steps out of check with S1
        // and saves the knight with S2; the rooks take two pieces instead.
        assert!(check_ends_turn(&moves(DOUBLE, "b6a4,e5d4 a1a4,d1d4")));
    }

    #[test]
    fn a_quiet_check_that_attacks_nothing_is_not_tempting() {
        // The knight went to c4 instead: Qe8+ and Ra8+ attack nothing but the king.
        assert!(!check_ends_turn(&moves(DOUBLE, "b6c4,e5d4 e2c4,d1d4")));
    }

    #[test]
    fn a_line_that_checks_on_s1_has_no_check_to_avoid() {
        // A discovered check (the bishop leaves the e-file) is the line's own S1.
        assert!(!check_ends_turn(&moves(
            "4k3/p2p1p2/8/8/4B3/8/8/4R1K1 b - - 0 20",
            "a7a6,a6a5 e4c2"
        )));
    }
}
