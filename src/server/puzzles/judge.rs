//! The trainer's verdict on the solver's sub-moves: stateless, from the line and the sub-moves
//! the solver played so far (the opponent's turns come from the line), so that the routes keep
//! nothing between two requests.
//!
//! | rule | where |
//! |---|---|
//! | a solver's turn is right when it reaches the line's position after that turn (so S1,S2 in the other order is right when both orders are legal) | [`same_position`] |
//! | a turn that checkmates is always right and solves the puzzle (a mate in the line's last turn by another way; lichess accepts any mate too) | [`mates`] |
//! | an S1 is right when some legal S2 completes a right turn, or when it is a right turn alone (a check ends the turn) | [`judge`] |
//! | on a wrong S1 the expected sub-move is the line's S1; on a wrong S2 the S2 that completes a right turn from the played S1 (the line's own S2 when it does; there is one, since an S2 is judged only after a right S1) | [`judge`] |
//! | a list whose earlier sub-move was wrong (an S2 after a wrong S1 included) is refused, naming the wrong one | [`JudgeError::WrongPrefix`] |
//! | a hint is the from-square of the next right sub-move | [`hint`] |

use super::line::PuzzleLine;
use crate::rules::{Color, Outcome, Position, Square, SubMove, Termination};

/// What the trainer says about the solver's last sub-move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// S1 is right and S2 is to come.
    Continue,
    /// The solver's turn is complete and right: the opponent's turn from the line follows.
    Reply(Vec<SubMove>),
    /// The solver's last turn is complete and right (or a turn mates).
    Solved,
    /// The sub-move is wrong; `expected` is the right one.
    Wrong { expected: SubMove },
}

/// Why the played sub-moves cannot be judged. `at` counts the played sub-moves from 1.
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

/// Judges the solver's last sub-move (`played` holds the solver's sub-moves only, every one but
/// the last already judged right).
pub fn judge(line: &PuzzleLine, played: &[SubMove]) -> Result<Verdict, JudgeError> {
    if played.is_empty() {
        return Err(JudgeError::Empty);
    }
    follow(line, played).map(|judged| judged.verdict)
}

/// The square of the piece the next right sub-move moves, after the solver's right sub-moves
/// `played` (empty at the start).
pub fn hint(line: &PuzzleLine, played: &[SubMove]) -> Result<Square, JudgeError> {
    if played.is_empty() {
        return Ok(first_submove(line, 1).from);
    }
    let judged = follow(line, played)?;
    match (judged.verdict, judged.next) {
        (Verdict::Wrong { .. }, _) => Err(JudgeError::WrongPrefix { at: played.len() }),
        (_, Some(next)) => Ok(next.from),
        (_, None) => Err(JudgeError::PastEnd {
            at: played.len() + 1,
        }),
    }
}

/// A verdict and the right sub-move after it (none when solved or wrong).
struct Judged {
    verdict: Verdict,
    next: Option<SubMove>,
}

/// Walks the solver's sub-moves through the line, turn by turn, and judges the last one.
fn follow(line: &PuzzleLine, played: &[SubMove]) -> Result<Judged, JudgeError> {
    let solver = line.solver();
    let turns = line.turns();
    // The solver's turns are the line's odd turns; `index` is the line's turn.
    let mut index = 1;
    let mut at = 0;
    loop {
        let (Some(start), Some(target)) = (line.turn_start(index), line.turn_start(index + 1))
        else {
            return Err(JudgeError::PastEnd { at: at + 1 });
        };
        let last_turn = index + 1 == turns.len();
        let s1 = played[at];
        let after_s1 = play(start, s1, at)?;
        at += 1;
        let ends_turn = after_s1.side_to_move() != solver || after_s1.board_outcome().is_some();
        // The S2 that completes a right turn after a quiet S1: the S1 is right when there is one.
        let expected_s2 = if ends_turn {
            None
        } else {
            completing_s2(&after_s1, target, solver, &turns[index])
        };
        let end = if ends_turn {
            after_s1
        } else if at == played.len() {
            // S1 alone, S2 to come.
            return Ok(match expected_s2 {
                Some(s2) => Judged {
                    verdict: Verdict::Continue,
                    next: Some(s2),
                },
                None => Judged {
                    verdict: Verdict::Wrong {
                        expected: first_submove(line, index),
                    },
                    next: None,
                },
            });
        } else if expected_s2.is_none() {
            // An S2 after a wrong S1.
            return Err(JudgeError::WrongPrefix { at });
        } else {
            let s2 = played[at];
            let after_s2 = play(&after_s1, s2, at)?;
            at += 1;
            after_s2
        };
        let mated = mates(&end, solver);
        let right = mated || same_position(&end, target);
        let is_last = at == played.len();
        if !right {
            if !is_last {
                return Err(JudgeError::WrongPrefix { at });
            }
            // A wrong S1 that ends the turn expects the line's S1; a wrong S2 the one that
            // completes a right turn from the played S1 (there is one: the S1 was right).
            let expected = expected_s2.unwrap_or_else(|| first_submove(line, index));
            return Ok(Judged {
                verdict: Verdict::Wrong { expected },
                next: None,
            });
        }
        if mated || last_turn {
            if !is_last {
                return Err(JudgeError::PastEnd { at: at + 1 });
            }
            return Ok(Judged {
                verdict: Verdict::Solved,
                next: None,
            });
        }
        if is_last {
            return Ok(Judged {
                verdict: Verdict::Reply(turns[index + 1].clone()),
                next: Some(first_submove(line, index + 2)),
            });
        }
        index += 2;
    }
}

/// Plays the solver's sub-move number `at` (from 0) or says it is illegal.
fn play(position: &Position, submove: SubMove, at: usize) -> Result<Position, JudgeError> {
    position.play(submove).map_err(|_| JudgeError::Illegal {
        at: at + 1,
        submove,
    })
}

/// The line's first sub-move of turn `index` (a checked line's turns are never empty).
fn first_submove(line: &PuzzleLine, index: usize) -> SubMove {
    line.turns()[index][0]
}

/// An S2 that, after `after_s1`, completes a right turn: a sub-move of the line's own turn
/// first when one does (its S2, or its single checking sub-move played second), else the first
/// legal one that reaches `target` or mates.
fn completing_s2(
    after_s1: &Position,
    target: &Position,
    solver: Color,
    line_turn: &[SubMove],
) -> Option<SubMove> {
    let right = |s2: SubMove| {
        let end = after_s1.play_unchecked(s2);
        same_position(&end, target) || mates(&end, solver)
    };
    let legal = after_s1.legal_submoves();
    let preferred = line_turn.iter().rev().copied();
    preferred
        .filter(|s2| legal.contains(s2))
        .chain(legal.iter().copied())
        .find(|&s2| right(s2))
}

/// Whether two positions are the same for the solver's turn: placement, side, phase, castling
/// rights and en-passant targets. The move counters are left out: a capture on S1 or on S2
/// changes the halfmove clock but not the position the opponent faces.
pub fn same_position(a: &Position, b: &Position) -> bool {
    a.board() == b.board()
        && a.side_to_move() == b.side_to_move()
        && a.phase() == b.phase()
        && a.castling() == b.castling()
        && a.ep_targets() == b.ep_targets()
}

/// Whether the position, at the end of the solver's turn, is the opponent checkmated.
pub fn mates(end: &Position, solver: Color) -> bool {
    end.board_outcome()
        == Some(Outcome::Win {
            winner: solver,
            reason: Termination::Checkmate,
        })
}

#[cfg(test)]
mod tests;
