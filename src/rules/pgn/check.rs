//! Strict validation of comma PGN, for `pgn check` (`docs/rules.md`
//! section 4, last bullet): everything the tolerant reader repairs or
//! accepts silently is reported here, and the result must agree with the
//! tags and with the board.

use std::fmt;

use cozy_chess::Color;

use super::super::game::Game;
use super::super::outcome::{Outcome, Termination};
use super::super::position::{Phase, Position};
use super::super::san::SanIssue;
use super::lex::{RawGame, split_games};
use super::read::replay;
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

/// The verdict on one game of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameReport {
    /// 1-based position of the game in the file.
    pub index: usize,
    /// Every problem found, in the order of the text; empty for a good game.
    /// Reading stops at the first problem that makes the rest unreadable.
    pub problems: Vec<Problem>,
}

impl GameReport {
    pub fn is_good(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Validates every game of a PGN text strictly. Any `&str` is safe.
pub fn check_games(text: &str) -> Vec<GameReport> {
    split_games(text)
        .iter()
        .enumerate()
        .map(|(i, raw)| GameReport {
            index: i + 1,
            problems: check_game(raw),
        })
        .collect()
}

fn check_game(raw: &RawGame) -> Vec<Problem> {
    let replay = replay(raw);
    let mut problems = replay.notes;
    if let Some(err) = replay.fatal {
        problems.push(match err {
            PgnError::Move { at, token, reason } => Problem {
                at: Some(at),
                reason: CheckReason::Move { token, reason },
            },
            other => Problem {
                at: None,
                reason: CheckReason::Unreadable(other),
            },
        });
        return problems;
    }
    let at = Some(replay.last);
    for reason in result_problems(raw, &replay.game) {
        problems.push(Problem { at, reason });
    }
    problems
}

/// The result token, the tags and the final position must tell one story.
fn result_problems(raw: &RawGame, game: &Game) -> Vec<CheckReason> {
    use Termination as T;
    let mut problems = Vec::new();
    let tag_result = match raw.tag("Result").map(str::parse::<GameResult>) {
        None => None,
        Some(Ok(result)) => Some(result),
        Some(Err(err)) => {
            problems.push(CheckReason::BadResultTag(err.0));
            None
        }
    };
    match (raw.result, tag_result) {
        (None, _) => problems.push(CheckReason::MissingResult),
        (Some(token), Some(tag)) if token != tag => {
            problems.push(CheckReason::ResultTagMismatch { tag, token })
        }
        _ => {}
    }
    let termination = match raw.tag("Termination").map(str::parse::<Termination>) {
        None => None,
        Some(Ok(t)) => Some(t),
        Some(Err(err)) => {
            problems.push(CheckReason::UnknownTermination(err.0));
            None
        }
    };
    let Some(result) = raw.result.or(tag_result) else {
        return problems;
    };

    if let Some(outcome) = game.automatic_outcome() {
        if GameResult::of(Some(outcome)) != result {
            problems.push(CheckReason::BoardResult {
                outcome,
                written: result,
            });
        }
        if let Some(tag) = termination.filter(|&t| t != outcome.reason()) {
            problems.push(CheckReason::TerminationDiffers { tag, outcome });
        }
        return problems;
    }

    if let Some(tag) = termination.filter(|t| t.is_on_board()) {
        problems.push(CheckReason::TerminationNotOnBoard(tag));
    }
    let stopped_after_first =
        game.position().phase() == Phase::Second && !game.submoves().is_empty();
    let ended_off_board = result == GameResult::Ongoing
        || matches!(
            termination,
            Some(T::Resignation | T::TimeForfeit | T::Agreement | T::Abandonment)
        );
    if stopped_after_first && !ended_off_board {
        problems.push(CheckReason::IncompleteFinalTurn);
    }
    let position = game.position();
    let mismatch = |termination| CheckReason::TerminationResultMismatch {
        termination,
        result,
    };
    match (result, termination) {
        (GameResult::Ongoing, Some(t)) if !matches!(t, T::Unterminated | T::Aborted) => {
            if !t.is_on_board() {
                problems.push(mismatch(t));
            }
        }
        (GameResult::Ongoing, _) => {}
        (_, None) => problems.push(CheckReason::UnexplainedResult(result)),
        (_, Some(t)) => match t {
            T::ThreefoldRepetition | T::FiftyMoveRule
                if result == GameResult::Draw
                    && !game
                        .available_claims()
                        .iter()
                        .any(|claim| claim.termination() == t) =>
            {
                problems.push(CheckReason::ClaimUnavailable(t));
            }
            T::ThreefoldRepetition | T::FiftyMoveRule if result == GameResult::Draw => {}
            t if t.is_on_board() => {}
            t if !termination_fits(t, result, position) => problems.push(mismatch(t)),
            _ => {}
        },
    }
    problems
}

/// Whether an ending from off the board (or a claim) can give `result` in
/// `position`: a resignation or abandonment has a winner (abandonment may
/// also be drawn), an agreement or a claim is a draw, and a time forfeit is
/// won by the side that still could mate, or drawn when one side cannot.
/// The tolerant reader declares only what fits, so that what it imports
/// always writes back as a valid record.
pub(super) fn termination_fits(
    termination: Termination,
    result: GameResult,
    position: &Position,
) -> bool {
    use Termination as T;
    match termination {
        T::Resignation => result.winner().is_some(),
        T::Abandonment => result != GameResult::Ongoing,
        T::Agreement | T::ThreefoldRepetition | T::FiftyMoveRule => result == GameResult::Draw,
        T::TimeForfeit => match (result.winner(), result) {
            (Some(winner), _) => position.can_checkmate(winner),
            (None, GameResult::Draw) => {
                !position.can_checkmate(Color::White) || !position.can_checkmate(Color::Black)
            }
            (None, _) => false,
        },
        T::Aborted | T::Unterminated => result == GameResult::Ongoing,
        _ => false,
    }
}
