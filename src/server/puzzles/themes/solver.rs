//! The solver's sub-moves of a line, each with the positions around it: what every detector
//! of a sub-move reads.

use super::super::line::PuzzleLine;
use crate::rules::{Position, SubMove};

/// One of the solver's sub-moves in the line, with the positions around it.
#[derive(Clone, Debug)]
pub(in crate::server::puzzles::themes) struct SolverSubMove {
    /// Its turn's index in the line (odd: the solver's turns).
    pub turn: usize,
    /// 0 for S1, 1 for S2.
    pub at: usize,
    pub before: Position,
    pub submove: SubMove,
    pub after: Position,
    /// Whether it ends its turn (an S2, or an S1 that checks or ends the game).
    pub ends_turn: bool,
    /// The position at its turn's start.
    pub turn_start: Position,
    /// The line's last position.
    pub line_end: Position,
}

/// The solver's sub-moves in the order of the line. The line is checked, so every sub-move is
/// legal where it stands.
pub(in crate::server::puzzles::themes) fn solver_submoves(line: &PuzzleLine) -> Vec<SolverSubMove> {
    let turns = line.turns();
    let Some(&line_end) = line.turn_start(turns.len()) else {
        return Vec::new();
    };
    let mut moves = Vec::new();
    for turn in (1..turns.len()).step_by(2) {
        let Some(&turn_start) = line.turn_start(turn) else {
            continue;
        };
        let mut position = turn_start;
        for (at, &submove) in turns[turn].iter().enumerate() {
            let after = position.play_unchecked(submove);
            moves.push(SolverSubMove {
                turn,
                at,
                before: position,
                submove,
                after,
                ends_turn: at + 1 == turns[turn].len(),
                turn_start,
                line_end,
            });
            position = after;
        }
    }
    moves
}
