//! Comma PGN (`docs/rules.md` section 4): a turn is its sub-moves joined by a
//! comma, `1. e4 e5,Nc6 2. Qh5,Nf3 g6,gxh5`.
//!
//! This module owns the vocabulary shared by the parts: result tokens, the
//! header a server fills, where in the movetext something happened, and the
//! errors. [`write`] renders a [`Game`](super::Game); [`lex`] cuts text into
//! games and tokens; [`replay`] plays a record's movetext, noting what only
//! strict validation reports ([`problem`]); [`read`] builds the tolerant
//! import on it and [`check`] the strict validation for `pgn check`; both
//! ask [`termination`] which ending explains a result. The dependencies go
//! one way: `lex`, `problem`, `termination` <- `replay` <- `read`, `check`.
//! [`variations`] reads and writes a game with its variations and comments
//! as a [`MoveTree`](super::tree::MoveTree), on the same lexer and SAN
//! reading.

mod check;
mod lex;
mod problem;
mod read;
mod replay;
mod termination;
mod time_control;
mod variations;
mod write;

use std::fmt;
use std::str::FromStr;

use cozy_chess::Color;

use super::fen::FenError;
use super::outcome::Outcome;
use super::san::SanError;

pub use check::{GameReport, check_games};
pub use problem::{CheckReason, Problem};
pub use read::{ImportedGame, read_game, read_game_prefix, read_games};
pub use time_control::TimeControlTag;
pub use variations::{ImportedTree, MAX_VARIATION_DEPTH, read_tree, tree_movetext, write_tree};
pub use write::{movetext, write_game};

/// The PGN result token.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
    /// `*`: the game goes on, or was aborted/unterminated.
    Ongoing,
}

impl GameResult {
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Ongoing => "*",
        }
    }

    /// The token for a game's outcome. Aborted and unterminated games have
    /// no winner and no draw, so they are `*` like a game still going on.
    pub fn of(outcome: Option<Outcome>) -> GameResult {
        use super::outcome::Termination;
        match outcome {
            None => GameResult::Ongoing,
            Some(o) if matches!(o.reason(), Termination::Aborted | Termination::Unterminated) => {
                GameResult::Ongoing
            }
            Some(Outcome::Win {
                winner: Color::White,
                ..
            }) => GameResult::WhiteWins,
            Some(Outcome::Win {
                winner: Color::Black,
                ..
            }) => GameResult::BlackWins,
            Some(Outcome::Draw { .. }) => GameResult::Draw,
        }
    }

    /// The winner, for a decided result.
    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::WhiteWins => Some(Color::White),
            GameResult::BlackWins => Some(Color::Black),
            GameResult::Draw | GameResult::Ongoing => None,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Text that is not one of the four result tokens.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a result (1-0, 0-1, 1/2-1/2 or *)")]
pub struct UnknownResult(pub String);

impl FromStr for GameResult {
    type Err = UnknownResult;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s.trim() {
            "1-0" => GameResult::WhiteWins,
            "0-1" => GameResult::BlackWins,
            "1/2-1/2" => GameResult::Draw,
            "*" => GameResult::Ongoing,
            _ => return Err(UnknownResult(s.to_string())),
        })
    }
}

/// The header fields a server knows about a game; everything else
/// (`Result`, `Variant`, `FEN`, `SetUp`, `Termination`) comes from the game.
/// Unknown values are `?` as the PGN standard asks.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PgnTags {
    pub event: String,
    pub site: String,
    /// `YYYY.MM.DD`, with `??` for unknown parts.
    pub date: String,
    pub round: String,
    pub white: String,
    pub black: String,
    /// PGN `TimeControl` such as `300+3`; the tag is omitted when `None`.
    pub time_control: Option<String>,
}

impl Default for PgnTags {
    fn default() -> Self {
        PgnTags {
            event: "?".into(),
            site: "?".into(),
            date: "????.??.??".into(),
            round: "?".into(),
            white: "?".into(),
            black: "?".into(),
            time_control: None,
        }
    }
}

impl PgnTags {
    /// The header fields found among read tags; missing ones stay `?`.
    pub fn from_pairs(tags: &[(String, String)]) -> PgnTags {
        let mut header = PgnTags::default();
        for (name, value) in tags {
            let slot = match name.as_str() {
                "Event" => &mut header.event,
                "Site" => &mut header.site,
                "Date" => &mut header.date,
                "Round" => &mut header.round,
                "White" => &mut header.white,
                "Black" => &mut header.black,
                "TimeControl" => {
                    header.time_control = Some(value.clone());
                    continue;
                }
                _ => continue,
            };
            *slot = value.clone();
        }
        header
    }
}

/// Where in the movetext: the turn's move number, its side, and the
/// sub-move within the turn (1 or 2), plus the source line.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Location {
    pub turn: u32,
    pub side: Color,
    /// 1 for S1 or a single-sub-move turn, 2 for S2.
    pub submove: u8,
    /// 1-based line of the source text.
    pub line: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.side {
            Color::White => "White",
            Color::Black => "Black",
        };
        write!(
            f,
            "line {}, turn {} ({side}), sub-move {}",
            self.line, self.turn, self.submove
        )
    }
}

/// Why a tag line could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TagError {
    #[error("a tag is [Name \"value\"]; the name is missing")]
    MissingName,
    #[error("tag {0}: the value must be in double quotes")]
    MissingValue(String),
    #[error("tag {0}: the value's closing quote is missing")]
    UnclosedValue(String),
    #[error("tag {0}: the closing ']' is missing")]
    UnclosedTag(String),
}

/// What is wrong with a sub-move or a turn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    #[error(transparent)]
    San(#[from] SanError),
    #[error("the first sub-move gave check, which ends the turn; no second sub-move may follow")]
    CheckEndsTurn,
    #[error("this turn is a single sub-move (the game's first turn), so no second may follow")]
    SingleSubMoveTurn,
    #[error("a turn has at most two sub-moves")]
    TooManySubMoves,
    #[error("this turn needs a second sub-move, joined to the first by a comma")]
    TurnIncomplete,
    #[error("empty sub-move: commas must join two sub-moves")]
    EmptySubMove,
    #[error("a turn starts with a comma only when the record starts at a second sub-move")]
    UnexpectedLeadingComma,
    #[error("the game is already over ({0})")]
    GameOver(Outcome),
    #[error("variations '( ... )' are not supported; remove them")]
    Variation,
    #[error("unexpected ')'")]
    UnexpectedCloseParen,
    #[error("a variation '(' follows the turn it replaces; none came before it")]
    VariationFirst,
    #[error("variations are nested too deep (more than 64 levels)")]
    VariationTooDeep,
}

/// Why a game could not be read. Move errors say where they happened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PgnError {
    #[error("line {line}: {reason}")]
    Tag { line: usize, reason: TagError },
    #[error("line {line}: a comment '{{' is never closed")]
    UnclosedComment { line: usize },
    #[error("FEN tag: {0}")]
    Fen(#[from] FenError),
    #[error("{at}: '{token}': {reason}")]
    Move {
        at: Location,
        token: String,
        reason: MoveError,
    },
}

impl PgnError {
    /// The movetext location, for errors that have one.
    pub fn location(&self) -> Option<Location> {
        match self {
            PgnError::Move { at, .. } => Some(*at),
            _ => None,
        }
    }
}
