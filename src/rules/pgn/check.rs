//! Strict validation of comma PGN, for `pgn check` (`docs/rules.md`
//! section 4, last bullet): everything the tolerant reader repairs or
//! accepts silently is reported here, and the result must agree with the
//! tags and with the board.

use super::super::game::Game;
use super::super::outcome::Termination;
use super::super::position::Phase;
use super::lex::{RawGame, split_games};
use super::problem::{CheckReason, Problem};
use super::replay::replay;
use super::termination::termination_fits;
use super::{GameResult, PgnError};

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
    let stopped_after_first = game.position().phase() == Phase::Second && game.submove_count() > 0;
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
