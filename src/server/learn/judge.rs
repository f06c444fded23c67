//! The verdict on the learner's sub-moves in a step: stateless, from the step and every
//! sub-move played in it so far, so that the routes keep nothing between two requests (and any
//! node of a cluster can answer).
//!
//! | rule | where |
//! |---|---|
//! | every sub-move must be legal in the position it is played in (else a refusal, not a verdict) | [`JudgeError::Illegal`] |
//! | the turn ends when the side to move changes (one sub-move of a single turn, a check, two sub-moves) or the game ends | [`turn_over`] |
//! | a first sub-move that no second can mend is wrong at once | [`super::goal::early_wrong`] |
//! | a finished turn is right when its goal holds, else wrong with the reason | [`super::goal::judge_turn`] |

use crate::rules::{FenError, Position, Rules, SubMove};

use super::goal::{Turn, early_wrong, judge_turn};
use super::lesson::Step;
use super::reason::Reason;

/// What the page is told after the learner's last sub-move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The turn goes on: the second sub-move is to come.
    Continue,
    Right(Reason),
    Wrong(Reason),
}

/// A verdict and the position the sub-moves reached.
#[derive(Clone, Debug)]
pub struct Judged {
    pub verdict: Verdict,
    pub position: Position,
}

/// Why the sub-moves cannot be judged. `at` counts the played sub-moves from 1.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JudgeError {
    #[error("sub-move {at} ({submove}) is not legal there")]
    Illegal { at: usize, submove: SubMove },
    #[error("sub-move {at} comes after the turn ended")]
    PastTurn { at: usize },
    /// A lesson's own FEN that does not read: never shipped (each lesson's test reads them).
    #[error("the lesson's position does not read: {0}")]
    Damaged(FenError),
}

/// The step's start position.
pub fn start(step: &Step) -> Result<Position, JudgeError> {
    Position::from_fen(step.fen, Rules::Marseillais).map_err(JudgeError::Damaged)
}

/// Whether the learner's turn is over in `position` (it began with `learner` to move).
fn turn_over(position: &Position, learner: crate::rules::Color) -> bool {
    position.side_to_move() != learner || position.board_outcome().is_some()
}

/// Judges the sub-moves `played` in `step` (all of them from the step's start).
pub fn judge(step: &Step, played: &[SubMove]) -> Result<Judged, JudgeError> {
    let start = start(step)?;
    let learner = start.side_to_move();
    let mut position = start;
    let mut history: Vec<(Position, SubMove)> = Vec::with_capacity(2);
    for (index, &submove) in played.iter().enumerate() {
        let at = index + 1;
        if turn_over(&position, learner) {
            return Err(JudgeError::PastTurn { at });
        }
        let next = position
            .play(submove)
            .map_err(|_| JudgeError::Illegal { at, submove })?;
        history.push((position, submove));
        position = next;
        let turn = Turn {
            start: &start,
            played: &history,
            now: &position,
        };
        if let Some(reason) = early_wrong(step.goal, &turn) {
            if at < played.len() {
                return Err(JudgeError::PastTurn { at: at + 1 });
            }
            return Ok(Judged {
                verdict: Verdict::Wrong(reason),
                position,
            });
        }
    }
    if history.is_empty() || !turn_over(&position, learner) {
        return Ok(Judged {
            verdict: Verdict::Continue,
            position,
        });
    }
    let turn = Turn {
        start: &start,
        played: &history,
        now: &position,
    };
    let verdict = match judge_turn(step.goal, &turn) {
        Ok(()) => Verdict::Right(step.right),
        Err(reason) => Verdict::Wrong(reason),
    };
    Ok(Judged { verdict, position })
}
