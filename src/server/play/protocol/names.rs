//! The one table of wire names: every closed set of words the server writes
//! (and test clients read) on the WebSocket and HTTP wire, each a closed enum
//! with its serde names, next to the rules value it stands for. The rules
//! types know nothing of serde or of the wire; conversion happens here, at
//! the edge. The tests at the bottom pin every name: renaming a variant must
//! not silently rename a wire word.
//!
//! | name | values |
//! |---|---|
//! | [`Side`] | `white`, `black` (also stored in events) |
//! | [`PhaseName`] | `single`, `first`, `second` |
//! | [`Reason`] | a [`Termination`] in snake_case: `time_forfeit`, ... |
//! | [`ClaimName`] | `threefold_repetition`, `fifty_move_rule` |
//! | [`GameResult`] | `1-0`, `0-1`, `1/2-1/2`, `*` (aborted) |
//! | `GameStatus` | `open`, `playing`, `finished`: defined with the store, which keeps it as a column (`crate::server::domain::status::GameStatus`); re-exported beside these by `protocol` |
//!
//! Self-contained (the rules and serde only): the fuzz targets compile it on its own.

use serde::{Deserialize, Serialize};

use crate::rules::{Claim, Color, Outcome, Phase, Termination};
pub use crate::server::domain::side::Side;

/// Which sub-move of a turn the side to move plays next (`phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PhaseName {
    Single,
    First,
    Second,
}

impl PhaseName {
    pub fn as_str(self) -> &'static str {
        match self {
            PhaseName::Single => "single",
            PhaseName::First => "first",
            PhaseName::Second => "second",
        }
    }
}

impl From<Phase> for PhaseName {
    fn from(phase: Phase) -> PhaseName {
        match phase {
            Phase::Single => PhaseName::Single,
            Phase::First => PhaseName::First,
            Phase::Second => PhaseName::Second,
        }
    }
}

impl From<PhaseName> for Phase {
    fn from(name: PhaseName) -> Phase {
        match name {
            PhaseName::Single => Phase::Single,
            PhaseName::First => Phase::First,
            PhaseName::Second => Phase::Second,
        }
    }
}

/// Why a game ended (`reason`): the PGN `Termination` text with
/// underscores for spaces and hyphens. (Stored `End` events keep the PGN
/// text itself; see `events.rs`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    Checkmate,
    Stalemate,
    SecondMoveStalemate,
    InsufficientMaterial,
    FivefoldRepetition,
    SeventyFiveMoveRule,
    ThreefoldRepetition,
    FiftyMoveRule,
    Agreement,
    Resignation,
    TimeForfeit,
    Abandonment,
    Aborted,
    Unterminated,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Checkmate => "checkmate",
            Reason::Stalemate => "stalemate",
            Reason::SecondMoveStalemate => "second_move_stalemate",
            Reason::InsufficientMaterial => "insufficient_material",
            Reason::FivefoldRepetition => "fivefold_repetition",
            Reason::SeventyFiveMoveRule => "seventy_five_move_rule",
            Reason::ThreefoldRepetition => "threefold_repetition",
            Reason::FiftyMoveRule => "fifty_move_rule",
            Reason::Agreement => "agreement",
            Reason::Resignation => "resignation",
            Reason::TimeForfeit => "time_forfeit",
            Reason::Abandonment => "abandonment",
            Reason::Aborted => "aborted",
            Reason::Unterminated => "unterminated",
        }
    }
}

impl From<Termination> for Reason {
    fn from(termination: Termination) -> Reason {
        match termination {
            Termination::Checkmate => Reason::Checkmate,
            Termination::Stalemate => Reason::Stalemate,
            Termination::SecondMoveStalemate => Reason::SecondMoveStalemate,
            Termination::InsufficientMaterial => Reason::InsufficientMaterial,
            Termination::FivefoldRepetition => Reason::FivefoldRepetition,
            Termination::SeventyFiveMoveRule => Reason::SeventyFiveMoveRule,
            Termination::ThreefoldRepetition => Reason::ThreefoldRepetition,
            Termination::FiftyMoveRule => Reason::FiftyMoveRule,
            Termination::Agreement => Reason::Agreement,
            Termination::Resignation => Reason::Resignation,
            Termination::TimeForfeit => Reason::TimeForfeit,
            Termination::Abandonment => Reason::Abandonment,
            Termination::Aborted => Reason::Aborted,
            Termination::Unterminated => Reason::Unterminated,
        }
    }
}

impl From<Reason> for Termination {
    fn from(reason: Reason) -> Termination {
        match reason {
            Reason::Checkmate => Termination::Checkmate,
            Reason::Stalemate => Termination::Stalemate,
            Reason::SecondMoveStalemate => Termination::SecondMoveStalemate,
            Reason::InsufficientMaterial => Termination::InsufficientMaterial,
            Reason::FivefoldRepetition => Termination::FivefoldRepetition,
            Reason::SeventyFiveMoveRule => Termination::SeventyFiveMoveRule,
            Reason::ThreefoldRepetition => Termination::ThreefoldRepetition,
            Reason::FiftyMoveRule => Termination::FiftyMoveRule,
            Reason::Agreement => Termination::Agreement,
            Reason::Resignation => Termination::Resignation,
            Reason::TimeForfeit => Termination::TimeForfeit,
            Reason::Abandonment => Termination::Abandonment,
            Reason::Aborted => Termination::Aborted,
            Reason::Unterminated => Termination::Unterminated,
        }
    }
}

/// A draw claim (`claims`, and the `claim` of a client's `draw_claim`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimName {
    ThreefoldRepetition,
    FiftyMoveRule,
}

impl ClaimName {
    pub fn as_str(self) -> &'static str {
        match self {
            ClaimName::ThreefoldRepetition => "threefold_repetition",
            ClaimName::FiftyMoveRule => "fifty_move_rule",
        }
    }
}

impl From<ClaimName> for Claim {
    fn from(name: ClaimName) -> Claim {
        match name {
            ClaimName::ThreefoldRepetition => Claim::ThreefoldRepetition,
            ClaimName::FiftyMoveRule => Claim::FiftyMoveRule,
        }
    }
}

impl From<Claim> for ClaimName {
    fn from(claim: Claim) -> ClaimName {
        match claim {
            Claim::ThreefoldRepetition => ClaimName::ThreefoldRepetition,
            Claim::FiftyMoveRule => ClaimName::FiftyMoveRule,
        }
    }
}

/// A finished game's result (`result`): the PGN result token, except that
/// an aborted game, which has no result, is `*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameResult {
    #[serde(rename = "1-0")]
    WhiteWins,
    #[serde(rename = "0-1")]
    BlackWins,
    #[serde(rename = "1/2-1/2")]
    Draw,
    #[serde(rename = "*")]
    NoResult,
}

impl GameResult {
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::NoResult => "*",
        }
    }
}

impl From<Outcome> for GameResult {
    fn from(outcome: Outcome) -> GameResult {
        match outcome {
            _ if outcome.reason() == Termination::Aborted => GameResult::NoResult,
            Outcome::Win {
                winner: Color::White,
                ..
            } => GameResult::WhiteWins,
            Outcome::Win {
                winner: Color::Black,
                ..
            } => GameResult::BlackWins,
            Outcome::Draw { .. } => GameResult::Draw,
        }
    }
}

/// The wire name of a phase.
pub fn phase_name(phase: Phase) -> &'static str {
    PhaseName::from(phase).as_str()
}

/// `1-0`, `0-1`, `1/2-1/2`, or `*` for an aborted game.
pub fn result_str(outcome: Outcome) -> &'static str {
    GameResult::from(outcome).as_str()
}

/// The wire name of a termination: its PGN text with underscores.
/// (A `String` as it always was, for its callers; [`Reason::as_str`] is the
/// same text without the allocation.)
pub fn reason_name(reason: Termination) -> String {
    Reason::from(reason).as_str().to_string()
}

/// The wire name of a claim.
pub fn claim_name(claim: Claim) -> &'static str {
    ClaimName::from(claim).as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::domain::status::GameStatus;

    /// `value` serializes to `"name"` and `"name"` deserializes to `value`.
    fn assert_wire_name<T>(value: T, name: &str)
    where
        T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
    {
        let text = format!("\"{name}\"");
        assert_eq!(
            serde_json::to_string(&value).ok().as_deref(),
            Some(text.as_str()),
            "{value:?}"
        );
        assert_eq!(serde_json::from_str::<T>(&text).ok(), Some(value), "{name}");
    }

    #[test]
    fn every_side_has_its_wire_name_and_converts_both_ways() {
        for (side, name, color) in [
            (Side::White, "white", Color::White),
            (Side::Black, "black", Color::Black),
        ] {
            assert_wire_name(side, name);
            assert_eq!(Side::from(color), side);
            assert_eq!(Color::from(side), color);
        }
    }

    #[test]
    fn every_phase_has_its_wire_name_and_converts_both_ways() {
        for (name, text, phase) in [
            (PhaseName::Single, "single", Phase::Single),
            (PhaseName::First, "first", Phase::First),
            (PhaseName::Second, "second", Phase::Second),
        ] {
            assert_wire_name(name, text);
            assert_eq!(name.as_str(), text);
            assert_eq!(phase_name(phase), text);
            assert_eq!(Phase::from(name), phase);
        }
    }

    #[test]
    fn every_termination_has_a_reason_named_as_its_pgn_text_with_underscores() {
        let names = [
            (Termination::Checkmate, "checkmate"),
            (Termination::Stalemate, "stalemate"),
            (Termination::SecondMoveStalemate, "second_move_stalemate"),
            (Termination::InsufficientMaterial, "insufficient_material"),
            (Termination::FivefoldRepetition, "fivefold_repetition"),
            (Termination::SeventyFiveMoveRule, "seventy_five_move_rule"),
            (Termination::ThreefoldRepetition, "threefold_repetition"),
            (Termination::FiftyMoveRule, "fifty_move_rule"),
            (Termination::Agreement, "agreement"),
            (Termination::Resignation, "resignation"),
            (Termination::TimeForfeit, "time_forfeit"),
            (Termination::Abandonment, "abandonment"),
            (Termination::Aborted, "aborted"),
            (Termination::Unterminated, "unterminated"),
        ];
        assert_eq!(names.len(), Termination::ALL.len());
        for (termination, name) in names {
            let reason = Reason::from(termination);
            assert_wire_name(reason, name);
            assert_eq!(reason.as_str(), name);
            assert_eq!(reason_name(termination), name);
            // The rule the names follow, checked against the rules' own text.
            assert_eq!(termination.as_str().replace(['-', ' '], "_"), name);
            assert_eq!(Termination::from(reason), termination);
        }
    }

    #[test]
    fn every_claim_has_its_wire_name_and_converts_both_ways() {
        for (name, text, claim) in [
            (
                ClaimName::ThreefoldRepetition,
                "threefold_repetition",
                Claim::ThreefoldRepetition,
            ),
            (
                ClaimName::FiftyMoveRule,
                "fifty_move_rule",
                Claim::FiftyMoveRule,
            ),
        ] {
            assert_wire_name(name, text);
            assert_eq!(claim_name(claim), text);
            assert_eq!(ClaimName::from(claim), name);
            assert_eq!(Claim::from(name), claim);
        }
    }

    #[test]
    fn every_result_has_its_wire_name_and_an_aborted_game_has_none() {
        let win = |winner, reason| Outcome::Win { winner, reason };
        for (result, text, outcome) in [
            (
                GameResult::WhiteWins,
                "1-0",
                win(Color::White, Termination::Checkmate),
            ),
            (
                GameResult::BlackWins,
                "0-1",
                win(Color::Black, Termination::Resignation),
            ),
            (
                GameResult::Draw,
                "1/2-1/2",
                Outcome::Draw {
                    reason: Termination::Agreement,
                },
            ),
            (
                GameResult::NoResult,
                "*",
                Outcome::Draw {
                    reason: Termination::Aborted,
                },
            ),
        ] {
            assert_wire_name(result, text);
            assert_eq!(result.as_str(), text);
            assert_eq!(GameResult::from(outcome), result);
            assert_eq!(result_str(outcome), text);
        }
    }

    #[test]
    fn every_status_has_its_wire_name_the_same_as_its_stored_text() {
        for (status, text) in [
            (GameStatus::Open, "open"),
            (GameStatus::Playing, "playing"),
            (GameStatus::Finished, "finished"),
        ] {
            assert_wire_name(status, text);
            assert_eq!(status.as_str(), text);
        }
    }
}
