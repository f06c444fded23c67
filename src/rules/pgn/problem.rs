//! What strict validation finds wrong with a game, and where: the notes the
//! replay makes on the way ([`super::replay`]) and the verdicts of
//! [`super::check`] on the result and tags.

use std::fmt;

use super::super::outcome::{Outcome, Termination};
use super::super::san::SanIssue;
use super::{GameResult, Location, MoveError, PgnError};

/// One problem in one game, with where it stands in the movetext when it
/// has a place there (tag and FEN problems do not).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub at: Option<Location>,
    pub reason: CheckReason,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.at {
            Some(at) => write!(f, "{at}: {}", self.reason),
            None => write!(f, "{}", self.reason),
        }
    }
}

/// Why strict validation rejects a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckReason {
    /// The record cannot be read: a bad tag, comment or FEN.
    #[error("{0}")]
    Unreadable(PgnError),
    /// An illegal sub-move, a broken turn or a variation.
    #[error("'{token}': {reason}")]
    Move { token: String, reason: MoveError },
    #[error(transparent)]
    San(SanIssue),
    #[error("move number '{written}' does not match the turn; expected '{expected}'")]
    MoveNumber { written: String, expected: String },
    #[error("the turn has no move number; expected '{expected}'")]
    MissingMoveNumber { expected: String },
    #[error("'{token}': sub-moves are joined by a comma with no spaces")]
    SpacedComma { token: String },
    #[error(
        "'{token}': the record starts at a second sub-move, so its first turn starts with a comma"
    )]
    MissingLeadingComma { token: String },
    #[error("the movetext has no result token (1-0, 0-1, 1/2-1/2 or *)")]
    MissingResult,
    #[error("the Result tag '{0}' is not a result")]
    BadResultTag(String),
    #[error("the result token {token} differs from the Result tag {tag}")]
    ResultTagMismatch { tag: GameResult, token: GameResult },
    #[error("the game is over on the board ({outcome}), so the result must be {expected}, not {written}", expected = GameResult::of(Some(*.outcome)))]
    BoardResult {
        outcome: Outcome,
        written: GameResult,
    },
    #[error("the Termination tag says '{tag}' but the board ended the game by {}", .outcome.reason())]
    TerminationDiffers { tag: Termination, outcome: Outcome },
    #[error("the Termination tag says '{0}' but the final position shows no such ending")]
    TerminationNotOnBoard(Termination),
    #[error("unknown Termination '{0}'")]
    UnknownTermination(String),
    #[error(
        "the result {0} needs a Termination tag that explains it: the final position is not over (resignation, time forfeit, agreement, abandonment or an available draw claim)"
    )]
    UnexplainedResult(GameResult),
    #[error("the Termination '{termination}' does not fit the result {result}")]
    TerminationResultMismatch {
        termination: Termination,
        result: GameResult,
    },
    #[error("a draw by {0} was claimed but was not available at the final position")]
    ClaimUnavailable(Termination),
    #[error(
        "the final turn stops after its first sub-move; only a game ended off the board (*, resignation, time forfeit, agreement, abandonment) may do that"
    )]
    IncompleteFinalTurn,
}
