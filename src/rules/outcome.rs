//! How a game ends: results and the reasons for them (`docs/rules.md` section 3). Which
//! position shows which ending is judged in [`super::ending`].

use std::fmt;
use std::str::FromStr;

use cozy_chess::Color;

/// Why a game ended. The names are those of the PGN `Termination` tag.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Termination {
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

impl Termination {
    pub const ALL: [Termination; 14] = [
        Termination::Checkmate,
        Termination::Stalemate,
        Termination::SecondMoveStalemate,
        Termination::InsufficientMaterial,
        Termination::FivefoldRepetition,
        Termination::SeventyFiveMoveRule,
        Termination::ThreefoldRepetition,
        Termination::FiftyMoveRule,
        Termination::Agreement,
        Termination::Resignation,
        Termination::TimeForfeit,
        Termination::Abandonment,
        Termination::Aborted,
        Termination::Unterminated,
    ];

    /// The PGN `Termination` tag value.
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::SecondMoveStalemate => "second-move stalemate",
            Termination::InsufficientMaterial => "insufficient material",
            Termination::FivefoldRepetition => "fivefold repetition",
            Termination::SeventyFiveMoveRule => "seventy-five-move rule",
            Termination::ThreefoldRepetition => "threefold repetition",
            Termination::FiftyMoveRule => "fifty-move rule",
            Termination::Agreement => "agreement",
            Termination::Resignation => "resignation",
            Termination::TimeForfeit => "time forfeit",
            Termination::Abandonment => "abandonment",
            Termination::Aborted => "aborted",
            Termination::Unterminated => "unterminated",
        }
    }

    /// Endings decided by the board itself, which a validator can check.
    pub fn is_on_board(self) -> bool {
        matches!(
            self,
            Termination::Checkmate
                | Termination::Stalemate
                | Termination::SecondMoveStalemate
                | Termination::InsufficientMaterial
                | Termination::FivefoldRepetition
                | Termination::SeventyFiveMoveRule
        )
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `Termination` tag value that is not one of the known ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown termination '{0}'")]
pub struct UnknownTermination(pub String);

impl FromStr for Termination {
    type Err = UnknownTermination;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim().to_ascii_lowercase();
        Termination::ALL
            .into_iter()
            .find(|t| t.as_str() == wanted)
            .ok_or_else(|| UnknownTermination(s.to_string()))
    }
}

/// The result of a finished game and why.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    Win { winner: Color, reason: Termination },
    Draw { reason: Termination },
}

impl Outcome {
    pub fn reason(self) -> Termination {
        match self {
            Outcome::Win { reason, .. } | Outcome::Draw { reason } => reason,
        }
    }

    pub fn winner(self) -> Option<Color> {
        match self {
            Outcome::Win { winner, .. } => Some(winner),
            Outcome::Draw { .. } => None,
        }
    }

    /// The PGN result token: `1-0`, `0-1` or `1/2-1/2`.
    pub fn result_str(self) -> &'static str {
        match self {
            Outcome::Win {
                winner: Color::White,
                ..
            } => "1-0",
            Outcome::Win {
                winner: Color::Black,
                ..
            } => "0-1",
            Outcome::Draw { .. } => "1/2-1/2",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.result_str(), self.reason())
    }
}
