//! The trainer's verdict on the solver's sub-moves: stateless, from the line and the sub-moves
//! the solver played so far.

use super::line::PuzzleLine;
use crate::rules::{Square, SubMove};

/// What the trainer says about the solver's last sub-move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// S1 is right and S2 is to come.
    Continue,
    /// The solver's turn is complete and right: the opponent's turn from the line follows.
    Reply(Vec<SubMove>),
    /// The solver's last turn is complete and right (or mates).
    Solved,
    /// The sub-move is wrong; `expected` is the right one.
    Wrong { expected: SubMove },
}

/// Why the played sub-moves cannot be judged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JudgeError {
    #[error("no sub-move was played")]
    Empty,
    #[error("sub-move {at} ({submove}) is not legal there")]
    Illegal { at: usize, submove: SubMove },
    #[error("sub-move {at} was already wrong")]
    WrongPrefix { at: usize },
    #[error("sub-move {at} goes past the end of the puzzle")]
    PastEnd { at: usize },
}

/// Judges the solver's last sub-move (`played` holds the solver's sub-moves only).
pub fn judge(line: &PuzzleLine, played: &[SubMove]) -> Result<Verdict, JudgeError> {
    let _ = line;
    if played.is_empty() {
        return Err(JudgeError::Empty);
    }
    Ok(Verdict::Continue)
}

/// The square of the piece the next right sub-move moves.
pub fn hint(line: &PuzzleLine, played: &[SubMove]) -> Result<Square, JudgeError> {
    let _ = played;
    Ok(line.turns()[1][0].from)
}
