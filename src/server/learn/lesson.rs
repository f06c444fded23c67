//! What a lesson is: a few steps, each a position (extended FEN) and a goal for the learner's
//! turn, with the explanation a right turn earns. The lessons themselves are in
//! [`super::lessons`].

use serde::Serialize;

use super::goal::Goal;
use super::reason::Reason;

/// The lessons, in the order the page lists them. The wire name (kebab-case) is the lesson's
/// id in the routes and the i18n keys (`learn.lesson.<id>.title`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LessonId {
    MovingTwice,
    FirstTurn,
    CheckEndsTurn,
    OutOfCheck,
    EnPassant,
    KingThroughCheck,
    SecondMoveStalemate,
    DoubleAttack,
    DoubleThreat,
    WonEnding,
}

impl LessonId {
    pub const ALL: [LessonId; 10] = [
        LessonId::MovingTwice,
        LessonId::FirstTurn,
        LessonId::CheckEndsTurn,
        LessonId::OutOfCheck,
        LessonId::EnPassant,
        LessonId::KingThroughCheck,
        LessonId::SecondMoveStalemate,
        LessonId::DoubleAttack,
        LessonId::DoubleThreat,
        LessonId::WonEnding,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LessonId::MovingTwice => "moving-twice",
            LessonId::FirstTurn => "first-turn",
            LessonId::CheckEndsTurn => "check-ends-turn",
            LessonId::OutOfCheck => "out-of-check",
            LessonId::EnPassant => "en-passant",
            LessonId::KingThroughCheck => "king-through-check",
            LessonId::SecondMoveStalemate => "second-move-stalemate",
            LessonId::DoubleAttack => "double-attack",
            LessonId::DoubleThreat => "double-threat",
            LessonId::WonEnding => "won-ending",
        }
    }

    pub fn from_key(key: &str) -> Option<LessonId> {
        LessonId::ALL.into_iter().find(|id| id.as_str() == key)
    }
}

/// Rules lessons teach how a turn works; strategy lessons, what to do with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Rules,
    Strategy,
}

/// One position to play.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// Extended FEN (`src/rules/fen.rs`): the learner is the side to move.
    pub fen: &'static str,
    pub goal: Goal,
    /// The opponent's turn that led here (UCI), shaded on the board: the double steps an
    /// en-passant step is about. Empty when there is nothing to show.
    pub last_turn: &'static [&'static str],
    /// What a right turn is told.
    pub right: Reason,
}

#[derive(Clone, Copy, Debug)]
pub struct Lesson {
    pub id: LessonId,
    pub kind: Kind,
    pub steps: &'static [Step],
}
