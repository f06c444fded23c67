//! Discovered attack: a solver sub-move leaves a line, and the bishop, rook or queen behind it
//! now attacks the king, or a valuable piece that it then takes.

use cozy_chess::get_between_rays;

use super::fork::takes_next;
use super::solver::SolverSubMove;
use super::value::{attacks, is_defended, value};
use crate::rules::{Piece, Square};

/// Whether some solver sub-move uncovers a check, or an attack that the slider cashes.
pub fn discovered_attack(moves: &[SolverSubMove]) -> bool {
    moves.iter().enumerate().any(|(index, sub)| {
        !sub.before.is_castling(sub.submove)
            && uncovered(sub).into_iter().any(|(slider, target, check)| {
                check || takes_next(&moves[index + 1..], slider, target.bitboard())
            })
    })
}

/// The attacks `sub` uncovers: (slider, target, whether the target is the king), for targets
/// that are the king, or a piece other than a pawn worth more than the slider or undefended.
fn uncovered(sub: &SolverSubMove) -> Vec<(Square, Square, bool)> {
    let board = sub.after.board();
    let solver = sub.before.side_to_move();
    let sliders =
        (board.pieces(Piece::Bishop) | board.pieces(Piece::Rook) | board.pieces(Piece::Queen))
            & board.colored(solver);
    let mut found = Vec::new();
    for slider in sliders - sub.submove.to.bitboard() {
        let Some(slider_piece) = board.piece_on(slider) else {
            continue;
        };
        for target in attacks(board, slider) & board.colored(!solver) {
            if !get_between_rays(slider, target).has(sub.submove.from) {
                continue;
            }
            match board.piece_on(target) {
                Some(Piece::King) => found.push((slider, target, true)),
                Some(Piece::Pawn) | None => {}
                Some(victim) => {
                    if value(victim) > value(slider_piece) || !is_defended(&sub.after, target) {
                        found.push((slider, target, false));
                    }
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::super::solver::solver_submoves;
    use super::*;
    use crate::server::puzzles::line::PuzzleLine;

    /// Black's rook comes to f6, on the long diagonal behind White's knight on d4.
    const BEHIND: &str = "6k1/5ppp/r7/8/3N4/8/1B3PPP/6K1 b - - 0 20";

    fn found(fen: &str, moves: &str) -> bool {
        discovered_attack(&solver_submoves(&PuzzleLine::parse(fen, moves).unwrap()))
    }

    #[test]
    fn a_knight_that_leaves_the_diagonal_on_s1_and_a_bishop_that_takes_on_s2_is_a_discovered_attack()
     {
        assert!(found(BEHIND, "a6f6,h7h6 d4b5,b2f6"));
    }

    #[test]
    fn an_uncovered_attack_never_cashed_is_not() {
        assert!(!found(BEHIND, "a6f6,h7h6 d4b5,h2h3"));
    }

    #[test]
    fn a_discovered_check_is_a_discovered_attack() {
        // The bishop leaves the e-file: the rook on e1 checks the king on e8, the turn ends.
        assert!(found(
            "4k3/p2p1p2/8/8/4B3/8/8/4R1K1 b - - 0 20",
            "a7a6,a6a5 e4c2"
        ));
    }

    #[test]
    fn uncovering_a_pawn_is_not() {
        assert!(!found(
            "6k1/5ppp/5p2/8/3N4/8/1B3PPP/6K1 b - - 0 20",
            "h7h6,g8h7 d4b5,b2f6"
        ));
    }
}
