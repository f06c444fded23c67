//! The themes a puzzle is tagged with: a closed set, each with the stable key the wire, the
//! store and the CSV use (lichess's keys where lichess has the theme).

use serde::{Serialize, Serializer};

/// One theme of a puzzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Theme {
    /// Mate in 1 to 4 of the solver's turns.
    MateIn1,
    MateIn2,
    MateIn3,
    MateIn4,
    /// Any mate.
    Mate,
    /// One turn of the solver takes two pieces.
    DoubleCapture,
    /// A piece attacks two or more of the opponent's valuable pieces.
    Fork,
    /// A piece moves off a line and uncovers an attack by another.
    DiscoveredAttack,
    /// A pawn promotes in the solution.
    Promotion,
    /// En passant across sub-moves in the solution.
    EnPassant,
    /// A tempting checking S1 would end the solver's turn after one sub-move.
    CheckEndsTurn,
    /// The only turn that saves the game.
    Defence,
    /// The solution wins a clear advantage (about 2 to 6 pawns).
    Advantage,
    /// The solution wins a crushing one (6 pawns or more).
    Crushing,
    Opening,
    Middlegame,
    Endgame,
    /// One turn of the solver.
    Short,
    /// Three turns of the solver or more.
    Long,
}

impl Theme {
    pub const ALL: [Theme; 19] = [
        Theme::MateIn1,
        Theme::MateIn2,
        Theme::MateIn3,
        Theme::MateIn4,
        Theme::Mate,
        Theme::DoubleCapture,
        Theme::Fork,
        Theme::DiscoveredAttack,
        Theme::Promotion,
        Theme::EnPassant,
        Theme::CheckEndsTurn,
        Theme::Defence,
        Theme::Advantage,
        Theme::Crushing,
        Theme::Opening,
        Theme::Middlegame,
        Theme::Endgame,
        Theme::Short,
        Theme::Long,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Theme::MateIn1 => "mateIn1",
            Theme::MateIn2 => "mateIn2",
            Theme::MateIn3 => "mateIn3",
            Theme::MateIn4 => "mateIn4",
            Theme::Mate => "mate",
            Theme::DoubleCapture => "doubleCapture",
            Theme::Fork => "fork",
            Theme::DiscoveredAttack => "discoveredAttack",
            Theme::Promotion => "promotion",
            Theme::EnPassant => "enPassant",
            Theme::CheckEndsTurn => "checkEndsTurn",
            Theme::Defence => "defence",
            Theme::Advantage => "advantage",
            Theme::Crushing => "crushing",
            Theme::Opening => "opening",
            Theme::Middlegame => "middlegame",
            Theme::Endgame => "endgame",
            Theme::Short => "short",
            Theme::Long => "long",
        }
    }

    pub fn from_key(key: &str) -> Option<Theme> {
        Theme::ALL.into_iter().find(|theme| theme.key() == key)
    }

    /// The mate theme of a mate in `turns` of the solver's turns.
    pub fn mate_in(turns: usize) -> Option<Theme> {
        match turns {
            1 => Some(Theme::MateIn1),
            2 => Some(Theme::MateIn2),
            3 => Some(Theme::MateIn3),
            4 => Some(Theme::MateIn4),
            _ => None,
        }
    }
}

impl Serialize for Theme {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_reads_back_to_its_theme() {
        for theme in Theme::ALL {
            assert_eq!(Theme::from_key(theme.key()), Some(theme));
        }
        assert_eq!(Theme::from_key("Fork"), None);
    }
}
