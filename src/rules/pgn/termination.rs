//! Which `Termination` tag can explain which result in a final position:
//! shared by the import (which declares only what fits) and strict
//! validation (which reports what does not).

use cozy_chess::Color;

use super::super::outcome::Termination;
use super::super::position::Position;
use super::GameResult;

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
